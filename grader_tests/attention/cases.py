"""Fixed-seed inputs and trusted reference computations for the attention suite.

Everything here runs on the trusted side only, on plain tensors.  Inputs are built from fixed seeds
and cached (the grading runner warms the cache in the parent process, so forked grading children
reuse them).  References: outputs from ``torch.nn.functional.scaled_dot_product_attention``;
weights from an explicit float64 softmax.
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn.functional as F
from torch import Tensor

NEG_INF = float("-inf")

# Student-facing tolerances (from the lab text).
OUT_TOL = 1e-5        # float32 output max abs error vs reference
ROW_SUM_TOL = 1e-6    # float32 row-sum error
WEIGHT_TOL = 1e-5     # float32 weights vs float64 softmax
ZERO_TOL = 1e-7       # weight on a blocked key


def _randn(seed: int, *shape: int, dtype=torch.float32) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


@functools.cache
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


@functools.cache
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


def ref_weights(q: Tensor, k: Tensor, mask: Tensor | None = None, scale: float | None = None) -> Tensor:
    """float64 softmax over the key axis (returned in float64)."""
    return torch.softmax(ref_scores(q, k, mask, scale), dim=-1)


def ref_output(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> Tensor:
    """PyTorch's own attention in the inputs' dtype (float additive mask: 0 allowed, -inf blocked)."""
    m = None if mask is None else mask.to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


def ref_grads(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, grad_output: Tensor) -> list[Tensor]:
    ins = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    out = ref_output(*ins, mask)
    return list(torch.autograd.grad(out, ins, grad_output))


def entropy(weights: Tensor) -> float:
    """Mean attention entropy (nats) over all query rows."""
    w = weights.double()
    return float(-(w * torch.log(w.clamp_min(1e-300))).sum(-1).mean())


# ------------------------------------------------------------------------------------- masks
@functools.cache
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
@functools.cache
def mha_params(seed: int, d_model: int, num_heads: int, head_dim: int) -> dict[str, Tensor]:
    inner = num_heads * head_dim
    p = {}
    for i, (name, fan_out, fan_in) in enumerate([("q_proj", inner, d_model), ("k_proj", inner, d_model),
                                                 ("v_proj", inner, d_model), ("out_proj", d_model, inner)]):
        p[f"{name}.weight"] = _randn(seed + 10 * i, fan_out, fan_in) / math.sqrt(fan_in)
        p[f"{name}.bias"] = _randn(seed + 10 * i + 1, fan_out) * 0.1
    return p


@functools.cache
def tokens(seed: int, *shape: int) -> Tensor:
    return _randn(seed, *shape)


def ref_mha(params: dict[str, Tensor], num_heads: int, head_dim: int, x: Tensor,
            context: Tensor | None = None, additive_mask: Tensor | None = None,
            key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Reference multi-head attention; head h uses projection columns [h*head_dim, (h+1)*head_dim)."""
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
    out = ref_output(q, k, v, mask)
    weights = ref_weights(q, k, mask)
    out = out.transpose(1, 2).reshape(B, Nq, num_heads * head_dim)
    return F.linear(out, params["out_proj.weight"], params["out_proj.bias"]), weights


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
