"""Named diagnoses, confirmed before they are shown.

A hint names a mistake only when the student's own numbers match what that mistake computes
(the fault models of ``cases.py``), or when a repeated call shows it (dropout). Otherwise the
feedback only states what was seen against what was expected. Trusted side only, plain tensors.
"""

from __future__ import annotations

import torch
from torch import Tensor

from grader_tests.attention import cases as C
from grading.i18n import Msg, msg

MATCH_TOL = 1e-4   # the student's numbers "are" a fault model within this (float32 rounding and more)

# One entry per fault model: what it is, and what to change. Shown only when confirmed.
FAULTS: dict[str, Msg] = {
    "scale_one": msg("the weights equal softmax(QK^T) without the 1/sqrt(dk) scale: divide the scores by "
                     "sqrt(dk)",
                     "权重等于没有 1/sqrt(dk) 缩放的 softmax(QK^T)：score 需要除以 sqrt(dk)"),
    "scale_dk": msg("the weights equal softmax(QK^T / dk): the scores are divided by dk (or by sqrt(dk) "
                    "twice) instead of once by sqrt(dk)",
                    "权重等于 softmax(QK^T / dk)：score 被除以 dk（或除了两次 sqrt(dk)），应只除一次 sqrt(dk)"),
    "scale_dv": msg("the weights equal softmax(QK^T / sqrt(dv)): the scale must use the key dimension dk = "
                    "q.shape[-1], not the value dimension",
                    "权重等于 softmax(QK^T / sqrt(dv))：缩放应使用 key 的维度 dk = q.shape[-1]，而不是 value 的维度"),
    "scale_dk_or_dmodel": msg("the output matches scores divided by head_dim, which here is both sqrt(d_model) "
                              "and sqrt(head_dim) applied twice: inside each head divide once by sqrt(head_dim)",
                              "输出与 score 除以 head_dim 的结果一致，这里它既等于 sqrt(d_model)，也等于两次除以 "
                              "sqrt(head_dim)：每个 head 内应只除一次 sqrt(head_dim)"),
    "scale_dmodel": msg("the output matches scores divided by sqrt(d_model): inside each head the scale is "
                        "1/sqrt(head_dim)",
                        "输出与 score 除以 sqrt(d_model) 的结果一致：每个 head 内的缩放应为 1/sqrt(head_dim)"),
    "softmax_query_axis": msg("the columns sum to 1 instead of the rows: the softmax runs over the query axis "
                              "(dim=-2); it must normalise over the keys (dim=-1)",
                              "每一列的和为 1 而不是每一行：softmax 沿 query 轴（dim=-2）做了归一化，应沿 key 轴（dim=-1）"),
    "softmax_head_axis": msg("the weights are normalised across heads (softmax over dim=1): each query row "
                             "must be normalised over the keys (dim=-1)",
                             "权重在不同 head 之间做了归一化（softmax 沿 dim=1）：每个 query 行应沿 key 轴（dim=-1）归一化"),
    "qk_swapped": msg("the weights equal softmax(K Q^T): Q and K are swapped; the scores are Q @ K^T",
                      "权重等于 softmax(K Q^T)：Q 和 K 互换了；score 应为 Q @ K^T"),
    "raw_scores": msg("the returned weights are the scaled scores, not the softmax probabilities",
                      "返回的权重是缩放后的 score，而不是 softmax 概率"),
    "mask_after_softmax": msg("the blocked positions are zeroed after the softmax, so the rows no longer sum "
                              "to 1: add the mask to the scores before the softmax",
                              "被屏蔽的位置是在 softmax 之后置零的，因此行和不再为 1：应在 softmax 之前把 mask 加到 score 上"),
    "mask_ignored": msg("the weights are those without the mask: here the mask had no effect",
                        "权重与不加 mask 时相同：这里 mask 没有起作用"),
    "mask_inverted": msg("the mask acts inverted: the allowed positions (0.0) are blocked and the blocked "
                         "ones (-inf) are read",
                         "mask 的作用反了：允许读取的位置（0.0）被屏蔽，而被禁止的位置（-inf）被读取"),
    "split_no_transpose": msg("the output matches heads split with view(B, H, N, head_dim) (and merged back "
                              "the same way) without the transpose: split with view(B, N, H, head_dim)"
                              ".transpose(1, 2) and merge with transpose(1, 2).reshape(B, N, H * head_dim)",
                              "输出与不做 transpose、直接 view(B, H, N, head_dim) 拆分（并以同样方式合并）head 的结果一致："
                              "应使用 view(B, N, H, head_dim).transpose(1, 2) 拆分，"
                              "用 transpose(1, 2).reshape(B, N, H * head_dim) 合并"),
    "merge_no_transpose": msg("the output matches heads merged with reshape(B, N, H * head_dim) without "
                              "transpose(1, 2) first",
                              "输出与合并 head 时没有先 transpose(1, 2) 就 reshape(B, N, H * head_dim) 的结果一致"),
    "merge_dim_first": msg("the output matches heads merged in the wrong order (features of one position "
                           "across heads first): merge with transpose(1, 2).reshape(B, N, H * head_dim)",
                           "输出与按错误顺序合并 head 的结果一致：应使用 transpose(1, 2).reshape(B, N, H * head_dim)"),
    "shared_q": msg("the output matches q_proj used for the keys and values too: project K with k_proj "
                    "and V with v_proj",
                    "输出与 K、V 也使用 q_proj 的结果一致：K 应使用 k_proj，V 应使用 v_proj"),
    "kv_from_x": msg("the output matches keys and values projected from x: in cross-attention they come "
                     "from the context",
                     "输出与 K、V 从 x 投影的结果一致：cross-attention 中 K、V 应来自 context"),
    "pad_inverted": msg("the padding mask acts inverted: True in key_padding_mask means padding (blocked)",
                        "padding mask 的极性反了：key_padding_mask 中 True 表示 padding（禁止读取）"),
    "pad_query_axis": msg("the padding mask is applied to the query axis: it marks keys, so it broadcasts "
                          "as [B, 1, 1, Nk]",
                          "padding mask 被用在了 query 轴上：它标记的是 key，应广播为 [B, 1, 1, Nk]"),
    "pad_ignored": msg("the output is the one without the padding mask: here key_padding_mask had no effect",
                       "输出与不加 padding mask 时相同：这里 key_padding_mask 没有起作用"),
    "float16": msg("every returned value is exactly a float16 number: the computation runs in half "
                   "precision somewhere, which costs about 1e-3 of accuracy",
                   "返回的每个值恰好都是 float16 数：某处在半精度下计算，损失约 1e-3 的精度"),
    "overflow": msg("with ordinary scores the results are finite, so large scores overflow: exp() of scores "
                    "above ~88 is inf in float32 (above ~11 in float16); subtract the row maximum before exp() "
                    "(torch.softmax does)",
                    "score 正常时结果是有限的，因此是大 score 溢出：float32 中 score 超过约 88（float16 中约 11）时 "
                    "exp() 为 inf；请在 exp() 之前减去行最大值（torch.softmax 会这样做）"),
    "dropout": msg("two identical calls in eval() mode gave different results: dropout (or other "
                   "randomness) is active in eval mode; use nn.Dropout or F.dropout(..., "
                   "training=self.training)",
                   "eval() 模式下两次相同的调用结果不同：dropout（或其他随机性）在 eval 模式下仍在起作用；"
                   "请使用 nn.Dropout 或 F.dropout(..., training=self.training)"),
}


def _err(a: Tensor, b: Tensor) -> float:
    if a.shape != b.shape:
        return float("inf")
    d = (a.double() - b.double()).abs()
    both_nan = torch.isnan(a.double()) & torch.isnan(b.double())
    d = torch.where(both_nan, torch.zeros_like(d), d)
    return float(torch.nan_to_num(d, nan=float("inf")).max()) if d.numel() else 0.0


def half_precision(t: Tensor) -> bool:
    """All values are exactly representable in float16 although the tensor is wider: a sure sign
    that it went through half precision (random float32 values almost never are)."""
    if t.dtype in (torch.float16, torch.bfloat16) or t.numel() < 8 or not bool(torch.isfinite(t).all()):
        return False
    return bool((t.to(torch.float16).to(t.dtype) == t).all()) and bool((t != t.round()).any())


def _weights(fault: str, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor | None:
    try:
        return C.sdpa_fault_weights(fault, q, k, v, mask)
    except RuntimeError:  # not possible with these shapes
        return None


def sdpa_weights(w: Tensor, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> Msg | None:
    """The named mistake the weights ``w`` are, or None."""
    if half_precision(w):
        return FAULTS["float16"]
    for fault in C.SDPA_FAULTS:
        cand = _weights(fault, q, k, v, mask)
        if cand is not None and _err(w, cand) < MATCH_TOL:
            return FAULTS[fault]
    return None


def sdpa_output(out: Tensor, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> Msg | None:
    """The named mistake an output is (weights models applied to v), or None."""
    if half_precision(out):
        return FAULTS["float16"]
    for fault in C.SDPA_FAULTS:
        if fault == "raw_scores":
            continue
        cand = _weights(fault, q, k, v, mask)
        if cand is not None and torch.isfinite(cand).all() and _err(out, cand @ v.double()) < MATCH_TOL:
            return FAULTS[fault]
    return None


def mha_key(fault: str, d_model: int, head_dim: int) -> str:
    """The name a multi-head mistake is given: 1/head_dim is also 1/sqrt(d_model) when
    d_model == head_dim ** 2, and the hint then names both."""
    return "scale_dk_or_dmodel" if fault == "scale_dk" and d_model == head_dim * head_dim else fault


def mha(out: Tensor, weights: Tensor | None, params: dict[str, Tensor], num_heads: int, head_dim: int,
        x: Tensor, context: Tensor | None = None, additive_mask: Tensor | None = None,
        key_padding_mask: Tensor | None = None) -> Msg | None:
    """The named mistake a multi-head output (and its weights, when given) is, or None."""
    if half_precision(out):
        return FAULTS["float16"]
    for fault in C.MHA_FAULTS:
        try:
            got = C.mha_variant(params, num_heads, head_dim, x, context, additive_mask, key_padding_mask, fault)
        except RuntimeError:  # the mistake cannot happen with these shapes (e.g. masks sized for the context)
            continue
        if got is None:
            continue
        ref_out, ref_w = got
        if _err(out, ref_out) < MATCH_TOL and (weights is None or weights.shape != ref_w.shape
                                                or _err(weights, ref_w) < MATCH_TOL):
            return FAULTS[mha_key(fault, x.shape[-1], head_dim)]
    return None


__all__ = ["FAULTS", "MATCH_TOL", "half_precision", "mha_key", "sdpa_weights", "sdpa_output", "mha"]
