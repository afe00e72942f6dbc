"""Fairness round 36: correct code in 20 more public styles.

Flash-attention's ``attention_ref`` ([b, t, h, d], "bthd,bshd->bhts", its True = keep padding mask filled in place),
vLLM's ``ref_masked_attention`` ("qhd,khd->hqk", a Python loop over the sequences), fastai v1's MultiHeadAttention
(keys permuted to [bs, h, d, len], the scale divided in place), Hugging Face's Funnel ("bind,bjnd->bnij", padding by
subtracting 1e6 in float), ProphetNet ("bsij,bsjk->bsik", its softmax helper), SqueezeBERT (MatMulWrapper modules,
channels first, keys laid out [N, C1, C2, W]), CPM-Ant (``torch.masked_fill`` with ``torch.scalar_tensor``),
torchvision's MaxViT (upper-case einsum subscripts with spaces, the KEYS scaled, a group axis), THUMT (static
split/combine heads, the -1e9 bias), Apple's ml-ane-transformers (heads as a Python list, softmax over dim=1, the
keys on axis 1), taming-transformers' AttnBlock (bmm, softmax over dim=2, weights permuted for the values),
guided-diffusion's QKVAttention (new order, sqrt(sqrt(ch)) on q and k), LiBai (``import oneflow as flow`` guarded,
torch under that name), jax's ``_dot_product_attention_xla`` ("BTNH,BSNH->BNTS", torch.where with -0.7 * finfo.max),
equinox's MultiheadAttention ("sd,Sd->sS", torch.func.vmap over the batch and the heads), timm's BoTNet (q @ k with
the keys untransposed, heads folded into the batch), tinygrad's ``Tensor.scaled_dot_product_attention`` (a function
whose ``self`` is the query), mmpretrain's ``scaled_dot_product_attention_pyimpl`` (``torch.dropout(w, dropout_p,
True)`` given 0 in eval), torch's own ``nn.Softmax`` copied in (``F.softmax(input, self.dim, _stacklevel=5)``) and
Texar-PyTorch's MultiheadAttentionEncoder (in-place ``*=`` and ``+=`` on the scores, -1e18 padding). Each got 85/85
with no review finding at once: the grader had no defect to fix for them (four adaptations of ours failed first, the
grader saying what it saw each time: two MultiHeadAttention without the contract's ``head_dim`` keyword, a MaxViT mask
given the group axis in the wrong place, and a ``view`` of a non-contiguous tensor in guided-diffusion's kernel; the
files were fixed, not the grader). Faults put into six of them lose points in their category.
"""

from __future__ import annotations

import pytest

from tests.grading.helpers import SUBMISSIONS, graded_mutant
from tests.grading.test_fair_round30 import _failed

CORRECT = SUBMISSIONS / "correct"
# (the round's new styles get full marks and no review finding: test_fair_styles_round38)


# A fault put into a new style loses points in its category: the checks can fail on these styles.
MUTANTS = {
    # ANE's softmax over axis 1 is the keys' axis: over axis 3 it runs over the queries
    "ane_softmax_over_queries": ("ane_split_heads_softmax_dim1", "attn_weights = [aw.softmax(dim=1) for aw in",
                                 "attn_weights = [aw.softmax(dim=3) for aw in", "formula_shape"),
    # MaxViT scales the keys: without it there is no scale
    "maxvit_keys_not_scaled": ("torchvision_maxvit_einsum_spaces", "k = k * scale_factor", "k = k * 1.0",
                               "formula_shape"),
    # guided-diffusion's sqrt(sqrt(ch)) on q and k: on q only, the scores are divided by ch ** 0.25
    "guided_scale_on_q_only": ("guided_diffusion_qkv_new_order", "(k * scale).view(bs * n_heads, ch, kv_length)",
                               "k.view(bs * n_heads, ch, kv_length)", "formula_shape"),
    # flash-attn's mask is True = keep: the lab's True = padding used as it is
    "flash_padding_not_negated": ("flash_attn_attention_ref", "keep = ~key_padding_mask", "keep = key_padding_mask",
                                  "mask_parity"),
    # jax's where keeps the logits where the mask is True: an inverted padding there
    "jax_padding_inverted": ("jax_dot_product_attention_xla_port",
                             "torch.where(key_padding_mask, float('-inf'), 0.0)",
                             "torch.where(key_padding_mask, 0.0, float('-inf'))", "mask_parity"),
    # taming's weights are permuted for the values: without it the values are weighted along the queries
    "taming_weights_not_permuted": ("taming_attnblock_bmm_dim2", "w_t = w_.permute(0, 2, 1)", "w_t = w_",
                                    "formula_shape"),
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "old", "new", "category"), MUTANTS.values(), ids=MUTANTS.keys())
def test_a_fault_in_a_new_style_loses_points_in_its_category(executor, name, old, new, category):
    result = graded_mutant(executor, CORRECT / f"{name}.py", old, new)
    assert result["categories"][category]["score"] < result["categories"][category]["max"], _failed(result)
