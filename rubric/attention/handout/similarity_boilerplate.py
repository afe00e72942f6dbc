# The code the lesson-2 handout gives every student (copied from the course text,
# shared/seeds/lesson2_attention_handout_and_lab.txt, sections 2 and 8). The similarity check
# (grading/similarity.py) removes what submissions share with this file, so the skeleton that
# everyone starts from never counts as a match. Edit it when the handout changes.
# models/attention.py
import math

import torch
from torch import Tensor, nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q: Tensor, k: Tensor, v: Tensor,
                additive_mask: Tensor | None = None,
                *, return_weights: bool = False):
        assert q.ndim == k.ndim == v.ndim == 4  # [B,H,N,*]
        assert q.shape[-1] == k.shape[-1]
        assert k.shape[-2] == v.shape[-2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if additive_mask is not None:
            assert additive_mask.shape[-2:] == scores.shape[-2:]
            scores = scores + additive_mask
        weights = torch.softmax(scores, dim=-1)
        output = torch.matmul(weights, v)
        return (output, weights) if return_weights else output


def scaled_dot_product_attention(q, k, v, blocked=None, return_weights=False):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if blocked is not None:
        scores = scores.masked_fill(blocked, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=-1)
    output = weights @ v
    return (output, weights) if return_weights else output
