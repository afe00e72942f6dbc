"""Fixed-seed inputs and trusted reference computations for the attention suite.

Everything here runs on the trusted side only, on plain tensors.  Inputs are built from fixed seeds
and cached (the grading runner warms the cache in the parent process, so forked grading children
reuse them).  References: outputs from ``torch.nn.functional.scaled_dot_product_attention``;
weights from an explicit float64 softmax. References of fixed inputs are memoised in ``FIXED``
and computed once per suite version in the worker (see grading/fixed.py).
"""

from __future__ import annotations

import itertools
import math

import torch
import torch.nn.functional as F
from torch import Tensor

from grading.fixed import FixedCache

FIXED = FixedCache()
NEG_INF = float("-inf")

# Student-facing tolerances (from the lab text).
OUT_TOL = 1e-5        # float32 output max abs error vs reference
ROW_SUM_TOL = 1e-6    # float32 row-sum error
WEIGHT_TOL = 1e-5     # float32 weights vs float64 softmax
ZERO_TOL = 1e-7       # weight on a blocked key


def _randn(seed: int, *shape: int, dtype=torch.float32) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


@FIXED.input
def qkv(seed: int, B: int, H: int, Nq: int, Nk: int, dk: int, dv: int,
        dtype: torch.dtype = torch.float32, scale: float = 1.0) -> tuple[Tensor, Tensor, Tensor]:
    q = _randn(seed, B, H, Nq, dk, dtype=torch.float64) * scale
    k = _randn(seed + 1, B, H, Nk, dk, dtype=torch.float64)
    v = _randn(seed + 2, B, H, Nk, dv, dtype=torch.float64)
    return q.to(dtype), k.to(dtype), v.to(dtype)


# The standard parity case: Nq != Nk != dk != dv so that shape mix-ups cannot hide.
PARITY = dict(seed=11, B=2, H=4, Nq=7, Nk=9, dk=16, dv=12)


def parity_case() -> tuple[Tensor, Tensor, Tensor]:
    return qkv(**PARITY)


# Its square companion (self-attention, Nq == Nk): weights returned key x query instead of query x
# key keep their shape here, so only their values can show it, while in the rectangular cases the
# shape does. The weight-checking tests run both.
SQUARE = dict(seed=15, B=2, H=3, Nq=8, Nk=8, dk=16, dv=12)


def square_case() -> tuple[Tensor, Tensor, Tensor]:
    return qkv(**SQUARE)


@FIXED.input
def hand_example() -> tuple[Tensor, Tensor, Tensor]:
    """The lab's hand-computation example: B=H=1, Nq=2, Nk=3, dk=dv=2, small integers."""
    q = torch.tensor([[[[1.0, 0.0], [2.0, 1.0]]]])
    k = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]])
    v = torch.tensor([[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]])
    return q, k, v


# ------------------------------------------------------------------------------------- references
def ref_scores(q: Tensor, k: Tensor, mask: Tensor | None = None, scale: float | None = None) -> Tensor:
    q64, k64 = q.double(), k.double()
    s = q64 @ k64.transpose(-2, -1) * (1.0 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None:
        s = s + mask.double()
    return s


@FIXED.reference
def ref_weights(q: Tensor, k: Tensor, mask: Tensor | None = None, scale: float | None = None) -> Tensor:
    """float64 softmax over the key axis (returned in float64)."""
    return torch.softmax(ref_scores(q, k, mask, scale), dim=-1)


@FIXED.reference
def ref_output(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> Tensor:
    """PyTorch's own attention in the inputs' dtype (float additive mask: 0 allowed, -inf blocked)."""
    m = None if mask is None else mask.to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


@FIXED.reference
def ref_grads(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, grad_output: Tensor) -> list[Tensor]:
    ins = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    out = ref_output(*ins, mask)
    return list(torch.autograd.grad(out, ins, grad_output))


def entropy(weights: Tensor) -> float:
    """Mean attention entropy (nats) over all query rows."""
    w = weights.double()
    return float(-(w * torch.log(w.clamp_min(1e-300))).sum(-1).mean())


@FIXED.reference
def ref_entropy(q: Tensor, k: Tensor, scale: float | None = None) -> float:
    """Mean entropy of the reference weights (float64 softmax) of q and k."""
    return entropy(ref_weights(q, k, scale=scale))


# ------------------------------------------------------------------------------------- masks
@FIXED.input
def random_block_mask(seed: int, shape: tuple[int, ...], p: float = 0.35) -> Tensor:
    """0/-inf additive mask; column 0 is always allowed so no row is fully blocked."""
    g = torch.Generator().manual_seed(seed)
    blocked = torch.rand(*shape, generator=g) < p
    blocked[..., 0] = False
    return torch.zeros(shape).masked_fill(blocked, NEG_INF)


def column_block_mask(shape: tuple[int, ...], column: int) -> Tensor:
    m = torch.zeros(shape)
    m[..., column] = NEG_INF
    return m


# ------------------------------------------------------------------------------------- multi-head
@FIXED.input
def mha_params(seed: int, d_model: int, num_heads: int, head_dim: int) -> dict[str, Tensor]:
    inner = num_heads * head_dim
    p = {}
    for i, (name, fan_out, fan_in) in enumerate([("q_proj", inner, d_model), ("k_proj", inner, d_model),
                                                 ("v_proj", inner, d_model), ("out_proj", d_model, inner)]):
        p[f"{name}.weight"] = _randn(seed + 10 * i, fan_out, fan_in) / math.sqrt(fan_in)
        p[f"{name}.bias"] = _randn(seed + 10 * i + 1, fan_out) * 0.1
    return p


@FIXED.input
def tokens(seed: int, *shape: int) -> Tensor:
    return _randn(seed, *shape)


def mha_heads(params: dict[str, Tensor], num_heads: int, head_dim: int, x: Tensor,
              context: Tensor | None = None, additive_mask: Tensor | None = None,
              key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """What a correct multi-head wrapper hands its scaled dot-product attention: the heads q
    [B,H,Nq,head_dim], k and v [B,H,Nk,head_dim] (head h uses projection columns
    [h*head_dim, (h+1)*head_dim)), and the additive mask [B,1|H,1|Nq,Nk] (all 0 without masks),
    in the inputs' dtype."""
    ctx = x if context is None else context
    B, Nq, _ = x.shape
    Nk = ctx.shape[1]

    def split(t: Tensor, n: int) -> Tensor:
        return t.view(B, n, num_heads, head_dim).transpose(1, 2)

    q = split(F.linear(x, params["q_proj.weight"], params["q_proj.bias"]), Nq)
    k = split(F.linear(ctx, params["k_proj.weight"], params["k_proj.bias"]), Nk)
    v = split(F.linear(ctx, params["v_proj.weight"], params["v_proj.bias"]), Nk)
    mask = torch.zeros(B, 1, 1, Nk, dtype=x.dtype)
    if key_padding_mask is not None:
        mask = mask.masked_fill(key_padding_mask[:, None, None, :], NEG_INF)
    if additive_mask is not None:
        am = additive_mask if additive_mask.dim() == 4 else additive_mask.unsqueeze(1)
        mask = mask + am
    return q, k, v, mask


def mha_merge(params: dict[str, Tensor], heads_out: Tensor) -> Tensor:
    """The heads' outputs [B,H,Nq,head_dim] merged as a correct wrapper does, then out_proj."""
    B, H, Nq, hd = heads_out.shape
    out = heads_out.transpose(1, 2).reshape(B, Nq, H * hd)
    return F.linear(out, params["out_proj.weight"].to(out.dtype), params["out_proj.bias"].to(out.dtype))


@FIXED.reference
def ref_mha(params: dict[str, Tensor], num_heads: int, head_dim: int, x: Tensor,
            context: Tensor | None = None, additive_mask: Tensor | None = None,
            key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Reference multi-head attention; head h uses projection columns [h*head_dim, (h+1)*head_dim)."""
    q, k, v, mask = mha_heads(params, num_heads, head_dim, x, context, additive_mask, key_padding_mask)
    return mha_merge(params, ref_output(q, k, v, mask)), ref_weights(q, k, mask)


# ------------------------------------------------------------------------------------- fault models
# What common mistakes compute, in float64, so that feedback names a mistake only when the
# student's numbers match it (diagnose.py). Each returns None when it does not apply to a case.
def sdpa_fault_weights(fault: str, q: Tensor, k: Tensor, v: Tensor,
                       mask: Tensor | None = None) -> Tensor | None:
    dk, dv = q.shape[-1], v.shape[-1]
    scores = ref_scores(q, k, mask)
    if fault == "scale_one":
        return torch.softmax(ref_scores(q, k, mask, scale=1.0), -1)
    if fault == "scale_dk":                      # 1/dk, i.e. 1/sqrt(dk) applied twice
        return torch.softmax(ref_scores(q, k, mask, scale=1.0 / dk), -1)
    if fault == "scale_dv":
        return None if dv == dk else torch.softmax(ref_scores(q, k, mask, scale=1.0 / math.sqrt(dv)), -1)
    if fault == "scale_nk":                      # 1/sqrt(Nk): the number of keys, k.shape[-2], read for dk
        nk = k.shape[-2]
        return None if nk == dk else torch.softmax(ref_scores(q, k, mask, scale=1.0 / math.sqrt(nk)), -1)
    if fault == "scale_heads_dk":                # 1/sqrt(H * dk): d_model read from the heads' shape
        if q.dim() < 4 or q.shape[1] < 2:
            return None
        return torch.softmax(ref_scores(q, k, mask, scale=1.0 / math.sqrt(q.shape[1] * dk)), -1)
    if fault == "softmax_query_axis":
        return None if q.shape[-2] < 2 else torch.softmax(scores, -2)
    if fault == "softmax_head_axis":
        return None if q.dim() < 4 or q.shape[1] < 2 else torch.softmax(scores, 1)
    if fault == "softmax_batch_axis":            # dim=0: with one sample every weight is 1, as over any axis of 1
        return None if q.dim() < 4 or q.shape[0] < 2 else torch.softmax(scores, 0)
    if fault == "qk_swapped":
        if q.shape[-2] != k.shape[-2]:
            return None
        m = None if mask is None else mask.transpose(-2, -1)
        return torch.softmax(ref_scores(k, q, m), -1)
    if fault == "raw_scores":
        return scores
    if fault == "weights_transposed":            # key x query: visible in the values only when square
        return None if q.shape[-2] != k.shape[-2] else torch.softmax(scores, -1).transpose(-2, -1)
    if fault == "causal":                        # a decoder's mask applied too: query i reads keys 0..i only
        nq, nk = q.shape[-2], k.shape[-2]
        if nk < 2:                               # one key: every query reads it either way
            return None
        future = torch.triu(torch.ones(nq, nk, dtype=torch.bool), diagonal=1)
        return torch.softmax(scores.masked_fill(future, NEG_INF), -1)
    if fault in ("causal_diagonal", "causal_ahead"):
        # A causal mask off by one: triu(diagonal=0) blocks each query's own key too (query 0 reads none:
        # a row of NaN), triu(diagonal=2) lets query i read key i + 1 as well.
        nq, nk = q.shape[-2], k.shape[-2]
        if nq < 2 or nk < (2 if fault == "causal_diagonal" else 3):   # else the same as the decoder's mask or none
            return None
        future = torch.triu(torch.ones(nq, nk, dtype=torch.bool), diagonal=0 if fault == "causal_diagonal" else 2)
        return torch.softmax(scores.masked_fill(future, NEG_INF), -1)
    if mask is None:
        return None
    blocked = torch.isinf(mask.double()) & (mask.double() < 0)
    unmasked = torch.softmax(ref_scores(q, k), -1)
    if fault == "mask_after_softmax":
        return unmasked.masked_fill(blocked, 0.0)
    if fault == "mask_added_after_softmax":      # softmax(scores) + mask: -inf weights on the blocked keys
        return None if not bool(blocked.any()) else unmasked + mask.double()
    if fault == "mask_ignored":
        return None if not bool(blocked.any()) else unmasked.expand_as(scores)
    if fault == "mask_inverted":
        inv = torch.zeros_like(scores).masked_fill(~blocked, NEG_INF)
        return torch.softmax(ref_scores(q, k) + inv, -1)
    return None


SDPA_FAULTS = ("scale_one", "scale_dk", "scale_dv", "softmax_query_axis", "softmax_head_axis", "softmax_batch_axis",
               "qk_swapped",
               "raw_scores", "mask_after_softmax", "mask_ignored", "mask_inverted", "weights_transposed", "causal",
               "scale_nk", "scale_heads_dk", "causal_diagonal", "causal_ahead", "mask_added_after_softmax")


# A [B,Nq,Nk] additive mask given to the wrong heads: which sample's mask head h of sample b reads.
# "batch_as_head": added to the [B,H,Nq,Nk] scores without a head axis, its batch axis lines up with
# the heads (it runs only when B == H, or B == 1 where it is right); "repeat_order": repeated over the
# heads with repeat(H, 1, 1) while the heads are flattened sample by sample (b*H + h);
# "interleave_order": repeat_interleave(H, dim=0) while they are flattened head by head (h*B + b).
# When B == H all three read the mask of sample h: named "batch_as_head" only.
# "first_head": a [B,H,Nq,Nk] mask of which every head reads head 0's (additive_mask[:, :1]);
# "first_sample": a mask (3-D or 4-D) of which every sample reads sample 0's (additive_mask[:1]).
ADDITIVE_MASK_HEAD_FAULTS = ("additive_mask_batch_as_head", "additive_mask_repeat_order",
                             "additive_mask_interleave_order", "additive_mask_first_head",
                             "additive_mask_first_sample")


def _mask_by_head(am: Tensor, fault: str, B: int, H: int) -> Tensor | None:
    """The [B,H,Nq,Nk] mask each head reads under ``fault``, or None when the mistake cannot happen
    here or computes the right mask (B == 1, H == 1)."""
    if fault == "additive_mask_first_head":
        return None if am.dim() != 4 or am.shape[1] == 1 or H == 1 else am[:, :1].expand_as(am)
    if fault == "additive_mask_first_sample":
        return None if B == 1 or am.shape[0] == 1 else am[:1].expand_as(am)
    if am.dim() != 3 or B == 1 or H == 1:
        return None
    b, h = torch.arange(B)[:, None], torch.arange(H)[None, :]
    if fault == "additive_mask_batch_as_head":
        index = None if B != H else h.expand(B, H)
    else:
        index = None if B == H else ((b * H + h) % B if fault == "additive_mask_repeat_order" else (h * B + b) // H)
    return None if index is None else am[index]


# The diagonal of torch.triu a wrapper's own causal mask starts at: the decoder's, and the two off by one (round 31).
MHA_CAUSAL_DIAGONALS = {"mha_causal": 1, "mha_causal_diagonal": 0, "mha_causal_ahead": 2}


def mha_variant(params: dict[str, Tensor], num_heads: int, head_dim: int, x: Tensor,
                context: Tensor | None = None, additive_mask: Tensor | None = None,
                key_padding_mask: Tensor | None = None, fault: str | None = None
                ) -> tuple[Tensor, Tensor] | None:
    """Multi-head attention in float64 as the reference does it, or with one named mistake.
    Returns (output, weights), or None when ``fault`` cannot happen with these shapes."""
    p = {n: t.double() for n, t in params.items()}
    if fault == "seq_first":     # x read as [N, B, d]: attention over the batch axis, the result turned back
        if additive_mask is not None or key_padding_mask is not None or x.shape[0] < 2 or (
                context is not None and context.shape[1] != x.shape[1]):
            return None          # the masks' sizes no longer fit (an error, not numbers); one sample: same
        out, w = mha_variant(params, num_heads, head_dim, x.transpose(0, 1),
                             None if context is None else context.transpose(0, 1))
        return out.transpose(0, 1), w
    if fault == "heads_as_sequence":
        return _heads_as_sequence(params, num_heads, head_dim, x, context, additive_mask, key_padding_mask)
    xd = x.double()
    ctx = xd if context is None else context.double()
    if fault == "kv_from_x":
        masked = additive_mask is not None or key_padding_mask is not None
        if context is None or (masked and context.shape[1] != x.shape[1]):
            return None
        ctx = xd
    B, Nq, d_model = xd.shape
    Nk = ctx.shape[1]
    inner = num_heads * head_dim
    if fault == "roles_kqv" and context is None:
        return None    # q and k projections swapped in self-attention: the scores transposed, named qk_swapped
    if fault in ("split_merge_dim_first", "heads_not_split") and num_heads == 1:
        return None    # one head: the split and the merge are the same either way
    if fault == "heads_not_split" and additive_mask is not None and additive_mask.dim() == 4:
        return None    # a mask per head added to one head's scores: a broadcast the student's code need not do

    def proj(t: Tensor, name: str) -> Tensor:
        if fault == "shared_q":
            name = "q_proj"
        elif fault == "kv_swapped" and name in ("k_proj", "v_proj"):
            name = "v_proj" if name == "k_proj" else "k_proj"
        elif fault in PROJECTION_ROLE_FAULTS:    # roles_qkk: Q from q_proj, K from k_proj, V from k_proj
            name = f"{fault[6 + 'qkv'.index(name[0])]}_proj"
        # bias_dropped: x @ W.T for every projection (its weight read off the Linear, its bias forgotten)
        return F.linear(t, p[f"{name}.weight"], None if fault == "bias_dropped" else p[f"{name}.bias"])

    def split(t: Tensor, n: int) -> Tensor:
        if fault in ("split_no_transpose", "split_no_transpose_only"):
            return t.reshape(B, num_heads, n, head_dim)
        if fault in ("split_dim_first", "split_merge_dim_first"):   # view(B, N, head_dim, H): every H-th feature
            return t.view(B, n, head_dim, num_heads).permute(0, 3, 1, 2)
        if fault == "heads_not_split":           # one head of all num_heads * head_dim features
            return t.view(B, 1, n, inner)
        return t.view(B, n, num_heads, head_dim).transpose(1, 2)

    q, k, v = split(proj(xd, "q_proj"), Nq), split(proj(ctx, "k_proj"), Nk), split(proj(ctx, "v_proj"), Nk)
    mask = torch.zeros(B, 1, 1, Nk, dtype=torch.float64)
    if key_padding_mask is not None:
        if fault == "pad_inverted":
            mask = mask.masked_fill(~key_padding_mask[:, None, None, :], NEG_INF)
        elif fault in ("pad_inverted_finite", *PAD_ADDED_FAULTS):    # applied below, on the scores
            if fault in PAD_ADDED_FAULTS and (x.dtype != torch.float32 or not bool(key_padding_mask.any())):
                return None    # float64: pad_inverted_finite's numbers; no padding: the right ones
        elif fault == "pad_square":             # the padding tokens blocked as queries too: [B,1,N,N]
            if Nq != Nk or not bool(key_padding_mask.any()):
                return None
            mask = torch.zeros(B, 1, Nq, Nk, dtype=torch.float64).masked_fill(
                key_padding_mask[:, None, :, None] | key_padding_mask[:, None, None, :], NEG_INF)
        elif fault in ("pad_query_axis_finite", "pad_query_axis_added"):  # applied below, on the scores
            if Nq != Nk or not bool(key_padding_mask.any()):
                return None
        elif fault == "pad_query_axis":
            if Nq != Nk:
                return None
            mask = torch.zeros(B, 1, Nq, 1, dtype=torch.float64).masked_fill(
                key_padding_mask[:, None, :, None], NEG_INF)
        elif fault == "pad_on_values":          # the padded keys' values zeroed instead of their scores blocked
            if not bool(key_padding_mask.any()):
                return None
            v = v.masked_fill(key_padding_mask[:, None, :, None], 0.0)
        elif fault != "pad_ignored":
            mask = mask.masked_fill(key_padding_mask[:, None, None, :], NEG_INF)
    elif fault in ("pad_inverted", "pad_query_axis", "pad_ignored", "pad_on_values", "pad_inverted_finite",
                   "pad_square", "pad_query_axis_finite", "pad_query_axis_added", *PAD_ADDED_FAULTS):
        return None
    if additive_mask is None and fault == "mask_ignored":
        return None
    if additive_mask is not None and fault != "mask_ignored":
        am = additive_mask.double()
        if fault in ADDITIVE_MASK_HEAD_FAULTS:
            am = _mask_by_head(am, fault, B, num_heads)
            if am is None:
                return None
        mask = mask + (am if am.dim() == 4 else am.unsqueeze(1))
    elif fault in ADDITIVE_MASK_HEAD_FAULTS:
        return None
    if fault in MHA_CAUSAL_DIAGONALS:            # the wrapper adds a decoder's causal mask in self-attention
        # (off by one: triu(diagonal=0) blocks each query's own key too, triu(diagonal=2) lets it read the next)
        if context is not None or Nq < 2 or (fault == "mha_causal_ahead" and Nk < 3):
            return None
        mask = mask + torch.full((Nq, Nk), NEG_INF, dtype=torch.float64).triu(MHA_CAUSAL_DIAGONALS[fault])
    scale = {"scale_one": 1.0, "scale_dk": 1.0 / head_dim, "scale_dmodel": 1.0 / math.sqrt(d_model),
             "heads_not_split": 1.0 / math.sqrt(inner)}.get(fault or "", 1.0 / math.sqrt(head_dim))
    if fault == "scale_dmodel" and d_model == head_dim * head_dim:
        return None   # 1/sqrt(d_model) is then 1/head_dim: diagnosed as "scale_dk" (named for both)
    if fault == "qk_swapped":
        if Nq != Nk:
            return None
        q, k = k, q
    scores = q @ k.transpose(-2, -1) * scale + mask
    if fault == "pad_inverted_finite":          # (1.0 - key_padding_mask.float()) * -1e9: the real keys blocked
        real = ~key_padding_mask[:, None, None, :]
        if x.dtype == torch.float64:
            scores = scores + real * _FINITE_BLOCK
        else:   # s + -1e9 rounds to -1e9 in float32: a row of blocked keys only is uniform, not softmax(s)
            scores = torch.where(real & torch.isfinite(scores), _FINITE_BLOCK, scores)
    if fault in PAD_ADDED_FAULTS:
        # Google BERT's (1.0 - mask) * -10000.0 made from key_padding_mask itself (1 = keep read as 1 = pad): the
        # real keys get -1e4; or the padding mask added with the wrong sign (key_padding_mask * 1e4 or * 1e9): the
        # padding keys get it (the constants: PAD_ADDED_FAULTS). Added in float32, s + c keeps s to float32's step near c (2**-10 near 1e4, 64 near
        # 1e9), so the keys so lifted or the samples without padding keep their scores so rounded.
        on, c = PAD_ADDED_FAULTS[fault]
        keys = key_padding_mask[:, None, None, :] if on == "pad" else ~key_padding_mask[:, None, None, :]
        added = (scores.float() + torch.tensor(c, dtype=torch.float32)).double()
        scores = torch.where(keys & torch.isfinite(scores), added, scores)
    if fault == "pad_query_axis_finite":        # the padding queries' rows filled with -1e9 (or finfo.min), not -inf
        if x.dtype == torch.float64:   # s - 1e9 keeps s there: the rows read as without the mask (pad_ignored)
            return None
        # s + -1e9 rounds to -1e9 in float32: such a row is uniform over its keys, not NaN as with -inf
        rows = key_padding_mask[:, None, :, None]
        scores = torch.where(rows & torch.isfinite(scores), _FINITE_BLOCK, scores)
    if fault == "pad_query_axis_added":         # (1 - mask)[:, None, :, None] * -1e6 added to the scaled scores
        if x.dtype != torch.float32:   # exact in float64 (the rows read as without the mask: pad_ignored)
            return None
        # in float32 s - 1e6 keeps s only to 1/16 (float32's step near 1e6): a row of the scores so rounded
        rows = key_padding_mask[:, None, :, None]
        added = (scores.float() + torch.tensor(-_ADDED_BLOCK, dtype=torch.float32)).double()
        scores = torch.where(rows & torch.isfinite(scores), added, scores)
    if fault in ("heads_averaged_before_v", "weights_head_averaged") and num_heads < 2:
        return None                             # one head: its mean is itself
    if fault == "mask_after_softmax":           # softmax of the unmasked scores, blocked zeroed after
        if not bool(torch.isinf(mask).any()):
            return None
        w = torch.softmax(q @ k.transpose(-2, -1) * scale, -1).masked_fill(torch.isinf(mask), 0.0)
    elif fault == "softmax_query_axis":
        w = torch.softmax(scores, -2)
    elif fault == "softmax_head_axis":
        w = torch.softmax(scores, 1)
    elif fault == "softmax_batch_axis":
        if B < 2:
            return None
        w = torch.softmax(scores, 0)
    else:
        w = torch.softmax(scores, -1)
    if fault == "heads_averaged_before_v":      # w.mean(dim=1, keepdim=True) @ v: every head reads the heads' mean
        w = w.mean(1, keepdim=True).expand_as(w)
    o = w @ v
    if fault in ("merge_no_transpose", "split_no_transpose"):   # a wrong split is undone the same way
        o = o.reshape(B, Nq, inner)
    elif fault in ("merge_dim_first", "split_merge_dim_first"):   # the split_dim_first split undone
        o = o.permute(0, 2, 3, 1).reshape(B, Nq, inner)
    elif fault == "merge_heads_reversed":       # torch.cat([o[:, h] for h in reversed(range(H))], -1)
        if num_heads < 2:
            return None
        o = o.flip(1).transpose(1, 2).reshape(B, Nq, inner)
    else:
        o = o.transpose(1, 2).reshape(B, Nq, inner)
    if fault == "weights_transposed":           # the output right, the weights returned key x query
        if Nq != Nk:
            return None                         # the shape shows it (drivers.validate says so)
        w = w.transpose(-2, -1)
    if fault == "weights_head_averaged":        # the output right, each head's weights returned as the heads' mean
        w = w.mean(1, keepdim=True).expand_as(w)
    if fault == "out_proj_skipped":             # the merged heads returned as they are
        return (o, w) if inner == d_model else None
    if fault in ("split_dim_first", "split_no_transpose_only") and num_heads == 1:
        return None                             # one head: the split is the same either way
    out = F.linear(o, p["out_proj.weight"], None if fault == "bias_dropped" else p["out_proj.bias"])
    if fault == "out_proj_twice":               # out_proj(out_proj(merged)): d_model -> d_model twice
        if inner != d_model:
            return None                         # the second call fails on the shapes (an error, not numbers)
        out = F.linear(out, p["out_proj.weight"], p["out_proj.bias"])
    if fault in ("residual", "residual_layer_norm"):   # x + attention: the block's residual, inside
        out = out + xd
    if fault in ("layer_norm", "residual_layer_norm"):  # an nn.LayerNorm(d_model) as built (weight 1, bias 0)
        out = F.layer_norm(out, (d_model,))
    return out, w


def _heads_as_sequence(params: dict[str, Tensor], num_heads: int, head_dim: int, x: Tensor, context: Tensor | None,
                       additive_mask: Tensor | None, key_padding_mask: Tensor | None) -> tuple[Tensor, Tensor] | None:
    """Heads split as view(B, N, H, head_dim) (or unflatten, reshape) and given to the kernel without
    transpose(1, 2), merged back as reshape(B, N, H * head_dim): the kernel reads dim 1 (the positions) as the
    heads and dim 2 (the heads) as the sequence, so each position attends over its own heads; weights
    [B, N, H, H]. None where that cannot run or shows nothing: a mask ([B,1,1,Nk] does not broadcast against
    [B, N, H, H]), keys of another length, or one head (the weights' shape [B, N, 1, 1] says it)."""
    if additive_mask is not None or key_padding_mask is not None or num_heads < 2 or (
            context is not None and context.shape[1] != x.shape[1]):
        return None
    p = {n: t.double() for n, t in params.items()}
    xd = x.double()
    ctx = xd if context is None else context.double()
    B, N, _ = xd.shape

    def heads(t: Tensor, name: str) -> Tensor:
        return F.linear(t, p[f"{name}.weight"], p[f"{name}.bias"]).view(B, N, num_heads, head_dim)

    q, k, v = heads(xd, "q_proj"), heads(ctx, "k_proj"), heads(ctx, "v_proj")
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(head_dim), -1)
    out = F.linear((w @ v).reshape(B, N, num_heads * head_dim), p["out_proj.weight"], p["out_proj.bias"])
    return out, w


# The finite fill students block with instead of -inf (-1e9; torch.finfo(float32).min rounds the same way).
_FINITE_BLOCK = -1e9
# The large constant some subtract instead (Funnel's INF = 1e6): added, not filled in, it leaves the scores there in
# float32, rounded to float32's step near 1e6 (1/16). -1e4 is not modelled: its step (~1e-3) is too close to the
# student's own float32 rounding for the rows to be told apart within MATCH_TOL.
_ADDED_BLOCK = 1e6


# A padding mask added as a finite number that reads the padding keys instead of the real ones (round 40): which keys
# get which constant. BERT's inverted mask adds -1e4 to the real keys; the wrong sign adds +1e4 or +1e9 to the
# padding keys. Either blocks the other keys as -inf would; a sample without padding keeps its scores, rounded.
# The constants students write (review RC): powers of ten and -65504 (float16's min). Below 1e4 float32's step near
# the constant (2**-17 near 100, 2**-14 near 1000) is under diagnose.MATCH_TOL, so -c on the real keys and +c on the
# padding keys give the same numbers and which of the two mistakes it is cannot be told: not modelled.
PAD_ADDED_FAULTS = {
    **{f"pad_inverted_added_{c:g}": ("real", -c) for c in (1e4, 65504.0, 1e5, 1e6, 1e7, 1e8)},
    **{f"pad_sign_{c:g}": ("pad", c) for c in (1e4, 1e5, 1e6, 1e7, 1e8, 1e9)},
}


# A projection used for another role (``v = self.k_proj(context)``, q and k's projections swapped): which of
# q_proj, k_proj, v_proj computes Q, K and V, by their initials ("roles_qkk": V from k_proj). The right one,
# q_proj for all three ("shared_q") and k/v swapped ("kv_swapped") have fault models of their own.
PROJECTION_ROLE_FAULTS = tuple(f"roles_{''.join(r)}" for r in itertools.product("qkv", repeat=3)
                               if "".join(r) not in ("qkv", "qqq", "qvk"))

# Mistakes in the returned weights alone (the output is right): named only from weights of their shape.
MHA_WEIGHTS_FAULTS = ("weights_transposed", "weights_head_averaged")
MHA_FAULTS = ("qk_swapped", "split_no_transpose", "merge_no_transpose", "merge_dim_first", "shared_q", "kv_from_x",
              "scale_one", "scale_dk", "scale_dmodel", "softmax_query_axis", "softmax_head_axis", "softmax_batch_axis",
              "pad_inverted", "pad_inverted_finite", "pad_square", "pad_query_axis", "pad_query_axis_finite",
              "pad_ignored", "mask_ignored",
              "mask_after_softmax",
              "out_proj_skipped", "kv_swapped", "split_dim_first", "residual", "layer_norm", "residual_layer_norm",
              "pad_on_values", "weights_transposed", "bias_dropped", *ADDITIVE_MASK_HEAD_FAULTS,
              *PROJECTION_ROLE_FAULTS, "seq_first", "split_no_transpose_only", "merge_heads_reversed", "mha_causal",
              "mha_causal_diagonal", "mha_causal_ahead", "heads_as_sequence",
              "split_merge_dim_first", "heads_not_split", "out_proj_twice", "heads_averaged_before_v",
              "weights_head_averaged", "pad_query_axis_added", *PAD_ADDED_FAULTS)


def warm() -> None:
    """Build the cached inputs once and pay PyTorch's lazy initialisations (the first autograd
    backward costs ~0.3 s) in the warm parent process, so forked grading children start hot."""
    q, k, v = parity_case()
    ref_output(q, k, v)
    ref_weights(q, k)
    hq, hk, hv = hand_example()
    ref_output(hq, hk, hv)
    mask = random_block_mask(51, (2, 2, 5, 6))
    q, k, v = qkv(50, 2, 2, 5, 6, 8, 4)
    ref_grads(q, k, v, mask, tokens(52, 2, 2, 5, 4))
    params = mha_params(30, 16, 4, 4)
    x = tokens(42, 2, 5, 16)
    ref_mha(params, 4, 4, x, None, random_block_mask(98, (2, 5, 5)),
            torch.zeros(2, 5, dtype=torch.bool))
