"""Boolean masks, True = visible: the causal mask hides future tokens, blocked weights are 0 and
the visible ones renormalise (page §05, the demo's causal mask)."""

import numpy as np

from grader_tests.attention_numpy import cases as C
from grader_tests.attention_numpy.checks import (
    cat,
    diagnose_weights,
    expect,
    expect_close,
    msg,
    row_sum_error,
)


def test_causal_mask_hides_future_tokens(student):
    n = 6
    mask = C.causal_mask(n)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=61)
    _, w, _ = student.attention(x, wq, wk, wv, mask)
    why = diagnose_weights(w, x, wq, wk, mask)
    leak = float(np.abs(w[np.triu(np.ones((n, n), dtype=bool), k=1)]).max())
    expect(leak <= C.ZERO_TOL, cat(msg(f"with the causal mask, token i still attends to future tokens j > i "
                                       f"(weight up to {leak:.3g})",
                                       f"使用因果 mask 时，token i 仍然关注未来的 token j > i（权重最大 {leak:.3g}）"),
                                   why, sep=": "))
    expect(row_sum_error(w) <= C.ROW_SUM_TOL, cat(msg("with the causal mask the rows no longer sum to 1",
                                                      "使用因果 mask 后每行之和不再为 1"), why, sep=": "))
    expect(abs(float(w[0, 0]) - 1.0) <= C.TOL,
           msg(f"the first token can only see itself, so its weight on itself must be 1, got {float(w[0, 0]):.4g}",
               f"第一个 token 只能看到自己，它对自己的权重应为 1，实际为 {float(w[0, 0]):.4g}"))


def test_mask_true_means_visible(student):
    n = 7
    mask = C.random_mask(n, 62)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=63)
    _, w, _ = student.attention(x, wq, wk, wv, mask)
    blocked, visible = float(np.abs(w[~mask]).max()), float(w[mask].min())
    expect(blocked <= C.ZERO_TOL and visible > 0, cat(
        msg("mask is a bool matrix where True means visible: blocked (False) positions got weight up to "
            f"{blocked:.3g}, visible ones as little as {visible:.3g}",
            f"mask 是布尔矩阵，True 表示可见：屏蔽（False）位置的权重最大为 {blocked:.3g}，可见位置最小为 {visible:.3g}"),
        diagnose_weights(w, x, wq, wk, mask), sep="; "))


def test_masked_weights_renormalise(student):
    n = 5
    mask = C.random_mask(n, 64)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=65)
    context, w, _ = student.attention(x, wq, wk, wv, mask)
    ref_context, ref_w, _ = C.ref_attention(x, wq, wk, wv, mask)
    expect_close(w, ref_w, msg("masked weights (softmax over the visible keys only)",
                               "mask 后的权重（只对可见的 key 做 softmax）"),
                 hint=diagnose_weights(w, x, wq, wk, mask))
    expect_close(context, ref_context, msg("masked context", "mask 后的 context"))


def test_padding_keys_get_zero_weight(student):
    n = 6
    mask = C.padding_mask(n, 2)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=66)
    _, w, _ = student.attention(x, wq, wk, wv, mask)
    leak = float(np.abs(w[:, -2:]).max())
    expect(leak <= C.ZERO_TOL, cat(msg(f"the last two keys are padding (mask False in every row) but get weight "
                                       f"up to {leak:.3g}",
                                       f"最后两个 key 是 padding（每行 mask 都为 False），却得到最大 {leak:.3g} 的权重"),
                                   diagnose_weights(w, x, wq, wk, mask), sep=": "))
    expect_close(w, C.ref_weights(x, wq, wk, mask), msg("weights with two padding keys", "有两个 padding key 时的权重"))


def test_course_page_demo(student, record_measurement):
    x, wq, wk, wv, mask = C.course_page_demo()
    context, w, _ = student.attention(x, wq, wk, wv, mask)
    ref_context, ref_w, _ = C.ref_attention(x, wq, wk, wv, mask)
    record_measurement("row_sum_error", row_sum_error(w))
    expect_close(w, ref_w, msg("the weights of the course page demo (4 tokens, causal mask, seed 7)",
                               "课程页面演示（4 个 token、因果 mask、seed 7）的权重"),
                 hint=diagnose_weights(w, x, wq, wk, mask))
    expect_close(context, ref_context, msg("the context of the course page demo", "课程页面演示的 context"))
