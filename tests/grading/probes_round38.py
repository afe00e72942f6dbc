"""Review RC's probes of round 38's source notes (/work/r_RC/scratch/gen.py), rebuilt as sources: one correct
multi-head attention file whose parts a probe replaces (a line before the attention call, the padding layout,
a line after it, the output projection). A correct look-alike keeps the file correct; a faulty probe puts one
mistake in it beside a decoy line of the same look."""

from __future__ import annotations

import textwrap

HEAD = '''import math

import torch
import torch.nn.functional as F
from torch import nn
from einops import rearrange, reduce


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        if additive_mask is not None:
            scores = scores + additive_mask
        weights = F.softmax(scores, dim=-1)
        out = torch.matmul(weights, v)
        return (out, weights) if return_weights else out

'''
MHA = '''class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, head_dim=None):
        super().__init__()
        self.h = num_heads
        self.d_k = head_dim or d_model // num_heads
        self.q_proj = nn.Linear(d_model, self.h * self.d_k)
        self.k_proj = nn.Linear(d_model, self.h * self.d_k)
        self.v_proj = nn.Linear(d_model, self.h * self.d_k)
        self.out_proj = nn.Linear(self.h * self.d_k, d_model)
        self.attention = ScaledDotProductAttention()

    def split_heads(self, t):
        return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)

    def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        memory = x if context is None else context
        B = x.size(0)
        q = self.split_heads(self.q_proj(x))
        k = self.split_heads(self.k_proj(memory))
        v = self.split_heads(self.v_proj(memory))
{pre}
        mask = None
        if additive_mask is not None:
            mask = additive_mask.unsqueeze(1) if additive_mask.dim() == 3 else additive_mask
        if key_padding_mask is not None:
            pad = torch.zeros(key_padding_mask.shape, dtype=q.dtype).masked_fill(key_padding_mask, float("-inf"))
{pad}
            mask = pad if mask is None else mask + pad
        out, attn = self.attention(q, k, v, mask, return_weights=True)
{post}
        merged = out.transpose(1, 2).reshape(B, -1, self.h * self.d_k)
{proj}
        return (y, attn) if return_weights else y
'''
PARTS = {"pre": "", "pad": "pad = pad[:, None, None, :]", "post": "", "proj": "y = self.out_proj(merged)"}


def probe(*, sdpa_out: str | None = None, **parts: str) -> str:
    """The file with ``parts`` (pre, pad, post, proj: code, several lines allowed) in place of the correct ones;
    ``sdpa_out`` replaces ScaledDotProductAttention's ``out = torch.matmul(weights, v)``."""
    filled = {}
    for name, code in {**PARTS, **parts}.items():
        filled[name] = textwrap.indent(textwrap.dedent(code).strip("\n"), " " * (12 if name == "pad" else 8)) \
            if code else ""
    head = HEAD if sdpa_out is None else HEAD.replace("out = torch.matmul(weights, v)", sdpa_out)
    return head + MHA.format(**filled)


def line_of(source: str, code: str) -> int:
    """The number of the one line of ``source`` that holds ``code``."""
    found = [n for n, line in enumerate(source.splitlines(), 1) if code in line]
    assert len(found) == 1, (code, found)
    return found[0]
