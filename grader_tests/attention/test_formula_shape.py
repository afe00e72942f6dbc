"""Formula and shapes (exit condition: self/cross shape tests, row sums; experiments A and C)."""

import math

import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention.checks import (
    SEMI,
    Feedback,
    cat,
    expect,
    expect_close,
    expect_finite,
    expect_shape,
    fmt_matrix,
    identical,
    max_err,
    msg,
    row_sum_error,
)
from grader_tests.attention.drivers import weights_as_returned
from grader_tests.attention.test_implementation import believed
from grading.i18n import Msg


def _weights_hint(student, w, q, k, v):
    """What the weights show, named only on stable numbers: a second call that returns other weights
    is what was wrong (dropout active in eval, state kept), and no fault model, scale estimate or
    "each query must be independent" may be read from one random draw."""
    if not identical(student.sdpa(q, k, v, return_weights=True)[1], w) or _unstable(student):
        return diagnose.randomness(student, "ScaledDotProductAttention")
    return diagnose.sdpa_weights(w, q, k, v, student=student)


def _unstable(student) -> bool:
    """Whether two calls on the parity case (504 weights) differ: a small case (the hand example's 6) can
    draw the same dropout mask twice, about one time in two."""
    q, k, v = C.parity_case()
    return not identical(student.sdpa(q, k, v, return_weights=True)[1], student.sdpa(q, k, v, return_weights=True)[1])


def test_sdpa_interface(student, student_source):
    info = student.describe(student.sdpa_handle())
    expect(info.get("is_module"), msg("ScaledDotProductAttention must subclass torch.nn.Module",
                                      "ScaledDotProductAttention 必须继承 torch.nn.Module"))
    q, k, v = C.qkv(1, 1, 1, 3, 3, 4, 4)
    out = student.sdpa(q, k, v)
    expect_shape(out, [1, 1, 3, 4], msg("ScaledDotProductAttention()(q, k, v)", "ScaledDotProductAttention()(q, k, v)"))
    # "is a Module" is the jail's report, which a rewritten describe op forges (2 points); what the call showed
    # against the submission is said first
    believed(student_source, msg("whether ScaledDotProductAttention subclasses torch.nn.Module",
                                 "ScaledDotProductAttention 是否继承 torch.nn.Module"))


def test_hand_example(student, record_example_weights):
    with weights_as_returned(student):   # the weights' layout is graded here (drivers.read_back)
        q, k, v = C.hand_example()
        ref_w = C.ref_weights(q, k)[0, 0]
        try:
            out, w = student.sdpa(q, k, v, return_weights=True)
        except Feedback:
            record_example_weights(None, ref_w)
            raise
        record_example_weights(w[0, 0], ref_w)
        err = max_err(w[0, 0], ref_w)
        if err > C.WEIGHT_TOL:
            hint = _weights_hint(student, w, q, k, v)
            raise Feedback(cat(msg(f"hand-example weights are {fmt_matrix(w[0, 0])}, expected {fmt_matrix(ref_w)}: "
                                   "each row is softmax(q·k / sqrt(2)) over the 3 keys "
                                   f"(off by up to {err:.3g})",
                                   f"手算例子的权重为 {fmt_matrix(w[0, 0])}，应为 {fmt_matrix(ref_w)}："
                                   f"每一行是 3 个 key 上的 softmax(q·k / sqrt(2))（最多相差 {err:.3g}）"), hint, sep=SEMI))
        ref = C.ref_output(q, k, v)
        hint = diagnose.sdpa_output(out, q, k, v, student=student) if max_err(out, ref) > C.OUT_TOL else None
        expect_close(out, ref, C.OUT_TOL, msg("hand-example output (weights @ v)", "手算例子的输出（weights @ v）"), hint=hint)


def test_self_attention_shapes(student):
    with weights_as_returned(student):   # the weights' layout is graded here (drivers.read_back)
        q, k, v = C.qkv(2, 2, 3, 5, 5, 8, 8)
        student.sdpa(q, k, v, return_weights=True)  # the driver checks [2,3,5,8] and [2,3,5,5]


def test_cross_attention_shapes(student):
    with weights_as_returned(student):   # the weights' layout is graded here (drivers.read_back)
        for nq, nk in ((3, 7), (6, 2), (1, 5)):
            q, k, v = C.qkv(3, 2, 2, nq, nk, 4, 6)
            try:
                student.sdpa(q, k, v, return_weights=True)
            except Feedback as exc:
                raise Feedback(cat(msg(f"with Nq={nq}, Nk={nk}, dk=4, dv=6: ", f"在 Nq={nq}、Nk={nk}、dk=4、dv=6 时："),
                                   exc.message)) from None


def test_mha_self_and_cross_shapes(student):
    mha = student.mha(16, 4)
    x, ctx7, ctx11, x2 = (C.tokens(20, 2, 5, 16), C.tokens(21, 2, 7, 16), C.tokens(22, 2, 11, 16),
                          C.tokens(23, 2, 2, 16))
    for label, call, weights in ((msg("self-attention with x [2,5,16]", "x 为 [2,5,16] 的 self-attention"),
                                   lambda: mha(x), False),
                                  (msg("cross-attention with x [2,5,16], context [2,7,16]",
                                       "x 为 [2,5,16]、context 为 [2,7,16] 的 cross-attention"),
                                   lambda: mha(x, ctx7), False),
                                  (msg("cross-attention with x [2,2,16], context [2,11,16]",
                                       "x 为 [2,2,16]、context 为 [2,11,16] 的 cross-attention"),
                                   lambda: mha(x2, ctx11, return_weights=True), True)):
        try:
            call()
        except Feedback as exc:
            said = (weights and _heads_mean_said(student, x2, ctx11)) or exc.message
            raise Feedback(cat(label, msg(": ", "："), said)) from None


def _heads_mean_said(student, x: torch.Tensor, ctx: torch.Tensor) -> Msg | None:
    """What the same cross-attention call says from a module holding the reference's projections, when that
    message says the weights are the heads' mean: the module's own random projections have no reference to
    check the values against, so the shape alone was said (round 38). None otherwise (the projections do not
    load, or the values are not that mean)."""
    try:
        student.mha(16, 4, params=C.mha_params(25, 16, 4, 4))(x, ctx, return_weights=True)
    except Feedback as exc:
        if diagnose.FAULTS["weights_head_mean_values"]["en"] in exc.message["en"]:
            return exc.message
    return None


def test_query_count_experiment_c(student):
    q16, k, v = C.qkv(4, 2, 2, 16, 6, 8, 5)
    full = student.sdpa(q16, k, v)
    # NaN in both results is no difference between them: said as what it is, where "the rows differ by
    # inf: each query must be computed independently" guessed a cause the results do not show
    expect_finite(full, msg("the output with 16 queries", "16 个 query 时的输出"))
    for n in (1, 4):
        out = student.sdpa(q16[:, :, :n].contiguous(), k, v)
        expect_finite(out, msg(f"the output with {n} quer{'y' if n == 1 else 'ies'}", f"{n} 个 query 时的输出"))
        err = max_err(out, full[:, :, :n])
        if err <= C.OUT_TOL:
            continue
        seen = msg(("with 1 query, the row differs from the first row" if n == 1 else
                    f"with {n} queries, the rows differ from the first {n} rows") + f" of the 16-query result by {err:.3g}",
                   f"使用 {n} 个 query 时，结果与 16 个 query 结果的" + ("第一行" if n == 1 else f"前 {n} 行")
                   + f"相差 {err:.3g}")
        # the same call twice first: results that change between calls are no sign that queries
        # depend on each other
        if not identical(student.sdpa(q16, k, v), full) or _unstable(student):
            raise Feedback(cat(seen, diagnose.randomness(student, "ScaledDotProductAttention"), sep=SEMI))
        raise Feedback(cat(seen, msg(": each query must be computed independently of the others",
                                     "：每个 query 的计算应与其他 query 无关")))


SQUARE_LABEL = msg("with Nq = Nk = 8 (self-attention), ", "Nq = Nk = 8（self-attention）时，")


def test_row_sums_are_one(student, record_measurement):
    # The rectangular parity case first (its error is the recorded measurement), then a square one,
    # where weights returned transposed (key x query) keep their shape and their row sums show it.
    for i, (label, (q, k, v)) in enumerate(((None, C.parity_case()), (SQUARE_LABEL, C.square_case()))):
        _, w = student.sdpa(q, k, v, return_weights=True)
        expect_finite(w, cat(label, msg("the weights", "权重")))
        err = row_sum_error(w)
        if i == 0:
            record_measurement("row_sum_error", err)
        if not err < C.ROW_SUM_TOL:
            raise Feedback(cat(cat(label, msg(f"row sums of the weights deviate from 1 by up to {err:.3g} (allowed "
                                              f"{C.ROW_SUM_TOL:g}): every query row must be a softmax over all keys",
                                              f"权重的行和与 1 最多相差 {err:.3g}（允许 {C.ROW_SUM_TOL:g}）：每个 query "
                                              "行都应是对所有 key 的 softmax")),
                               _weights_hint(student, w, q, k, v), sep=SEMI))


def test_weights_are_probabilities(student):
    # Nq != Nk, then Nq == Nk (weights transposed keep their shape there, not their values)
    for label, (q, k, v) in ((None, C.qkv(5, 2, 2, 4, 6, 8, 8, scale=3.0)),
                             (msg("with Nq = Nk = 6, ", "Nq = Nk = 6 时，"), C.qkv(7, 2, 2, 6, 6, 8, 8, scale=3.0))):
        _, w = student.sdpa(q, k, v, return_weights=True)
        expect_finite(w, cat(label, msg("the weights", "权重")))
        lo, hi = float(w.min()), float(w.max())
        err = max_err(w, C.ref_weights(q, k))
        if lo >= -1e-7 and hi <= 1 + 1e-6 and err <= 1e-4:
            continue
        hint = _weights_hint(student, w, q, k, v)      # asked only on failure: it calls the student again
        expect(lo >= -1e-7 and hi <= 1 + 1e-6,
               cat(cat(label, msg(f"weights range over [{lo:.3g}, {hi:.3g}]: softmax probabilities lie in [0, 1]",
                                  f"权重的取值范围是 [{lo:.3g}, {hi:.3g}]：softmax 概率应在 [0, 1] 内")), hint, sep=SEMI))
        expect(err <= 1e-4, cat(cat(label, msg(f"weights differ from softmax(QK^T / sqrt(dk)) over the keys by up to "
                                               f"{err:.3g}",
                                               f"权重与沿 key 轴的 softmax(QK^T / sqrt(dk)) 最多相差 {err:.3g}")),
                                hint, sep=SEMI))


SCALE_FIT_TOL = 1e-3   # weights softmax(c * QK^T) must give back for c to be stated (float32 rounding: ~1e-6)


def _effective_scale(w, q, k) -> float:
    """Least-squares c such that log w ~ c * (q.k) + row constant."""
    logw = torch.log(w.double().clamp_min(1e-300))
    s = q.double() @ k.double().transpose(-2, -1)
    lw = logw - logw.mean(-1, keepdim=True)
    sc = s - s.mean(-1, keepdim=True)
    return float((lw * sc).sum() / (sc * sc).sum())


def test_scale_experiment_a(student, record_measurement):
    for dk in (8, 16, 32, 64, 128):
        q, k, v = C.qkv(100 + dk, 1, 2, 6, 10, dk, 4)
        _, w = student.sdpa(q, k, v, return_weights=True)
        if torch.isfinite(w).all() and (w >= 0).all():
            record_measurement(f"entropy_dk{dk}", C.entropy(w))
        record_measurement(f"entropy_reference_dk{dk}", C.ref_entropy(q, k))
        record_measurement(f"entropy_unscaled_dk{dk}", C.ref_entropy(q, k, scale=1.0))
        err = max_err(w, C.ref_weights(q, k))
        if err <= 1e-4:
            continue
        hint = _weights_hint(student, w, q, k, v)
        seen = msg(f"at dk={dk} the weights differ from softmax(QK^T / sqrt(dk)) by up to {err:.3g}",
                   f"dk={dk} 时权重与 softmax(QK^T / sqrt(dk)) 最多相差 {err:.3g}")
        is_softmax = bool(torch.isfinite(w).all() and (w > 0).all() and row_sum_error(w) < 1e-4)
        if hint is None and is_softmax:
            c, want = _effective_scale(w, q, k), 1 / math.sqrt(dk)
            # The estimate is stated only when it really differs from the expected scale (rounding
            # alone, e.g. float16 scores, gives the same number and would contradict itself) and when
            # softmax(c * QK^T) gives the student's weights back: a least-squares c exists for any
            # weights (dropout on the scores, a per-row scale), and is no finding unless it fits.
            if abs(c - want) > 0.02 * want and max_err(w, C.ref_weights(q, k, scale=c)) <= SCALE_FIT_TOL:
                hint = msg(f"the scores are scaled by about {c:.4g} instead of 1/sqrt(dk) = {want:.4g}",
                           f"score 大约被乘以 {c:.4g}，而不是 1/sqrt(dk) = {want:.4g}")
        raise Feedback(cat(seen, hint, sep=SEMI))


def test_return_weights_flag(student):
    q, k, v = C.qkv(6, 1, 2, 3, 4, 4, 4)
    for label, kw in ((msg("return_weights not given", "不传 return_weights 时"), {}),
                      (msg("return_weights=False", "return_weights=False 时"), {"pass_flag": True}),
                      (msg("return_weights=True", "return_weights=True 时"), {"return_weights": True})):
        try:
            student.sdpa(q, k, v, strict=True, **kw)
        except Feedback as exc:
            raise Feedback(cat(label, msg(": ", "："), exc.message)) from None
