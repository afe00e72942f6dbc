"""Boolean masks, True = visible: the causal mask hides future tokens, blocked weights are 0 and
the visible ones renormalise (page §05, the demo's causal mask)."""

import numpy as np

from grader_tests.attention_numpy import cases as C
from grader_tests.attention_numpy.checks import diagnose_weights, expect, expect_close, row_sum_error


def test_causal_mask_hides_future_tokens(student):
    n = 6
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=61)
    _, w, _ = student.attention(x, wq, wk, wv, C.causal_mask(n))
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    leak = float(np.abs(w[future]).max())
    expect(leak <= C.ZERO_TOL, f"with the causal mask, token i still attends to future tokens j > i "
                               f"(weight up to {leak:.3g}): {diagnose_weights(w, x, wq, wk, C.causal_mask(n))}")
    expect(row_sum_error(w) <= C.ROW_SUM_TOL, "with the causal mask the rows no longer sum to 1: "
           + diagnose_weights(w, x, wq, wk, C.causal_mask(n)))
    expect(abs(float(w[0, 0]) - 1.0) <= C.TOL, f"the first token can only see itself, so its weight on "
                                               f"itself must be 1, got {float(w[0, 0]):.4g}")


def test_mask_true_means_visible(student):
    n = 7
    mask = C.random_mask(n, 62)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=63)
    _, w, _ = student.attention(x, wq, wk, wv, mask)
    blocked, visible = float(np.abs(w[~mask]).max()), float(w[mask].min())
    expect(blocked <= C.ZERO_TOL and visible > 0, "mask is a bool matrix where True means visible: blocked "
           f"(False) positions got weight up to {blocked:.3g}, visible ones as little as {visible:.3g}; "
           + diagnose_weights(w, x, wq, wk, mask))


def test_masked_weights_renormalise(student):
    n = 5
    mask = C.random_mask(n, 64)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=65)
    context, w, _ = student.attention(x, wq, wk, wv, mask)
    ref_context, ref_w, _ = C.ref_attention(x, wq, wk, wv, mask)
    expect_close(w, ref_w, "masked weights (softmax over the visible keys only)",
                 hint=diagnose_weights(w, x, wq, wk, mask))
    expect_close(context, ref_context, "masked context")


def test_padding_keys_get_zero_weight(student):
    n = 6
    mask = C.padding_mask(n, 2)
    x, wq, wk, wv = C.weights_for(n, 6, 4, 4, seed=66)
    _, w, _ = student.attention(x, wq, wk, wv, mask)
    expect(float(np.abs(w[:, -2:]).max()) <= C.ZERO_TOL,
           f"the last two keys are padding (mask False in every row) but get weight up to "
           f"{float(np.abs(w[:, -2:]).max()):.3g}: " + diagnose_weights(w, x, wq, wk, mask))
    expect_close(w, C.ref_weights(x, wq, wk, mask), "weights with two padding keys")


def test_course_page_demo(student, record_measurement):
    x, wq, wk, wv, mask = C.course_page_demo()
    context, w, _ = student.attention(x, wq, wk, wv, mask)
    ref_context, ref_w, _ = C.ref_attention(x, wq, wk, wv, mask)
    record_measurement("row_sum_error", row_sum_error(w))
    expect_close(w, ref_w, "the weights of the course page demo (4 tokens, causal mask, seed 7)",
                 hint=diagnose_weights(w, x, wq, wk, mask))
    expect_close(context, ref_context, "the context of the course page demo")
