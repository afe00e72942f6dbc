"""Heads folded into the batch in one order and unfolded in the other, named from the numbers (round 39).

A kernel that folds [B, H, ...] into [B*H, ...] (``view(B * H, ...)``, ``rearrange('b h ... -> (b h) ...')``) to run
3-D products, and unfolds its result in the other order (``view(H, B, ...).transpose(0, 1)``, ``'(h b) ... ->
b h ...'``), returns right blocks in the wrong places: block (b, h) holds the right result of another (sample,
head). ``diagnose.results_exchanged`` saw that some block moved and said "e.g. heads folded into the batch in one
order and unfolded in the other": a guess. Here the two exact permutations are compared with the student's numbers,
and one is named only when it is the student's tensor, every block of it, with B != H (where B == H both are the
plain exchange of the two axes, which a transpose(0, 1) makes too) and B, H > 1 (else nothing moves).
"""

from __future__ import annotations

import torch
from torch import Tensor

from grading.i18n import Msg, msg

MATCH_TOL = 1e-4        # as diagnose.MATCH_TOL: the student's float32 rounding and more


def _close(a: Tensor, b: Tensor) -> bool:
    if a.shape != b.shape or not bool(torch.isfinite(a).all()) or not bool(torch.isfinite(b).all()):
        return False
    return bool((a.double() - b.double()).abs().max() < MATCH_TOL)


def fold_order(got: Tensor, right: Tensor) -> str | None:
    """``"bh_hb"`` when ``got`` ([B, H, ...]) is ``right`` folded as (b h), row b*H + h, and unfolded as (h b),
    row h*B + b; ``"hb_bh"`` for the other way round; None otherwise (or where B == H, B < 2 or H < 2)."""
    if got.shape != right.shape or got.dim() < 3:
        return None
    B, H, *rest = right.shape
    if B < 2 or H < 2 or B == H or _close(got, right):
        return None
    return next((order for order in ("bh_hb", "hb_bh") if _close(got, moved(right.double(), order))), None)


def moved(right: Tensor, order: str) -> Tensor:
    """``right`` ([B, H, ...]) folded and unfolded in the two orders ``order`` names: ``"bh_hb"``, folded as
    (b h) and unfolded as (h b); ``"hb_bh"``, the other way round."""
    B, H, *rest = right.shape
    if order == "bh_hb":
        return right.reshape(B * H, *rest).reshape(H, B, *rest).transpose(0, 1)
    return right.transpose(0, 1).reshape(B * H, *rest).reshape(B, H, *rest)


FOLDS: dict[str, Msg] = {
    "bh_hb": msg("each (sample, head) block of the result is the right result of another one, exactly as when the "
                 "heads are folded into the batch sample by sample, row b*H + h of [B*H, ...] (view(B * H, ...), "
                 "rearrange 'b h ... -> (b h) ...'), and unfolded head by head, row h*B + b (view(H, B, ...)"
                 ".transpose(0, 1), rearrange '(h b) ... -> b h ...'): the unfold must read the rows in the order the "
                 "fold wrote them, view(B, H, ...) or '(b h) ... -> b h ...'",
                 "结果中每个（样本，head）块都是另一个块的正确结果，与把 head 按样本顺序并入 batch（[B*H, ...] 的第 "
                 "b*H + h 行，如 view(B * H, ...) 或 `rearrange('b h ... -> (b h) ...')`），再按 head 顺序拆开（第 h*B + b "
                 "行，如 view(H, B, ...).transpose(0, 1) 或 `rearrange('(h b) ... -> b h ...')`）的结果完全一致：拆开时应按"
                 "并入时的顺序读取各行，即 view(B, H, ...) 或 `rearrange('(b h) ... -> b h ...')`"),
    "hb_bh": msg("each (sample, head) block of the result is the right result of another one, exactly as when the "
                 "heads are folded into the batch head by head, row h*B + b of [B*H, ...] (transpose(0, 1).reshape(H * "
                 "B, ...), rearrange 'b h ... -> (h b) ...'), and unfolded sample by sample, row b*H + h (view(B, H, "
                 "...), rearrange '(b h) ... -> b h ...'): the unfold must read the rows in the order the fold wrote "
                 "them, view(H, B, ...).transpose(0, 1) or '(h b) ... -> b h ...'",
                 "结果中每个（样本，head）块都是另一个块的正确结果，与把 head 按 head 顺序并入 batch（[B*H, ...] 的第 "
                 "h*B + b 行，如 transpose(0, 1).reshape(H * B, ...) 或 `rearrange('b h ... -> (h b) ...')`），再按样本顺序"
                 "拆开（第 b*H + h 行，如 view(B, H, ...) 或 `rearrange('(b h) ... -> b h ...')`）的结果完全一致：拆开时应按"
                 "并入时的顺序读取各行，即 view(H, B, ...).transpose(0, 1) 或 `rearrange('(h b) ... -> b h ...')`"),
}


def fold_note(got: Tensor, right: Tensor) -> Msg | None:
    """``FOLDS`` of ``fold_order(got, right)``, or None."""
    order = fold_order(got, right)
    return None if order is None else FOLDS[order]
