"""Round 42 mend (review B): padding fills in some heads.

MED 1: a fill in some heads whose every-head model also fits within MATCH_TOL ("added -12" in heads 0, 1: heads 2, 3
give the padding keys 0) was said as a fill in every head, while the test's reading said "heads 0, 1 only".
MED 2: an inverted mask with a large negative fill in some heads was told "the number it puts is finite" too; in every
head the same code is told only that the mask is inverted.
LOW: a large positive fill in some heads is said as the padding keys lifted (as in every head); zh spacing."""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round41 import CTX, PAD8, D, H
from tests.grading.test_padding_fill_round42 import ZH, _check_zh, _Module, _said


def _weights(kind, c, some):
    params = C.mha_params(33, D, H, D // H)
    return _Module(params, H, D // H, kind, c, some)(CTX, key_padding_mask=PAD8, return_weights=True)[1]


def test_a_fill_in_some_heads_that_an_every_head_fill_also_fits_is_said_with_the_heads_reading_the_padding():
    w = _weights("added", -12.0, 2)
    on_pad = w[1, :, :, 5:].double().abs().amax(dim=(1, 2))
    assert [float(x) > C.ZERO_TOL for x in on_pad] == [True, True, False, False]   # as the test's reading sees it
    said = _said("added", -12.0, some=2)
    assert said is not None
    assert "the weights and the output match, in heads 0, 1 only (the other heads block the padding keys as -inf " \
           "does), the padding keys' scores lowered by only about 12" in said["en"], said["en"]
    assert "仅在 head 0、1 中" in said["zh"], said["zh"]
    _check_zh(said)


def test_a_fill_in_every_head_is_still_said_without_heads():
    said = _said("added", -12.0)
    assert said is not None and "the weights and the output match the padding keys' scores lowered by only about " \
                                "12" in said["en"], said["en"]


@pytest.mark.parametrize("c, some", [(-20.0, 3), (-1e4, 2), (-1e9, 2)])
def test_an_inverted_mask_with_a_large_negative_fill_in_some_heads_is_told_only_inverted(c, some):
    said = _said("inverted", c, some=some)
    assert said is not None
    assert "finite" not in said["en"] and "有限" not in said["zh"], said
    assert diagnose.FAULTS["pad_inverted"]["en"] in said["en"] and diagnose.FAULTS["pad_inverted"]["zh"] in said["zh"]
    assert f"in heads {', '.join(map(str, range(some)))} only" in said["en"], said["en"]
    assert english_in_zh(said["zh"], ZH) == [], said["zh"]


def test_a_large_positive_fill_in_some_heads_is_said_as_lifted_not_as_leaving_weight():
    said = _said("filled", 20.0, some=2)
    assert said is not None
    assert "the padding keys are lifted instead of blocked" in said["en"], said["en"]
    assert "leaves the padding keys weight" not in said["en"]
    assert "padding key 被抬高而不是被屏蔽" in said["zh"]
    _check_zh(said)


@pytest.mark.parametrize("kind, c, some", [("added", 5.0, 2), ("added", 0.0, 1)])
def test_zh_puts_no_space_after_a_closing_bracket_and_one_between_yu_and_padding_key(kind, c, some):
    said = _said(kind, c, some=some)
    assert said is not None
    assert "） padding key" not in said["zh"] and "与padding key" not in said["zh"], said["zh"]
