"""Round 33's review: ``nn.TransformerEncoderLayer``'s fast path runs a whole layer, attention included, in one
kernel (``torch._transformer_encoder_layer_fwd``) that the run-time watch did not wrap; the source review flags the
layer's name, but a name reached past it ran the kernel with every counter at 0. The watch now counts it, as it
counts the other fused kernels (tests/grading/test_fair_round20.py)."""

from __future__ import annotations

import torch

from grader_tests.attention import static

FAST_PATH = '''import torch


class A(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(4, 1, dim_feedforward=8, dropout=0.0, batch_first=True).eval()

    def forward(self, x):
        # the call the layer's fast path makes (TransformerEncoderLayer.forward), written out
        la = self.layer
        with torch.no_grad():
            return torch._transformer_encoder_layer_fwd(
                x, la.self_attn.embed_dim, la.self_attn.num_heads, la.self_attn.in_proj_weight,
                la.self_attn.in_proj_bias, la.self_attn.out_proj.weight, la.self_attn.out_proj.bias, False, False,
                la.norm1.eps, la.norm1.weight, la.norm1.bias, la.norm2.weight, la.norm2.bias, la.linear1.weight,
                la.linear1.bias, la.linear2.weight, la.linear2.bias, None, None)
'''


def test_the_run_time_watch_counts_the_encoder_layers_fused_fast_path(executor):
    x = torch.randn(2, 3, 4)
    with executor.session(FAST_PATH, "attention.py", "attention",
                          watch={"count": ["A.forward"], "forbid": static.FORBID_RUNTIME}) as s:
        s.load()
        s.call(s.new("A"), "__call__", x)
        stats = s.stats()
    assert "torch._transformer_encoder_layer_fwd" not in stats["missing"], stats["missing"]
    assert stats["forbid"].get("torch._transformer_encoder_layer_fwd", 0) > 0, stats["forbid"]
