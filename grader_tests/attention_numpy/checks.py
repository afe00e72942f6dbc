"""Comparisons that turn a mismatch into feedback saying what was expected and what was seen,
in English and Chinese (grading.i18n)."""

from __future__ import annotations

import numpy as np

from grader_tests.attention_numpy import cases as C
from grading.i18n import Msg, Text, as_msg, cat, msg
from grading.proxy import Feedback, expect

__all__ = ["Feedback", "expect", "msg", "cat", "expect_finite", "expect_close", "max_err", "row_sum_error",
           "diagnose_weights", "diagnose_scores"]


def max_err(a: np.ndarray, b: np.ndarray) -> float:
    """Largest absolute difference; NaN counts as infinitely far. Shapes must already agree."""
    if a.shape != b.shape:
        return float("inf")
    if not a.size:
        return 0.0
    return float(np.nan_to_num(np.abs(a.astype(np.float64) - b), nan=np.inf).max())


def row_sum_error(w: np.ndarray) -> float:
    return float(np.abs(w.astype(np.float64).sum(axis=-1) - 1.0).max()) if w.size else 0.0


def expect_finite(a: np.ndarray, what: Text, hint: Msg | None = None) -> None:
    bad = ~np.isfinite(a)
    if bad.any():
        w = as_msg(what)
        n_bad, n_nan = int(bad.sum()), int(np.isnan(a).sum())
        raise Feedback(cat(msg(f"{w['en']} contains {n_bad} non-finite values ({n_nan} NaN, {n_bad - n_nan} inf)",
                               f"{w['zh']} 含有 {n_bad} 个非有限值（{n_nan} 个 NaN，{n_bad - n_nan} 个 inf）"),
                           hint, sep=": "))


def expect_close(actual: np.ndarray, expected: np.ndarray, what: Text, *, tol: float = C.TOL,
                 hint: Msg | None = None) -> float:
    """Same shape, finite, and max abs error <= tol; returns the error."""
    w = as_msg(what)
    expect(actual.shape == expected.shape,
           msg(f"{w['en']} has shape {list(actual.shape)}, expected {list(expected.shape)}",
               f"{w['zh']} 的形状为 {list(actual.shape)}，应为 {list(expected.shape)}"))
    expect_finite(actual, what, hint)
    err = max_err(actual, expected)
    if err > tol:
        where = np.unravel_index(int(np.argmax(np.abs(actual - expected))), actual.shape)
        at = "[" + ", ".join(str(int(i)) for i in where) + "]"
        raise Feedback(cat(msg(f"{w['en']} differs from the reference by up to {err:.3g} (allowed {tol:g}), "
                               f"largest at {at}",
                               f"{w['zh']} 与参考实现最多相差 {err:.3g}（允许 {tol:g}），最大处在 {at}"),
                           hint, sep="; "))
    return err


def diagnose_scores(scores: np.ndarray, x, wq, wk) -> Msg | None:
    """Best guess of what a wrong score matrix is."""
    d_model, d_k = wq.shape
    guesses = (
        (msg("Q K^T without dividing by sqrt(d_k)", "没有除以 sqrt(d_k) 的 Q K^T"), dict(scale=1.0)),
        (msg("Q K^T divided by d_k instead of sqrt(d_k)", "除以 d_k（而不是 sqrt(d_k)）的 Q K^T"),
         dict(scale=1.0 / d_k)),
        (msg("Q K^T divided by sqrt(d_model) (the input width) instead of sqrt(d_k)",
             "除以 sqrt(d_model)（输入宽度）而不是 sqrt(d_k) 的 Q K^T"), dict(scale=1.0 / np.sqrt(d_model))),
        (msg("Q K^T divided by sqrt(n) (the number of tokens) instead of sqrt(d_k)",
             "除以 sqrt(n)（token 数）而不是 sqrt(d_k) 的 Q K^T"), dict(scale=1.0 / np.sqrt(x.shape[0]))),
        (msg("K Q^T: Q and K are swapped (row i must be query i against every key)",
             "K Q^T：Q 与 K 颠倒了（第 i 行应是 query i 与所有 key 的点积）"), dict(swap=True)),
    )
    for label, kw in guesses:
        if max_err(scores, C.ref_scores(x, wq, wk, **kw)) < 1e-6:
            return cat(msg("the scores match ", "分数等于"), label)
    return None


def diagnose_weights(w: np.ndarray, x, wq, wk, mask=None) -> Msg | None:
    """Best guess of what a wrong weight matrix is."""
    if not np.isfinite(w).all():
        return msg("the weights contain NaN/inf: subtract the row maximum before np.exp",
                   "权重含有 NaN/inf：在 np.exp 之前先减去每行最大值")
    if (w < -1e-9).any() or (w > 1 + 1e-9).any():
        return msg("some weights are outside [0, 1]: return the softmax probabilities, not the scores",
                   "有权重不在 [0, 1] 内：应返回 softmax 概率，而不是分数")
    wd = w.astype(np.float64)
    rows, cols = np.abs(wd.sum(axis=-1) - 1).max(), np.abs(wd.sum(axis=-2) - 1).max()
    if w.shape[-2] > 1 and cols < 1e-6 < rows:
        return msg("the columns sum to 1 instead of the rows: the softmax runs over axis 0 (the queries); "
                   "it must normalise each row over the keys (axis=-1)",
                   "每列和为 1 而不是每行：softmax 沿 axis 0（query）进行了；应对每行沿 key 归一化（axis=-1）")
    if rows > 1e-6:
        if mask is not None:
            return msg("rows do not sum to 1: was the mask applied after the softmax? Blocked scores must be "
                       "set to a very negative number before it",
                       "每行和不为 1：mask 是否在 softmax 之后才使用？应在 softmax 之前把屏蔽位置的分数设为极小的数")
        return msg("rows do not sum to 1: the weights are not a softmax over each row",
                   "每行和不为 1：权重不是对每行做的 softmax")
    if mask is not None:
        if (~mask).any(axis=-1).all() and max_err(w, C.ref_weights(x, wq, wk, ~mask)) < 1e-6:
            return msg("the mask is inverted: True means visible (the key may be read), False means blocked",
                       "mask 用反了：True 表示可见（可以读取该 key），False 表示屏蔽")
        if max_err(w, C.ref_weights(x, wq, wk)) < 1e-6:
            return msg("the mask was ignored", "mask 被忽略了")
    for label, kw in ((msg("without dividing by sqrt(d_k)", "没有除以 sqrt(d_k)"), dict(scale=1.0)),
                      (msg("divided by d_k instead of sqrt(d_k)", "除以 d_k 而不是 sqrt(d_k)"),
                       dict(scale=1.0 / wq.shape[1])),
                      (msg("with Q and K swapped", "Q 与 K 颠倒"), dict(swap=True))):
        if max_err(w, C.ref_weights(x, wq, wk, mask, **kw)) < 1e-6:
            return cat(msg("the weights match softmax(Q K^T) ", "权重等于 softmax(Q K^T)，"), label)
    return None
