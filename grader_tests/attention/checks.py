"""Comparison helpers that turn a mismatch into feedback: what was seen against what was expected,
in English and Chinese. Every helper validates the student's tensor before computing with it."""

from __future__ import annotations

import torch
from torch import Tensor

from grading.i18n import COLON, SEMI, Msg, Text, as_msg, cat, msg
from grading.proxy import Feedback, expect

__all__ = ["Feedback", "expect", "msg", "cat", "SEMI", "COLON", "expect_tensor", "expect_shape", "expect_finite",
           "expect_close", "identical", "abs_diff", "max_err", "apart", "non_finite", "row_sum_error", "fmt_matrix", "shape_text", "dtype_name"]


def shape_text(shape) -> str:
    return "[" + ",".join(str(int(s)) for s in shape) + "]"


def dtype_name(t: Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def expect_tensor(t, what: Text) -> Tensor:
    w = as_msg(what)
    expect(isinstance(t, Tensor), msg(f"{w['en']} should be a tensor, got {type(t).__name__}",
                                      f"{w['zh']} 应为 tensor，实际为 {type(t).__name__}"))
    return t


def expect_shape(t: Tensor, shape, what: Text, hint: Msg | None = None) -> None:
    expect_tensor(t, what)
    w = as_msg(what)
    expect(list(t.shape) == list(shape),
           cat(msg(f"{w['en']}: shape {shape_text(t.shape)}, expected {shape_text(shape)}",
                   f"{w['zh']} 的 shape 为 {shape_text(t.shape)}，应为 {shape_text(shape)}"), hint, sep=COLON))


def expect_finite(t: Tensor, what: Text, hint: Msg | None = None) -> None:
    bad = ~torch.isfinite(t)
    if bool(bad.any()):
        w = as_msg(what)
        n_nan = int(torch.isnan(t).sum())
        n_inf = int(bad.sum()) - n_nan
        raise Feedback(cat(msg(f"{w['en']}: {int(bad.sum())} non-finite values ({n_nan} NaN, {n_inf} inf)",
                               f"{w['zh']}含有 {int(bad.sum())} 个非有限值（{n_nan} 个 NaN，{n_inf} 个 inf）"),
                           hint, sep=COLON))


def non_finite(t: Tensor) -> Msg | None:
    """The non-finite values ``t`` holds, as said ("3 non-finite values (3 NaN, 0 inf)"); None when it has none."""
    bad = ~torch.isfinite(t)
    if not bool(bad.any()):
        return None
    n_nan = int(torch.isnan(t).sum())
    return msg(f"{int(bad.sum())} non-finite values ({n_nan} NaN, {int(bad.sum()) - n_nan} inf)",
               f"{int(bad.sum())} 个非有限值（{n_nan} 个 NaN，{int(bad.sum()) - n_nan} 个 inf）")


def apart(a: Tensor, b: Tensor, first: Msg, second: Msg) -> Msg:
    """How far two outputs compared with each other are, said after "differs" (en) and in place of "不同" (zh):
    " by X" when both are finite; else how many non-finite values each holds, ``first`` and ``second`` naming them
    (round 47: max_err counts NaN as infinitely far, so an output holding NaN was said to differ "by inf", a number
    the code never gave)."""
    if non_finite(a) is None and non_finite(b) is None:
        err = max_err(a, b)
        return msg(f" by {err:.3g}", f"相差 {err:.3g}")
    na, nb = int((~torch.isfinite(a)).sum()), int((~torch.isfinite(b)).sum())
    return msg(f" ({first['en']} holds {na} non-finite values, {second['en']} {nb})",
               f"不同（{first['zh']}含有 {na} 个非有限值，{second['zh']} {nb} 个）")


def abs_diff(a: Tensor, b: Tensor) -> Tensor:
    """|a - b| in float64, element by element, where two equal infinities are 0 apart and two
    different ones (or an infinity and a number) inf apart. IEEE arithmetic makes -inf - -inf NaN,
    which would call a blocked score of -inf in both tensors a mismatch. NaN in an input stays NaN:
    each caller rules on it."""
    a64, b64 = a.double(), b.double()
    d = (a64 - b64).abs()
    return torch.where(torch.isinf(a64) & (a64 == b64), torch.zeros_like(d), d)


def max_err(a: Tensor, b: Tensor) -> float:
    """Largest absolute difference; NaN counts as infinitely far, equal infinities as equal.
    Shapes must already agree."""
    if a.shape != b.shape:
        return float("inf")
    if not a.numel():
        return 0.0
    return float(torch.nan_to_num(abs_diff(a, b), nan=float("inf"), posinf=float("inf")).max())


def _where(a: Tensor, b: Tensor, names: str) -> str:
    d = torch.nan_to_num(abs_diff(a, b), nan=float("inf"), posinf=float("inf"))
    idx = torch.nonzero(d == d.max())[0].tolist()
    return "[" + ", ".join(f"{n}={i}" for n, i in zip(names.split(","), idx, strict=False)) + "]"


def expect_close(actual: Tensor, expected: Tensor, tol: float, what: Text, *,
                 names: str = "b,h,q,d", hint: Msg | None = None) -> float:
    """Shape, finiteness and max abs error <= tol.  Returns the error."""
    expect_shape(actual, expected.shape, what)
    expect_finite(actual, what, hint)
    err = max_err(actual, expected)
    if not err <= tol:      # fails closed on NaN
        w = as_msg(what)
        where = _where(actual, expected, names)
        raise Feedback(cat(msg(f"{w['en']}: up to {err:.3g} away from the reference (allowed {tol:g}), "
                               f"largest at {where}",
                               f"{w['zh']}与参考实现最多相差 {err:.3g}（允许 {tol:g}），最大处在 {where}"),
                           hint, sep=SEMI))
    return err


def identical(a: Tensor, b: Tensor) -> bool:
    """Bit-for-bit the same values, NaN included (NaN from a bug is deterministic too)."""
    return a.shape == b.shape and bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())


def row_sum_error(w: Tensor) -> float:
    d = (w.double().sum(-1) - 1.0).abs()
    return float(torch.nan_to_num(d, nan=float("inf"), posinf=float("inf")).max()) if d.numel() else 0.0


def fmt_matrix(m: Tensor) -> str:
    # NaN as the feedback writes it elsewhere ("3 NaN"), in both languages (Python's "nan" reads as an English word)
    return "[" + ", ".join("[" + ", ".join(f"{float(x):.4f}".replace("nan", "NaN") for x in row) + "]"
                           for row in m) + "]"
