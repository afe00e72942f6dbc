"""Comparisons that turn a mismatch into feedback saying what was expected and what was seen."""

from __future__ import annotations

import numpy as np

from grader_tests.attention_numpy import cases as C
from grading.proxy import Feedback, expect

__all__ = ["Feedback", "expect", "expect_finite", "expect_close", "max_err", "row_sum_error",
           "diagnose_weights", "diagnose_scores"]


def max_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float64) - b).max()) if a.size else 0.0


def row_sum_error(w: np.ndarray) -> float:
    return float(np.abs(w.astype(np.float64).sum(axis=-1) - 1.0).max()) if w.size else 0.0


def expect_finite(a: np.ndarray, what: str, hint: str = "") -> None:
    bad = ~np.isfinite(a)
    if bad.any():
        n_nan = int(np.isnan(a).sum())
        raise Feedback(f"{what} contains {int(bad.sum())} non-finite values ({n_nan} NaN, "
                       f"{int(bad.sum()) - n_nan} inf)" + (f": {hint}" if hint else ""))


def expect_close(actual: np.ndarray, expected: np.ndarray, what: str, *, tol: float = C.TOL,
                 hint: str = "") -> float:
    """Same shape, finite, and max abs error <= tol; returns the error."""
    expect(actual.shape == expected.shape,
           f"{what} has shape {list(actual.shape)}, expected {list(expected.shape)}")
    expect_finite(actual, what, hint)
    err = max_err(actual, expected)
    if err > tol:
        where = np.unravel_index(int(np.argmax(np.abs(actual - expected))), actual.shape)
        at = "[" + ", ".join(str(int(i)) for i in where) + "]"
        raise Feedback(f"{what} differs from the reference by up to {err:.3g} (allowed {tol:g}), "
                       f"largest at {at}" + (f"; {hint}" if hint else ""))
    return err


def diagnose_scores(scores: np.ndarray, x, wq, wk) -> str:
    """Best guess of what a wrong score matrix is."""
    d_model, d_k = wq.shape
    guesses = (("Q K^T without dividing by sqrt(d_k)", dict(scale=1.0)),
               ("Q K^T divided by d_k instead of sqrt(d_k)", dict(scale=1.0 / d_k)),
               ("Q K^T divided by sqrt(d_model) (the input width) instead of sqrt(d_k)",
                dict(scale=1.0 / np.sqrt(d_model))),
               ("Q K^T divided by sqrt(n) (the number of tokens) instead of sqrt(d_k)",
                dict(scale=1.0 / np.sqrt(x.shape[0]))),
               ("K Q^T: Q and K are swapped (row i must be query i against every key)", dict(swap=True)))
    for label, kw in guesses:
        ref = C.ref_scores(x, wq, wk, **kw)
        if scores.shape == ref.shape and max_err(scores, ref) < 1e-6:
            return f"the scores match {label}"
    return ""


def diagnose_weights(w: np.ndarray, x, wq, wk, mask=None) -> str:
    """Best guess of what a wrong weight matrix is."""
    if not np.isfinite(w).all():
        return "the weights contain NaN/inf: subtract the row maximum before np.exp"
    if (w < -1e-9).any() or (w > 1 + 1e-9).any():
        return "some weights are outside [0, 1]: return the softmax probabilities, not the scores"
    wd = w.astype(np.float64)
    rows, cols = np.abs(wd.sum(axis=-1) - 1).max(), np.abs(wd.sum(axis=-2) - 1).max()
    if w.shape[-2] > 1 and cols < 1e-6 < rows:
        return ("the columns sum to 1 instead of the rows: the softmax runs over axis 0 (the queries); "
                "it must normalise each row over the keys (axis=-1)")
    if rows > 1e-6:
        return ("rows do not sum to 1: was the mask applied after the softmax? Blocked scores must be "
                "set to a very negative number before it" if mask is not None
                else "rows do not sum to 1: the weights are not a softmax over each row")
    if mask is not None:
        if (~mask).any(axis=-1).all() and max_err(w, C.ref_weights(x, wq, wk, ~mask)) < 1e-6:
            return "the mask is inverted: True means visible (the key may be read), False means blocked"
        if max_err(w, C.ref_weights(x, wq, wk)) < 1e-6:
            return "the mask was ignored"
    for label, kw in (("without dividing by sqrt(d_k)", dict(scale=1.0)),
                      ("divided by d_k instead of sqrt(d_k)", dict(scale=1.0 / wq.shape[1])),
                      ("with Q and K swapped", dict(swap=True))):
        if max_err(w, C.ref_weights(x, wq, wk, mask, **kw)) < 1e-6:
            return f"the weights match softmax(Q K^T) {label}"
    return ""
