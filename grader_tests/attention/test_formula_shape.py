"""Formula and shapes (exit condition: self/cross shape tests, row sums; experiments A and C)."""

import math

import torch

from grader_tests.attention import cases as C
from grader_tests.attention.checks import (
    Feedback,
    diagnose_weights,
    expect,
    expect_close,
    expect_shape,
    fmt_matrix,
    max_err,
    row_sum_error,
)


def test_sdpa_interface(student):
    info = student.describe(student.sdpa_handle())
    expect(info.get("is_module"), "ScaledDotProductAttention must subclass torch.nn.Module")
    q, k, v = C.qkv(1, 1, 1, 3, 3, 4, 4)
    out = student.sdpa(q, k, v)
    expect_shape(out, [1, 1, 3, 4], "ScaledDotProductAttention()(q, k, v)")


def test_hand_example(student, record_example_weights):
    q, k, v = C.hand_example()
    ref_w = C.ref_weights(q, k)[0, 0]
    try:
        out, w = student.sdpa(q, k, v, return_weights=True)
    except Feedback:
        record_example_weights(None, ref_w)
        raise
    ok_shape = list(w.shape) == [1, 1, 2, 3]
    record_example_weights(w[0, 0] if ok_shape else None, ref_w)
    expect_shape(w, [1, 1, 2, 3], "weights of the hand example (B=H=1, Nq=2, Nk=3)",
                 "one row per query, one column per key")
    err = max_err(w[0, 0], ref_w)
    hint = diagnose_weights(w, q, k)
    expect(err <= C.WEIGHT_TOL,
           f"hand-example weights are {fmt_matrix(w[0, 0])}; each row should be softmax(q·k / sqrt(2)) "
           f"over the 3 keys (off by up to {err:.3g})" + (f": {hint}" if hint else ""))
    expect_close(out, C.ref_output(q, k, v), C.OUT_TOL, "hand-example output (weights @ v)")


def test_self_attention_shapes(student):
    q, k, v = C.qkv(2, 2, 3, 5, 5, 8, 8)
    out, w = student.sdpa(q, k, v, return_weights=True)
    expect_shape(out, [2, 3, 5, 8], "self-attention output")
    expect_shape(w, [2, 3, 5, 5], "self-attention weights")


def test_cross_attention_shapes(student):
    for nq, nk in ((3, 7), (6, 2), (1, 5)):
        q, k, v = C.qkv(3, 2, 2, nq, nk, 4, 6)
        out, w = student.sdpa(q, k, v, return_weights=True)
        expect_shape(out, [2, 2, nq, 6], f"output for Nq={nq}, Nk={nk}, dk=4, dv=6",
                     "the output has one row per query and dv columns")
        expect_shape(w, [2, 2, nq, nk], f"weights for Nq={nq}, Nk={nk}",
                     "rows are queries, columns are keys: scores = Q @ K^T")


def test_mha_self_and_cross_shapes(student):
    mha = student.mha(16, 4)
    x, ctx7, ctx11, x2 = (C.tokens(20, 2, 5, 16), C.tokens(21, 2, 7, 16), C.tokens(22, 2, 11, 16),
                          C.tokens(23, 2, 2, 16))
    expect_shape(mha(x), [2, 5, 16], "self-attention MultiHeadAttention(16, 4)(x) with x [2,5,16]")
    expect_shape(mha(x, ctx7), [2, 5, 16], "cross-attention output with x [2,5,16], context [2,7,16]",
                 "the output length follows the queries, not the context")
    out, w = mha(x2, ctx11, return_weights=True)
    expect_shape(out, [2, 2, 16], "cross-attention output with x [2,2,16], context [2,11,16]",
                 "queries 5 -> 2 must change the output length; context 7 -> 11 must not")
    expect_shape(w, [2, 4, 2, 11], "cross-attention weights [B,H,Nq,Nk]")


def test_query_count_experiment_c(student):
    q16, k, v = C.qkv(4, 2, 2, 16, 6, 8, 5)
    full = student.sdpa(q16, k, v)
    expect_shape(full, [2, 2, 16, 5], "output for 16 queries")
    for n in (1, 4):
        out = student.sdpa(q16[:, :, :n].contiguous(), k, v)
        expect_shape(out, [2, 2, n, 5], f"output for {n} queries with the same 6-key context")
        err = max_err(out, full[:, :, :n])
        expect(err <= C.OUT_TOL,
               f"with {n} queries, the rows differ from the first {n} rows of the 16-query result by "
               f"{err:.3g}: each query must be computed independently of the others")


def test_row_sums_are_one(student, record_measurement):
    q, k, v = C.parity_case()
    _, w = student.sdpa(q, k, v, return_weights=True)
    expect_shape(w, [q.shape[0], q.shape[1], q.shape[2], k.shape[2]], "weights [B,H,Nq,Nk]")
    err = row_sum_error(w)
    record_measurement("row_sum_error", err)
    if not err < C.ROW_SUM_TOL:
        hint = diagnose_weights(w, q, k)
        raise Feedback(f"row sums of the weights deviate from 1 by up to {err:.3g} (allowed "
                       f"{C.ROW_SUM_TOL:g}): every query row must be a softmax over all keys"
                       + (f"; {hint}" if hint else ""))


def test_weights_are_probabilities(student):
    q, k, v = C.qkv(5, 2, 2, 4, 6, 8, 8, scale=3.0)
    _, w = student.sdpa(q, k, v, return_weights=True)
    expect_shape(w, [2, 2, 4, 6], "weights [B,H,Nq,Nk]")
    lo, hi = float(w.min()), float(w.max())
    expect(lo >= -1e-7 and hi <= 1 + 1e-6,
           f"weights range over [{lo:.3g}, {hi:.3g}]: they should be softmax probabilities in [0, 1], "
           "not raw or scaled scores")
    err = max_err(w, C.ref_weights(q, k))
    expect(err <= 1e-4, "weights are not softmax(QK^T / sqrt(dk)) over the keys"
           + (f": {diagnose_weights(w, q, k)}" if diagnose_weights(w, q, k) else f" (off by {err:.3g})"))


def _effective_scale(w, q, k) -> float:
    """Least-squares c such that log w ~ c * (q.k) + row constant."""
    logw = torch.log(w.double().clamp_min(1e-300))
    s = q.double() @ k.double().transpose(-2, -1)
    lw = logw - logw.mean(-1, keepdim=True)
    sc = s - s.mean(-1, keepdim=True)
    return float((lw * sc).sum() / (sc * sc).sum())


def test_scale_experiment_a(student, record_measurement):
    problems = []
    for dk in (8, 16, 32, 64, 128):
        q, k, v = C.qkv(100 + dk, 1, 2, 6, 10, dk, 4)
        _, w = student.sdpa(q, k, v, return_weights=True)
        expect_shape(w, [1, 2, 6, 10], f"weights for dk={dk}")
        if torch.isfinite(w).all() and (w >= 0).all():
            record_measurement(f"entropy_dk{dk}", C.entropy(w))
        record_measurement(f"entropy_reference_dk{dk}", C.entropy(C.ref_weights(q, k)))
        record_measurement(f"entropy_unscaled_dk{dk}", C.entropy(C.ref_weights(q, k, scale=1.0)))
        if not max_err(w, C.ref_weights(q, k)) <= 1e-4 and not problems:     # fails closed on NaN
            is_softmax = bool(torch.isfinite(w).all() and (w > 0).all() and row_sum_error(w) < 1e-4)
            if not is_softmax:
                problems.append(f"at dk={dk} the weights are not a softmax over the keys, so the "
                                "scale cannot be checked")
                continue
            c = _effective_scale(w, q, k)
            problems.append(f"at dk={dk} the scores are scaled by about {c:.4g}, expected "
                            f"1/sqrt(dk) = {1 / math.sqrt(dk):.4g}")
    expect(not problems, "; ".join(problems) + " (divide QK^T by the square root of the key dimension "
           "q.shape[-1])")


def test_return_weights_flag(student):
    q, k, v = C.qkv(6, 1, 2, 3, 4, 4, 4)
    default = student.sdpa(q, k, v, strict=True)
    expect_shape(default, [1, 2, 3, 4], "the default return value (return_weights not given)")
    off = student.sdpa(q, k, v, strict=True, pass_flag=True)
    expect_shape(off, [1, 2, 3, 4], "the return value for return_weights=False")
    out, w = student.sdpa(q, k, v, return_weights=True)
    expect_shape(out, [1, 2, 3, 4], "output in (output, weights)")
    expect_shape(w, [1, 2, 3, 4], "weights in (output, weights)")
