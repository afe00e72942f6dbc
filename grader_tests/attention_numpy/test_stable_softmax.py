"""softmax(a, axis=-1): non-negative, sums to 1 along `axis`, stable for large inputs (page §04, code)."""

import numpy as np

from grader_tests.attention_numpy import cases as C
from grader_tests.attention_numpy.checks import expect, expect_close, expect_finite


def test_softmax_rows_sum_to_one(student):
    a = C.rng(11).normal(size=(3, 5))
    w = student.softmax(a)
    expect((w >= 0).all(), "softmax(a) has negative entries: exp(...) / sum(exp(...)) is never negative")
    expect_close(w.sum(axis=-1), np.ones(3), "the row sums of softmax(a) (axis=-1 is the default)")
    expect_close(w, C.ref_softmax(a), "softmax(a) of a 3x5 matrix")


def test_softmax_honours_axis(student):
    a = C.rng(12).normal(size=(4, 3))
    w = student.softmax(a, axis=0)
    expect_close(w.sum(axis=0), np.ones(3), "the column sums of softmax(a, axis=0)",
                 hint="normalise along the axis argument, not always the last one")
    expect_close(w, C.ref_softmax(a, axis=0), "softmax(a, axis=0)")
    b = C.rng(13).normal(size=(2, 3, 4))
    expect_close(student.softmax(b), C.ref_softmax(b), "softmax(a) of a 2x3x4 array (last axis)",
                 hint="use keepdims=True so the max and the sum broadcast against a")


def test_softmax_large_inputs_are_stable(student):
    a = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0], [0.0, 800.0, -800.0]])
    w = student.softmax(a)
    expect_finite(w, "softmax of scores near +-1000",
                  "np.exp overflows above ~709; subtract the row maximum (keepdims=True) first")
    expect_close(w, C.ref_softmax(a), "softmax of scores near +-1000",
                 hint="subtracting the row maximum does not change the result but keeps np.exp finite")


def test_attention_is_stable_for_large_scores(student):
    x, wq, wk, wv = C.weights_for(5, 6, 4, 4, seed=14)
    x = x * 60.0                                   # scores in the thousands
    context, weights, _ = student.attention(x, wq, wk, wv)
    expect_finite(weights, "weights when the scores are in the thousands",
                  "scaled_dot_attention must use the stable softmax too")
    ref_context, ref_weights, _ = C.ref_attention(x, wq, wk, wv)
    expect_close(weights, ref_weights, "weights when the scores are in the thousands")
    expect_close(context, ref_context, "context when the scores are in the thousands", tol=1e-5)
