"""Fairness round 37: correct code in 12 more public styles (tests/fixtures/submissions/correct/r37_*.py).

Hugging Face's SiglipAttention (softmax in float32 cast back), BEiT's packed projection (``F.linear`` with weights and
biases concatenated at each call), the Time-Series-Library's FullAttention ([B, L, H, E], "blhe,bshe->bhls", the
mask added before the scale), Segformer's efficient self-attention (sequence reduction ratio 1), codertimo's
BERT-pytorch (a ModuleList of three layers zipped with the inputs, the kernel a subclass of its Attention), OLMo
(the block's own ``_scaled_dot_product_attention`` method, a name close to PyTorch's own), fastNLP (heads last,
"bqnh,bknh->bqkn", softmax over dim=2), TimeSformer (a ``with_qkv`` flag), WeNet (weights masked to 0 after the
softmax), Baichuan2 (``W_pack`` with unflatten(-1, (3, hidden)).unsqueeze(0).transpose(0, -2).squeeze(-2) and a clamp
at finfo.min), Stanford CS336's assignment 1 (its own softmax, einsum with ellipses) and ModernBERT (``qkv.transpose(3,
1).unbind(dim=2)``). Each is adapted to the lab as a student would and cites its source "in the style of" (the
quotes were not checked against the repositories). Each got 85/85 with no review finding and no hint at once: the
grader had no defect to fix for them. A fault put into six of them loses points in its category.
"""

from __future__ import annotations

import pytest

from tests.grading.helpers import SUBMISSIONS, graded_mutant
from tests.grading.test_fair_round30 import _failed

CORRECT = SUBMISSIONS / "correct"
# (the round's new styles get full marks and no review finding: test_fair_styles_round38)


# A fault put into a new style loses points in its category: the checks can fail on these styles.
MUTANTS = {
    # fastNLP's keys are dim 2 of [b, q, k, n]: dim=1 normalises over the queries
    "fastnlp_softmax_over_queries": ("r37_fastnlp_heads_last_einsum", "attn = F.softmax(attn, dim=2)",
                                     "attn = F.softmax(attn, dim=1)", "formula_shape"),
    # the Time-Series-Library's scale multiplies the scores inside the softmax: without it there is none
    "tslib_scale_left_out": ("r37_tslib_full_attention_layer", "torch.softmax(scale * scores, dim=-1)",
                             "torch.softmax(scores, dim=-1)", "formula_shape"),
    # BEiT's packed rows in the order q, k, v: k and v swapped in the cat
    "beit_packed_kv_swapped": ("r37_beit_qv_bias_packed_linear",
                               "weight = torch.cat((self.q_proj.weight, self.k_proj.weight, self.v_proj.weight))",
                               "weight = torch.cat((self.q_proj.weight, self.v_proj.weight, self.k_proj.weight))",
                               "implementation"),
    # WeNet's bool mask read off the additive mask: inverted, the allowed keys are blocked
    "wenet_mask_inverted": ("r37_wenet_forward_attention", "mask = torch.isneginf(additive_mask)",
                            "mask = ~torch.isneginf(additive_mask)", "mask_parity"),
    # CS336's softmax without the maximum subtracted overflows in float16
    "cs336_softmax_without_max": ("r37_cs336_einsum_hand_softmax", "exp_x = torch.exp(x - x_max)",
                                  "exp_x = torch.exp(x)", "implementation"),
    # ModernBERT's three taken in reverse order (v, k, q): the queries come from v_proj
    "modernbert_unbind_wrong_axis": ("r37_modernbert_qkv_transpose_unbind",
                                     "query, key, value = qkv.transpose(3, 1).unbind(dim=2)",
                                     "query, key, value = qkv.permute(2, 0, 3, 1, 4).unbind(dim=0)[::-1]",
                                     "mask_parity"),
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "old", "new", "category"), MUTANTS.values(), ids=MUTANTS.keys())
def test_a_fault_in_a_new_style_loses_points_in_its_category(executor, name, old, new, category):
    result = graded_mutant(executor, CORRECT / f"{name}.py", old, new)
    assert result["categories"][category]["score"] < result["categories"][category]["max"], _failed(result)
