"""Comparison helpers that turn a mismatch into actionable feedback (expected vs seen)."""

from __future__ import annotations

import torch
from torch import Tensor

from grading.proxy import Feedback, expect

__all__ = ["Feedback", "expect", "expect_tensor", "expect_shape", "expect_finite", "expect_close",
           "max_err", "row_sum_error", "diagnose_weights", "fmt_matrix"]


def expect_tensor(t, what: str) -> Tensor:
    expect(isinstance(t, Tensor), f"{what} should be a tensor, got {type(t).__name__}")
    return t


def expect_shape(t: Tensor, shape, what: str, hint: str = "") -> None:
    expect_tensor(t, what)
    shape = list(shape)
    expect(list(t.shape) == shape,
           f"{what} has shape {list(t.shape)}, expected {shape}" + (f" ({hint})" if hint else ""))


def expect_finite(t: Tensor, what: str, hint: str = "") -> None:
    bad = ~torch.isfinite(t)
    if bool(bad.any()):
        n_nan = int(torch.isnan(t).sum())
        raise Feedback(f"{what} contains {int(bad.sum())} non-finite values ({n_nan} NaN, "
                       f"{int(bad.sum()) - n_nan} inf)" + (f": {hint}" if hint else ""))


def max_err(a: Tensor, b: Tensor) -> float:
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


def _where(a: Tensor, b: Tensor, names: str) -> str:
    d = (a.double() - b.double()).abs()
    idx = torch.nonzero(d == d.max())[0].tolist()
    return "[" + ", ".join(f"{n}={i}" for n, i in zip(names.split(","), idx, strict=False)) + "]"


def expect_close(actual: Tensor, expected: Tensor, tol: float, what: str, *,
                 names: str = "b,h,q,d", hint: str = "") -> float:
    """Shape, finiteness and max abs error <= tol.  Returns the error."""
    expect_shape(actual, expected.shape, what)
    expect_finite(actual, what)
    err = max_err(actual, expected)
    if not err <= tol:      # fails closed on NaN
        msg = (f"{what} differs from the reference by up to {err:.3g} (allowed {tol:g}), "
               f"largest at {_where(actual, expected, names)}")
        raise Feedback(msg + (f"; {hint}" if hint else ""))
    return err


def row_sum_error(w: Tensor) -> float:
    return float((w.double().sum(-1) - 1.0).abs().max())


def diagnose_weights(w: Tensor, q: Tensor, k: Tensor, mask: Tensor | None = None) -> str:
    """Best guess of what a wrong weight matrix is (for the feedback message)."""
    from grader_tests.attention import cases as C

    if not torch.isfinite(w).all():
        return "the weights contain NaN/inf"
    if bool((w < -1e-6).any()) or bool((w > 1 + 1e-6).any()):
        return "some weights are outside [0, 1]: return the softmax probabilities, not the raw scores"
    wd = w.double()
    if w.shape[-2] > 1 and float((wd.sum(-2) - 1).abs().max()) < 1e-4 \
            and float((wd.sum(-1) - 1).abs().max()) > 1e-4:
        return "the columns sum to 1 instead of the rows: the softmax runs over the query axis " \
               "(dim=-2); it must normalise over the keys (dim=-1)"
    if float((wd.sum(-1) - 1).abs().max()) > 1e-4:
        return ("rows do not sum to 1: was the mask applied after the softmax?" if mask is not None
                else "rows do not sum to 1 (dropout or a normalisation that is not a softmax over keys?)")
    dk = q.shape[-1]
    for label, scale in (("without dividing by sqrt(dk)", 1.0), ("divided by dk instead of sqrt(dk)", 1.0 / dk)):
        if max_err(w, C.ref_weights(q, k, mask, scale=scale)) < 1e-4:
            return f"the weights match softmax(QK^T) {label}"
    if q.shape[-2] == k.shape[-2] and max_err(w, C.ref_weights(k, q, None if mask is None
                                                               else mask.transpose(-2, -1))) < 1e-4:
        return "the weights match softmax(K Q^T): Q and K are swapped"
    return ""


def fmt_matrix(m: Tensor) -> str:
    return "[" + ", ".join("[" + ", ".join(f"{float(x):.4f}" for x in row) + "]" for row in m) + "]"
