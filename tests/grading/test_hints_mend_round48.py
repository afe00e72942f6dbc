"""Mend round 48 (review D): the padding-apart hint (``diagnose._padding_apart``) says only what the tests see.

HIGH 1: a result was called "right" (the output "the right one (the padding keys blocked)", the weights "the right
ones (0 on the padding keys)") when it was within MATCH_TOL (1e-4) of the right computation, while the test the hint
is attached to reported it outside its own limits: "padding keys get weight up to 4.61e-06" with the weights given
a finite fill of -15, "up to 1.51e-05 away from the reference (allowed 1e-05)" with the output given a fill of -11.
A result is now "right" only when it passes the very checks of the test reporting it (the output within
``cases.OUT_TOL`` of ``cases.ref_mha``; the weights within ``WEIGHT_TOL``, rows summing to 1 within ``ROW_SUM_TOL``
and the padding keys' weight within ``ZERO_TOL``), read here from ``cases`` and ``checks``, not restated.
MEDIUM 1: the guard tests now reach their guards: the padding making no difference to the output (v_proj
giving every key the same value) for "no padding read here", and padding tokens whose values are 0 (so the
padding keys' weights zeroed after the softmax give the same output) for "the output is not the one the returned
weights give". Each fails with its guard removed.
The class: the NaN-mask hints' probes (``diagnose._right_with``, ``_allowed_entry_nan``) said "the results are right"
within MATCH_TOL too ("scores + mask * -13": the 0/1 mask's blocked keys at 3.6e-06, its output 1.6e-05 off); now
``_sdpa_passes`` applies the sdpa tests' checks (WEIGHT_TOL, ROW_SUM_TOL, ZERO_TOL on blocked keys, OUT_TOL).
LOW 3: "the padding tokens' output rows" is offered in self-attention only, not in cross-attention with Nq == Nk.
"""

from __future__ import annotations

import math

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention.checks import max_err, row_sum_error
from tests.grading.test_hints_round22 import Student, _case
from tests.grading.test_padding_fill_round41 import PAD8
from tests.grading.test_padding_fill_round45 import CTX, PARAMS, D, H

APART = diagnose.FAULTS["pad_weights_output_apart"]
OUT_RIGHT = ("the output is the right one", "输出是正确的")
WEIGHTS_RIGHT = ("the returned weights are the right ones", "返回的权重是正确的")


def _filled(fill: float, params: dict[str, torch.Tensor] = PARAMS, x: torch.Tensor = CTX,
            context: torch.Tensor | None = None, pad: torch.Tensor = PAD8) -> tuple[torch.Tensor, torch.Tensor]:
    """Multi-head attention in float64 with the padding keys given the finite score ``fill`` in place of -inf."""
    p = {n: t.double() for n, t in params.items()}
    q, k, v, mask = C.mha_heads(p, H, D // H, x.double(), None if context is None else context.double(), None, pad)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D // H) + mask.clamp(min=fill), -1)
    return C.mha_merge(p, w @ v), w


def _said(out: torch.Tensor, w: torch.Tensor, params: dict[str, torch.Tensor] = PARAMS, x: torch.Tensor = CTX,
          context: torch.Tensor | None = None, pad: torch.Tensor = PAD8):
    return diagnose.mha(out.float(), w.float(), params, H, D // H, x, context, None, pad)


def _fails_the_tests(out: torch.Tensor, w: torch.Tensor, side: str) -> bool:
    """The side said "right" before the mend fails the padding test's own checks (cases' tolerances)."""
    ref_out, ref_w = C.ref_mha(PARAMS, H, D // H, CTX, None, None, PAD8)
    if side == "output":
        return max_err(out.float(), ref_out) > C.OUT_TOL
    wf = w.float()
    on_pad = float(wf[1, :, :, 5:].abs().max())
    return max_err(wf, ref_w) > C.WEIGHT_TOL or row_sum_error(wf) > C.ROW_SUM_TOL or on_pad > C.ZERO_TOL


# the output from a fill of -17 is within OUT_TOL (it passes, and may be called right); the weights are not
@pytest.mark.parametrize(("side", "fill"), [("output", f) for f in (-9.0, -11.0, -13.0, -15.0)]
                         + [("weights", f) for f in (-9.0, -11.0, -13.0, -15.0, -17.0)])
def test_a_result_outside_the_tests_tolerances_is_never_called_right(side, fill):
    # the review's pairs: the weights (or the output) from a finite fill, the other result without the padding mask
    filled = _filled(fill)
    unpadded = C.mha_variant(PARAMS, H, D // H, CTX, None, None, PAD8, "pad_ignored")
    assert unpadded is not None
    out, w = (filled[0], unpadded[1]) if side == "output" else (unpadded[0], filled[1])
    assert _fails_the_tests(out, w, side), (side, fill)
    said = _said(out, w)
    right = OUT_RIGHT if side == "output" else WEIGHTS_RIGHT
    assert said is None or (right[0] not in said["en"] and right[1] not in said["zh"]), said


def test_the_right_side_said_right_passes_the_tests_checks():
    # the hint's "right" still said where it is true: the right output (float32) with the unpadded weights
    right = C.mha_variant(PARAMS, H, D // H, CTX, None, None, PAD8)
    unpadded = C.mha_variant(PARAMS, H, D // H, CTX, None, None, PAD8, "pad_ignored")
    assert right is not None and unpadded is not None
    said = _said(right[0], unpadded[1])
    assert said is not None and OUT_RIGHT[0] in said["en"] and APART["en"] in said["en"], said
    said = _said(unpadded[0], right[1])
    assert said is not None and WEIGHTS_RIGHT[0] in said["en"] and APART["zh"] in said["zh"], said


def test_padding_that_does_not_change_the_output_is_not_said_apart():
    # v_proj giving every key the same value: the output with and without the padding mask is one, so whether the
    # padding keys were read cannot be seen from it ("no padding read here"); the output given with the padding
    # tokens' rows zeroed and the weights without the mask were said "the padding keys read" without that guard
    params = dict(PARAMS, **{"v_proj.weight": torch.zeros_like(PARAMS["v_proj.weight"])})
    right = C.mha_variant(params, H, D // H, CTX, None, None, PAD8)
    unpadded = C.mha_variant(params, H, D // H, CTX, None, None, PAD8, "pad_ignored")
    assert right is not None and unpadded is not None
    assert max_err(right[0], unpadded[0]) < 1e-12 and max_err(right[1], unpadded[1]) > 0.1
    rows_zeroed = unpadded[0].masked_fill(PAD8[:, :, None], 0.0)
    said = _said(rows_zeroed, unpadded[1], params)
    assert said is None or APART["en"] not in said["en"], said


def test_an_output_the_returned_weights_do_give_is_not_said_apart():
    # padding tokens that are zero vectors with no v bias have values 0: the output without the padding mask IS the
    # one the padding keys' weights zeroed after the softmax give (merged with the right values), so the two are
    # not apart although each matches a different computation. mha() names this pair mask_after_softmax before
    # _padding_apart is asked (that model fits both results here), so the merge check is reached only by asking
    # _padding_apart itself, as here
    ctx = CTX.masked_fill(PAD8[:, :, None], 0.0)
    params = dict(PARAMS, **{"v_proj.bias": torch.zeros_like(PARAMS["v_proj.bias"])})
    unpadded = C.mha_variant(params, H, D // H, ctx, None, None, PAD8, "pad_ignored")
    right = C.mha_variant(params, H, D // H, ctx, None, None, PAD8)
    assert unpadded is not None and right is not None and max_err(right[0], unpadded[0]) > 1e-3
    zeroed = unpadded[1].masked_fill(PAD8[:, None, None, :], 0.0)
    case = diagnose._MhaCase(unpadded[0].float(), zeroed.float(), params, H, D // H, ctx, None, None, PAD8)
    assert diagnose._padding_seen(case) == ("unpadded", "zeroed")
    assert diagnose._padding_apart(case) is None
    said = _said(unpadded[0], zeroed, params, ctx)
    assert said is None or APART["en"] not in said["en"], said


def test_cross_attention_with_as_many_queries_as_keys_has_no_padding_rows_to_zero():
    # Nq == Nk with a context: the query rows at the padding keys' places are real tokens, not padding tokens
    x = C.tokens(86, 2, 8, D)
    unpadded = C.mha_variant(PARAMS, H, D // H, x, CTX, None, PAD8, "pad_ignored")
    assert unpadded is not None
    rows_zeroed = unpadded[0].masked_fill(PAD8[:, :, None], 0.0)
    said = _said(rows_zeroed, unpadded[1], x=x, context=CTX)
    assert said is None or "padding tokens' output rows" not in said["en"], said


# ------------------------------------------------ the class: ScaledDotProductAttention's probes said "right" too
# (round 22's stand-in module and case: Student(scores) applies scores(s, mask) to the right scores)
def _fails_sdpa_checks(student, q, k, v, mask, given) -> bool:
    out, w = student.sdpa(q, k, v, given, return_weights=True)
    blocked = float(w.double().masked_fill(~torch.isinf(mask), 0.0).abs().max())
    return (max_err(w, C.ref_weights(q, k, mask)) > C.WEIGHT_TOL or row_sum_error(w) > C.ROW_SUM_TOL
            or blocked > C.ZERO_TOL or max_err(out, C.ref_output(q, k, v, mask)) > C.OUT_TOL)


ZERO_ONE = "given the same mask written as 1.0 on the blocked keys and 0.0 elsewhere, the results are right"


@pytest.mark.parametrize("times", [-12.0, -13.0, -16.0])
def test_a_zero_one_mask_probe_outside_the_tests_tolerances_is_not_said_to_give_the_right_results(times):
    # scores + mask * -13: with the 0/1 mask the blocked keys keep 3.6e-06 of weight and the output is 1.6e-05 off,
    # within MATCH_TOL but not within the tests' tolerances; the hint said those results "are right"
    student = Student(lambda s, m: s if m is None else s + m * times)
    q, k, v, mask = _case()
    assert _fails_sdpa_checks(student, q, k, v, mask, torch.isinf(mask).to(mask.dtype))
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    hint = diagnose.mask_nan(student, q, k, v, mask, w, out)
    assert hint is None or ZERO_ONE not in hint["en"], hint


def test_a_zero_one_mask_probe_that_passes_the_tests_is_still_said():
    student = Student(lambda s, m: s if m is None else s + m * -1e9)
    q, k, v, mask = _case()
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    hint = diagnose.mask_nan(student, q, k, v, mask, w, out)
    assert hint is not None and ZERO_ONE in hint["en"], hint


def test_results_without_a_mask_outside_the_tests_tolerances_are_not_said_right():
    # 0 * -inf on every allowed key (NaN with any mask), and without a mask scores 0.005 % too large: the output,
    # 7.6e-05 off, is outside OUT_TOL, yet "without a mask they are right" was said
    neg_inf = float("-inf")
    student = Student(lambda s, m: s * 1.00005 if m is None else s + (m == neg_inf).double() * neg_inf)
    q, k, v, mask = _case()
    out0, w0 = student.sdpa(q, k, v, return_weights=True)
    assert max_err(out0, C.ref_output(q, k, v)) > C.OUT_TOL or max_err(w0, C.ref_weights(q, k)) > C.WEIGHT_TOL
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    hint = diagnose.mask_nan(student, q, k, v, mask, w, out)
    assert hint is None or "without a mask they are right" not in hint["en"], hint
    right = Student(lambda s, m: s if m is None else s + (m == neg_inf).double() * neg_inf)
    out, w = right.sdpa(q, k, v, mask, return_weights=True)
    hint = diagnose.mask_nan(right, q, k, v, mask, w, out)
    assert hint is not None and "without a mask they are right" in hint["en"], hint
