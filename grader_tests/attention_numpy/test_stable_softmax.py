"""softmax(a, axis=-1): non-negative, sums to 1 along `axis`, stable for large inputs (page §04, code)."""

import numpy as np

from grader_tests.attention_numpy import cases as C
from grader_tests.attention_numpy.checks import expect, expect_close, expect_finite, msg

STABLE = msg("subtracting the row maximum (keepdims=True) does not change the result but keeps np.exp finite",
             "先减去每行最大值（keepdims=True）不改变结果，但能让 np.exp 保持有限")


def test_softmax_rows_sum_to_one(student):
    a = C.rng(11).normal(size=(3, 5))
    w = student.softmax(a)
    expect((w >= 0).all(), msg("softmax(a) has negative entries: exp(...) / sum(exp(...)) is never negative",
                               "softmax(a) 有负数：exp(...) / sum(exp(...)) 不可能为负"))
    expect_close(w.sum(axis=-1), np.ones(3), msg("the row sums of softmax(a) (axis=-1 is the default)",
                                                 "softmax(a) 的每行之和（默认 axis=-1）"))
    expect_close(w, C.ref_softmax(a), msg("softmax(a) of a 3x5 matrix", "3x5 矩阵的 softmax(a)"))


def test_softmax_honours_axis(student):
    a = C.rng(12).normal(size=(4, 3))
    w = student.softmax(a, axis=0)
    expect_close(w.sum(axis=0), np.ones(3), msg("the column sums of softmax(a, axis=0)", "softmax(a, axis=0) 的每列之和"),
                 hint=msg("normalise along the axis argument, not always the last one",
                          "沿参数 axis 归一化，而不是总沿最后一维"))
    expect_close(w, C.ref_softmax(a, axis=0), "softmax(a, axis=0)")
    b = C.rng(13).normal(size=(2, 3, 4))
    expect_close(student.softmax(b), C.ref_softmax(b),
                 msg("softmax(a) of a 2x3x4 array (last axis)", "2x3x4 数组的 softmax(a)（最后一维）"),
                 hint=msg("use keepdims=True so the max and the sum broadcast against a",
                          "使用 keepdims=True，让最大值与求和能与 a 广播"))


def test_softmax_large_inputs_are_stable(student):
    a = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0], [0.0, 800.0, -800.0]])
    w = student.softmax(a)
    what = msg("softmax of scores near +-1000", "分数在 ±1000 附近时的 softmax")
    expect_finite(w, what, msg("np.exp overflows above ~709; subtract the row maximum (keepdims=True) first",
                               "np.exp 在约 709 以上会溢出；先减去每行最大值（keepdims=True）"))
    expect_close(w, C.ref_softmax(a), what, hint=STABLE)


def test_attention_is_stable_for_large_scores(student):
    x, wq, wk, wv = C.weights_for(5, 6, 4, 4, seed=14)
    x = x * 60.0                                   # scores in the thousands
    context, weights, _ = student.attention(x, wq, wk, wv)
    expect_finite(weights, msg("weights when the scores are in the thousands", "分数达到上千时的权重"),
                  msg("scaled_dot_attention must use the stable softmax too",
                      "scaled_dot_attention 也必须使用数值稳定的 softmax"))
    ref_context, ref_weights, _ = C.ref_attention(x, wq, wk, wv)
    expect_close(weights, ref_weights, msg("weights when the scores are in the thousands", "分数达到上千时的权重"))
    expect_close(context, ref_context, msg("context when the scores are in the thousands",
                                           "分数达到上千时的 context"), tol=1e-5)
