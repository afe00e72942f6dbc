"""Mend round 44 (review RD, MED 1): the anti-guess checks of the per-head padding fills each have a test.

Heads wrong in different ways are named only when (a) the module's second case shows the same fills in the same heads
(``_same_fills`` in ``mha``), (b) the fills, each in its heads, give the student's output (``_fills_give_output``), and
(c) next to a NaN head, the other heads' fills are seen on the second case too (``_finite_heads_too``). A fill that
depends on the data (``scores.masked_fill(m, scores.min() - 1)``, review file g07) fits one number on one case and
another on the next: a number said for it is a guess. Each test below fails when its check is removed."""

from __future__ import annotations

import math

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round41 import CTX, PAD8, D, H
from tests.grading.test_padding_two_faults_round44 import ZH_OK, _Builder, _PerHead, _scores_with


def _with_data_dependent(s, m, fault):
    if fault[0] == "dd":      # the padding keys get the head's lowest score less 1: a number of the data, not the code
        return s.masked_fill(m, float(s.detach().min()) - 1.0)
    return _scores_with(s, m, fault)


class _DdPerHead(_PerHead):
    def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        import tests.grading.test_padding_two_faults_round44 as T
        was, T._scores_with = T._scores_with, _with_data_dependent
        try:
            return super().__call__(x, context, additive_mask, key_padding_mask=key_padding_mask,
                                    return_weights=return_weights)
        finally:
            T._scores_with = was


class _DdBuilder(_Builder):
    def mha(self, d_model, num_heads, head_dim=None, params=None):
        return _DdPerHead(params, num_heads, head_dim or d_model // num_heads, self.faults)


def _said(module_cls, builder):
    params = C.mha_params(33, D, H, D // H)
    out, w = module_cls(params, H, D // H, builder.faults)(CTX, key_padding_mask=PAD8, return_weights=True)
    return diagnose.mha(out, w, params, H, D // H, CTX, None, None, PAD8, student=builder)


def test_a_fill_taken_from_the_data_in_some_heads_is_not_said_as_a_number_the_second_case_does_not_show():
    # review file g07: heads 0, 2 fill with 0, heads 1, 3 with scores.min() - 1 (about -3.8 and -5 on the case)
    faults = {0: ("filled", 0.0), 1: ("dd",), 2: ("filled", 0.0), 3: ("dd",)}
    said = _said(_DdPerHead, _DdBuilder(faults))
    # round 46: each group is said as checked on the probe, heads 1, 3 without a number (it was silent: their number
    # moved more than 10 % on the probe)
    assert "about -" not in said["en"], said["en"]
    assert "in heads 0, 2, the padding keys' scores set to about 0" in said["en"], said["en"]
    assert "in heads 1, 3, the padding keys' scores set to a finite number (scores.masked_fill(key_padding_mask, c)), " \
        "but the number differs from check to check" in said["en"], said["en"]


def test_fills_read_off_the_weights_that_do_not_give_the_output_are_not_named():
    # the weights returned show a fill of 0 in head 0 and an inverted -5 in head 1, the output is computed with a fill
    # of 0 in both: the weights are not the ones the output was made with, so the fills are not what the module does
    shown = {0: ("filled", 0.0), 1: ("inverted", -5.0)}

    class Apart(_PerHead):
        def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
            out = _PerHead(self.params, self.heads, self.head_dim, {0: ("filled", 0.0), 1: ("filled", 0.0)})(
                x, context, additive_mask, key_padding_mask=key_padding_mask)
            _, w = _PerHead(self.params, self.heads, self.head_dim, shown)(
                x, context, additive_mask, key_padding_mask=key_padding_mask, return_weights=True)
            return (out, w) if return_weights else out

    class Builder(_Builder):
        def mha(self, d_model, num_heads, head_dim=None, params=None):
            return Apart(params, num_heads, head_dim or d_model // num_heads, self.faults)

    said = _said(Apart, Builder(shown))
    assert said is None or "wrong in different ways" not in said["en"], said


def test_next_to_a_nan_head_a_fill_taken_from_the_data_is_said_only_as_weights_not_right():
    # head 0 gives NaN (key_padding_mask * -inf), heads 1, 3 fill with their lowest score less 1 (about -3.8 and -5
    # here, other numbers on the second case)
    faults = {0: ("times",), 1: ("dd",), 3: ("dd",)}
    said = _said(_DdPerHead, _DdBuilder(faults))
    assert said is not None
    assert "as 0 * -inf does" in said["en"], said["en"]
    assert "about -" not in said["en"], said["en"]
    # round 46: the fill the probe shows in heads 1, 3 too is said without a number (was: "the weights of heads 1, 3,
    # finite, are not the right ones either", the number having moved more than 10 % on the probe)
    assert said["en"].endswith("the weights match, in heads 1, 3, the padding keys' scores set to a finite number "
                               "(scores.masked_fill(key_padding_mask, c)), but the number differs from check to check: "
                               "no one c gives the numbers of every check"), said["en"]


# Mend round 44 (review RD, MED 4): heads giving NaN in different ways were told one "0 * -inf" for every head, the
# inversion never said (review files f06, g14). Each group is said with its heads, the inversion where the weights
# show it, the other heads as what was seen.
NAN_APART = {
    "f06_inverted_times_alternating": ({0: ("inverted", -math.inf), 1: ("times",), 2: ("inverted", -math.inf),
                                        3: ("times",)}, ("heads 0, 2", "head 0、2"), ("heads 1, 3", "head 1、3")),
    "g14_inverted_h0_h2_times_h3": ({0: ("inverted", -math.inf), 1: ("inverted", -math.inf),
                                     2: ("inverted", -math.inf), 3: ("times",)},
                                    ("heads 0, 1, 2", "head 0、1、2"), ("head 3", "head 3")),
}


@pytest.mark.parametrize("name", sorted(NAN_APART))
def test_heads_giving_nan_in_different_ways_are_each_told_with_their_heads(name):
    faults, (inv_en, inv_zh), (other_en, other_zh) = NAN_APART[name]
    said = _said(_PerHead, _Builder(faults))
    assert said is not None
    en, zh = said["en"], said["zh"]
    assert f"the weights in {inv_en} are NaN, with one that marks every key (all True) they are finite" in en, en
    assert "the padding mask acts inverted" in en and "padding mask 的极性反了" in zh, said
    assert f"the weights in {other_en} are NaN with a key_padding_mask that marks no key" in en, en
    assert f"{other_zh} 的权重在 key_padding_mask 不标记任何 key" in zh and inv_zh in zh, zh
    assert "as 0 * -inf does" not in en and "0 * -inf 那样" not in zh, said   # no cause said for every head
    assert english_in_zh(zh, ZH_OK) == [], zh


def test_nan_in_every_head_the_same_way_is_still_told_as_before():
    said = _said(_PerHead, _Builder({h: ("times",) for h in range(H)}))
    assert said is not None and "as 0 * -inf does" in said["en"], said


def test_a_nan_head_next_to_a_fill_says_how_to_block_the_padding_keys_once():
    # review files f05, g12: the 0 * -inf note's fix, then the fill's again
    for faults in ({0: ("times",), 1: ("filled", 0.0)}, {0: ("times",), 1: ("filled", -2.0)}):
        said = _said(_PerHead, _Builder(faults))
        assert said is not None and "the weights match, in head 1," in said["en"], said
        assert said["en"].count("block the padding keys with") == 1, said["en"]
        assert said["zh"].count("屏蔽 padding key") == 1, said["zh"]
    # the inversion's note gives no fix: the fill's is said
    said = _said(_PerHead, _Builder({0: ("inverted", -math.inf), 1: ("filled", 0.0)}))
    assert said is not None and said["en"].count("block the padding keys with -inf") == 1, said["en"]


def test_the_zero_times_inf_note_does_not_say_which_entries_became_nan():
    # review LOW (g10, g12): (1 - key_padding_mask) * -inf makes the padding entries NaN, not the entries False; the
    # two products give the same NaN here, so the note says both
    said = _said(_PerHead, _Builder({h: ("times",) for h in range(H)}))
    assert said is not None
    assert "an entry False" not in said["en"], said["en"]
    assert "(1 - key_padding_mask.float()) * float('-inf') the padding keys" in said["en"], said["en"]
    assert "`(1 - key_padding_mask.float()) * float('-inf')` 使 padding key 变成 NaN" in said["zh"], said["zh"]
    assert english_in_zh(said["zh"], ZH_OK) == [], said["zh"]
