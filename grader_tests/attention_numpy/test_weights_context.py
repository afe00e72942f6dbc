"""Weights A = softmax(S) are row-stochastic; Z = A V; parity with a float64 reference (page §04-05)."""

from grader_tests.attention_numpy import cases as C
from grader_tests.attention_numpy import static
from grader_tests.attention_numpy.checks import (
    cat,
    diagnose_weights,
    expect,
    expect_close,
    max_err,
    msg,
    row_sum_error,
)


def test_weights_are_row_stochastic(student):
    for seed, mask in ((31, None), (32, C.random_mask(6, 33))):
        x, wq, wk, wv = C.weights_for(6, 6, 4, 4, seed=seed)
        _, w, _ = student.attention(x, wq, wk, wv, mask)
        what = msg("weights", "权重") if mask is None else msg("weights with a random mask", "随机 mask 下的权重")
        why = diagnose_weights(w, x, wq, wk, mask)
        expect((w >= -1e-12).all(), cat(msg(f"{what['en']} have negative entries", f"{what['zh']}有负数"),
                                        why, sep=": "))
        err = row_sum_error(w)
        expect(err <= C.ROW_SUM_TOL,
               cat(msg(f"the rows of the {what['en']} sum to 1 only within {err:.3g} (allowed {C.ROW_SUM_TOL:g})",
                       f"{what['zh']}每行之和与 1 相差 {err:.3g}（允许 {C.ROW_SUM_TOL:g}）"), why, sep=": "))


def test_weights_are_softmax_over_keys(student):
    x, wq, wk, wv = C.weights_for(5, 6, 4, 3, seed=34)
    _, w, _ = student.attention(x, wq, wk, wv)
    expect_close(w, C.ref_weights(x, wq, wk), msg("weights = softmax(scores) over each row",
                                                  "weights = 对每行做 softmax(scores)"),
                 hint=diagnose_weights(w, x, wq, wk))


def test_context_is_weighted_sum_of_values(student):
    x, wq, wk, wv = C.weights_for(5, 6, 4, 3, seed=35)       # d_v = 3 != d_k = 4
    context, _, _ = student.attention(x, wq, wk, wv)
    ref_context, ref_weights, _ = C.ref_attention(x, wq, wk, wv)
    hint = None
    if max_err(context, ref_weights.T @ (x @ wv)) < 1e-6:
        hint = msg("the context uses the transposed weights: Z = A V, row i mixes the values with row i of A",
                   "context 用了转置的权重：Z = A V，第 i 行用 A 的第 i 行对 value 加权")
    expect_close(context, ref_context, "context = weights @ (X Wv)", hint=hint)


def test_parity_with_reference(student, record_measurement):
    worst = 0.0
    for seed, (n, d_model, d_k, d_v) in enumerate([(1, 3, 2, 2), (4, 6, 4, 4), (9, 8, 5, 7), (16, 16, 8, 8)]):
        x, wq, wk, wv = C.weights_for(n, d_model, d_k, d_v, seed=40 + seed)
        for mask in (None, C.causal_mask(n), C.random_mask(n, 50 + seed)):
            context, w, _ = student.attention(x, wq, wk, wv, mask)
            ref_context, ref_w, _ = C.ref_attention(x, wq, wk, wv, mask)
            case = f"n={n}, d_k={d_k}, d_v={d_v}, {'no' if mask is None else 'a'} mask"
            expect_close(w, ref_w, msg(f"weights ({case})", f"权重（{case}）"))
            worst = max(worst, expect_close(context, ref_context, f"context ({case})"))
    record_measurement("max_abs_error", worst)


def test_written_with_numpy(student, student_source):
    # The pass rests on the trusted review of the source: the jail's counters below live in the student's
    # process, which can rewrite them, and see only the names they wrap, so they only count against it.
    uses = static.ready_made_uses(student_source)[:3]
    expect(not uses, msg("attention.py uses PyTorch's ready-made softmax or attention (" + "; ".join(uses) + "): this "
                         "lab is written by hand in NumPy. A comparison with PyTorch belongs under "
                         "if __name__ == \"__main__\":, where it is not counted",
                         "attention.py 使用了 PyTorch 现成的 softmax 或 attention（" +
                         "；".join(static.finding_zh(u) for u in uses) + "）：本实验要求用 NumPy 手写。与 PyTorch 的"
                         "对比请放到 if __name__ == \"__main__\": 之下，那里不计入"))
    hidden = static.hidden_name_uses(student_source)[:3]
    expect(not hidden, msg("attention.py reaches functions through names computed or hidden at run time (" +
                           "; ".join(hidden) + "), which the check for PyTorch's ready-made softmax cannot follow: "
                           "write the names out (np.exp, np.max) instead",
                           "attention.py 在运行时计算或隐藏了名字（" + "；".join(static.finding_zh(h) for h in hidden) +
                           "），检查是否使用 PyTorch 现成 softmax 时无法跟踪：请直接写出名字（np.exp、np.max）"))
    x, wq, wk, wv = C.weights_for(4, 6, 4, 4, seed=36)
    student.attention(x, wq, wk, wv, C.causal_mask(4))
    student.softmax(x)
    used = {k: n for k, n in (student.stats().get("forbid") or {}).items() if isinstance(n, int) and n > 0}
    calls = ", ".join(f"{k} ({n}x)" for k, n in sorted(used.items()))
    expect(not used, msg(f"at run time attention.py called {calls}: this lab is written by hand in NumPy",
                         f"attention.py 运行时调用了 {calls}：本实验要求用 NumPy 手写"))
