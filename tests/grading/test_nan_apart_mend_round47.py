"""Mend round 47 (review RD, MED 2): NaN in one of two compared results was said as a distance of inf ("differs from
the reference by inf", "differs by up to inf", "outputs up to inf apart"): max_err counts NaN as infinitely far, a
number the code never gave. Each of these now says how many non-finite values each result holds (checks.apart)."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import test_implementation as TI
from grader_tests.attention import test_mask_parity as TM
from grading.i18n import msg
from grading.proxy import Feedback
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round42 import ZH


def _no_inf(message) -> None:
    assert "inf" not in message["en"] and "inf" not in message["zh"], message
    assert "non-finite values" in message["en"] and "非有限值" in message["zh"], message
    assert english_in_zh(message["zh"], ZH) == [], message["zh"]


class _NanGradient:
    """Forward right, the gradient with respect to q NaN (sqrt of 0 in the graph: d/dx sqrt(x) at 0 is inf)."""

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        return C.ref_output(q, k, v, mask), C.ref_weights(q, k, mask)

    def sdpa_grad(self, q, k, v, mask, g):
        q, k, v = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + torch.sqrt((q * 0).sum())
        out = torch.softmax(scores + mask, -1) @ v
        return torch.autograd.grad(out, (q, k, v), g)


def test_a_nan_gradient_is_said_by_its_non_finite_count_not_as_inf():
    with pytest.raises(Feedback) as got:
        TI.test_gradients_match_reference(_NanGradient())
    _no_inf(got.value.message)
    assert "the gradient with respect to q differs from the reference (the gradient holds" in got.value.message["en"]


def test_a_result_that_became_nan_on_the_second_call_is_said_by_its_non_finite_count():
    before = torch.ones(2, 3)
    after = before.clone()
    after[0, 0] = float("nan")
    with pytest.raises(Feedback) as got:
        TI._expect_unchanged(before, after, msg("the output", "输出"))
    _no_inf(got.value.message)


class _NanOnce:
    """A MultiHeadAttention whose output holds NaN on every other call without a padding mask."""

    def __init__(self):
        self.calls = 0

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        student = self

        def module(x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
            out = torch.zeros(x.shape[0], x.shape[1], d_model)
            if key_padding_mask is None:
                student.calls += 1
                if student.calls % 2 == 0:
                    out[0, 0, 0] = float("nan")
            return out
        return module


def test_outputs_of_two_calls_one_holding_nan_are_said_by_their_non_finite_counts():
    with pytest.raises(Feedback) as got:
        TM.test_padding_leaves_valid_results_unchanged(_NanOnce())
    _no_inf(got.value.message)
    assert "called twice with the same inputs gives outputs that differ (the first holds 0" in got.value.message["en"]
