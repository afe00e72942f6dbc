"""Mask semantics and reference parity (exit conditions: blocked key has weight 0, parity within the
agreed error; experiment B: padding keys)."""

import torch

from grader_tests.attention import cases as C
from grader_tests.attention.checks import (
    Feedback,
    diagnose_weights,
    expect,
    expect_close,
    expect_finite,
    expect_shape,
    max_err,
    row_sum_error,
)

D, H = 16, 4


def test_output_parity_reference(student, record_measurement):
    q, k, v = C.parity_case()
    out = student.sdpa(q, k, v)
    ref = C.ref_output(q, k, v)
    expect_shape(out, ref.shape, "output [B,H,Nq,dv]")
    expect_finite(out, "output")
    err = max_err(out, ref)
    record_measurement("max_abs_error", err)
    expect_close(out, ref, C.OUT_TOL, "float32 output (vs torch.nn.functional.scaled_dot_product_attention)")


def test_weights_parity_reference(student):
    q, k, v = C.parity_case()
    _, w = student.sdpa(q, k, v, return_weights=True)
    ref = C.ref_weights(q, k)
    expect_shape(w, ref.shape, "weights [B,H,Nq,Nk]")
    hint = diagnose_weights(w, q, k) if max_err(w, ref) > C.WEIGHT_TOL else ""
    expect_close(w, ref, C.WEIGHT_TOL, "weights (vs a float64 softmax of QK^T/sqrt(dk))", names="b,h,q,k",
                 hint=hint)


def _blocked_check(w: torch.Tensor, blocked: torch.Tensor, what: str) -> None:
    """Weights at blocked positions are 0 and rows still sum to 1."""
    on_blocked = float(w.double().masked_select(blocked).abs().max()) if blocked.any() else 0.0
    rs = row_sum_error(w)
    if not (on_blocked <= C.ZERO_TOL and rs <= C.ROW_SUM_TOL):     # fails closed on NaN
        if on_blocked > C.ZERO_TOL and rs <= 1e-4:
            raise Feedback(f"{what}: blocked positions still get weight up to {on_blocked:.3g}; "
                           "add the mask to the scores before the softmax")
        if rs > 1e-4 and on_blocked <= C.ZERO_TOL:
            raise Feedback(f"{what}: blocked positions get 0 but the rows then sum to {1 - rs:.3g}..1: "
                           "the mask must act on the scores before the softmax so the remaining "
                           "weights renormalise (zeroing weights after the softmax is wrong)")
        raise Feedback(f"{what}: weight on blocked positions up to {on_blocked:.3g} (should be 0), row sums "
                       f"off by {rs:.3g}")


def test_blocked_key_gets_zero_weight(student):
    q, k, v = C.qkv(80, 2, 2, 4, 6, 8, 5)
    j = 2
    mask = C.column_block_mask((2, 2, 4, 6), j)
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    expect_shape(w, [2, 2, 4, 6], "weights with an additive mask")
    expect_finite(w, "weights with one key masked by -inf")
    blocked = torch.zeros(2, 2, 4, 6, dtype=torch.bool)
    blocked[..., j] = True
    _blocked_check(w, blocked, f"key {j} masked with -inf")
    expect_close(out, C.ref_output(q, k, v, mask), C.OUT_TOL, f"output with key {j} masked")


def test_additive_mask_parity(student):
    q, k, v = C.qkv(81, 2, 3, 5, 8, 8, 6)
    mask = C.random_block_mask(82, (2, 3, 5, 8))
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    expect_finite(w, "weights with a 0/-inf mask")
    _blocked_check(w, torch.isinf(mask), "random 0/-inf mask [B,H,Nq,Nk]")
    expect_close(w, C.ref_weights(q, k, mask), C.WEIGHT_TOL, "masked weights", names="b,h,q,k")
    expect_close(out, C.ref_output(q, k, v, mask), C.OUT_TOL, "masked output")


def test_mask_broadcasts_over_batch_and_heads(student):
    B, Hh, Nq, Nk = 2, 3, 4, 6
    q, k, v = C.qkv(83, B, Hh, Nq, Nk, 8, 5)
    for i, shape in enumerate([(Nq, Nk), (1, 1, Nq, Nk), (B, 1, Nq, Nk), (1, Hh, Nq, Nk)]):
        mask = C.random_block_mask(90 + i, shape)
        label = "[" + ",".join(map(str, shape)) + "]"
        try:
            out, w = student.sdpa(q, k, v, mask, return_weights=True)
        except Feedback as exc:
            raise Feedback(f"a mask of shape {label} for q [{B},{Hh},{Nq},8] failed: {exc}") from None
        expect_shape(w, [B, Hh, Nq, Nk], f"weights with a mask of shape {label}",
                     "the mask must broadcast over the leading batch/head dims")
        expect_close(w, C.ref_weights(q, k, mask), C.WEIGHT_TOL, f"weights with a mask of shape {label}",
                     names="b,h,q,k", hint="mask entries must line up with the score matrix after broadcasting")
        expect_close(out, C.ref_output(q, k, v, mask), C.OUT_TOL, f"output with a mask of shape {label}")


def _padding_case():
    params = C.mha_params(33, D, H, D // H)
    x, ctx = C.tokens(84, 2, 5, D), C.tokens(85, 2, 8, D)
    pad = torch.zeros(2, 8, dtype=torch.bool)
    pad[1, 5:] = True  # second sample: its last 3 keys are padding
    return params, x, ctx, pad


def test_padding_keys_get_zero_weight(student):
    params, x, ctx, pad = _padding_case()
    mha = student.mha(D, H, params=params)
    out, w = mha(x, ctx, key_padding_mask=pad, return_weights=True)
    expect_shape(w, [2, H, 5, 8], "weights [B,H,Nq,Nk] with a key padding mask")
    wn = torch.nan_to_num(w.double(), nan=0.0)
    on_pad = float(wn[1, :, :, 5:].abs().max())
    on_valid = float(wn[1, :, :, :5].sum(-1).max())
    if on_pad > C.ZERO_TOL and on_valid < 1e-3:
        raise Feedback("the padding keys get all the weight and the real keys none: True in "
                       "key_padding_mask means padding (blocked); the polarity is inverted")
    expect_finite(w, "weights with a key padding mask",
                  "a sample without padding must not have all its keys blocked")
    expect(on_pad <= C.ZERO_TOL, f"padding keys (True in key_padding_mask) get weight up to {on_pad:.3g}; "
           "they must get exactly 0 from every head and query (block them before the softmax)")
    rs = row_sum_error(w)
    expect(rs <= C.ROW_SUM_TOL, f"with padding, row sums deviate from 1 by {rs:.3g}")
    ref, _ = C.ref_mha(params, H, D // H, x, ctx, key_padding_mask=pad)
    expect_close(out, ref, C.OUT_TOL, "output with a key padding mask", names="b,q,d")


def test_padding_leaves_valid_results_unchanged(student):
    params, x, ctx, pad = _padding_case()
    mha = student.mha(D, H, params=params)
    padded = mha(x, ctx, key_padding_mask=pad)
    plain = mha(x, ctx)
    expect_shape(padded, [2, 5, D], "output with a key padding mask")
    err0 = max_err(padded[0], plain[0])
    expect(err0 <= C.OUT_TOL, f"sample 0 has no padding but its output changed by {err0:.3g} when the "
           "padding mask was given: the mask must only affect the keys marked True")
    trimmed = mha(x[1:], ctx[1:, :5])
    err1 = max_err(padded[1], trimmed[0])
    expect(err1 <= C.OUT_TOL, f"sample 1 with 3 padded keys differs by {err1:.3g} from the same sample "
           "with those keys removed: padded keys must have no influence at all")


def test_mha_additive_mask(student):
    params = C.mha_params(34, D, H, D // H)
    mha = student.mha(D, H, params=params)
    x, ctx = C.tokens(86, 2, 4, D), C.tokens(87, 2, 6, D)
    cases = [("[B,Nq,Nk]", C.random_block_mask(95, (2, 4, 6)), None),
             ("[B,H,Nq,Nk]", C.random_block_mask(96, (2, H, 4, 6)), None)]
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[0, 4:] = True
    cases.append(("[B,Nq,Nk] together with key_padding_mask", C.random_block_mask(97, (2, 4, 6)), pad))
    for label, mask, kpm in cases:
        ref_out, ref_w = C.ref_mha(params, H, D // H, x, ctx, mask, kpm)
        try:
            out, w = mha(x, ctx, mask, key_padding_mask=kpm, return_weights=True)
        except Feedback as exc:
            raise Feedback(f"additive_mask {label}: {exc}") from None
        expect_close(w, ref_w, C.WEIGHT_TOL, f"weights with additive_mask {label}", names="b,h,q,k",
                     hint="an additive mask [B,Nq,Nk] applies to every head: unsqueeze(1) before adding")
        expect_close(out, ref_out, C.OUT_TOL, f"output with additive_mask {label}", names="b,q,d")
