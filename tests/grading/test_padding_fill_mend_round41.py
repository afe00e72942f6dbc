"""Round 41 mend (review B): padding fills whose number the numbers do not pin down, and fill numbers the code may
rebind."""

from __future__ import annotations

import re

import pytest

from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round41 import CTX, PAD8, PARAMS16, ZH_WORDS, D, H, _Module, _said


def test_a_fill_whose_number_does_not_show_is_told_without_a_number():
    # masked_fill(key_padding_mask, -9): fills from about -8.1 to -9.9 give the same numbers within MATCH_TOL
    out, w = _Module(PARAMS16, H, D // H, "filled", -9.0)(CTX, key_padding_mask=PAD8, return_weights=True)
    kind, c, shows = diagnose._padding_fill(diagnose._MhaCase(out, w, PARAMS16, H, D // H, CTX, None, None, PAD8))
    assert (kind, shows) == ("filled", False)
    for weights in (True, False):
        said = _said("filled", -9.0, weights=weights, student=weights)
        assert said is not None
        assert "the padding keys' scores set to a finite number (scores.masked_fill(key_padding_mask, c) with c " \
               "finite)" in said["en"], said["en"]
        assert "设为一个有限数的结果一致" in said["zh"], said["zh"]
        for text in (said["en"], said["zh"]):
            head = text.split("float('-inf')")[0].split("-inf")[0]      # the fix names -inf and finfo.min
            assert re.search(r"\d", head) is None, head
            assert "about" not in head and "约" not in head
        assert english_in_zh(said["zh"], ZH_WORDS) == []


@pytest.mark.parametrize("c", [-6.0, -8.0, 0.0, 10.0])
def test_a_fill_whose_number_shows_is_still_told_its_number(c):
    said = _said("filled", c)
    assert said is not None and f"set to about {round(c)} (scores.masked_fill(key_padding_mask, {round(c)}))" \
        in said["en"]
