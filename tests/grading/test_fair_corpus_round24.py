"""Fairness round 24's new correct styles, each with the lab's faults put into it: the grader must take points
for a wrong scale, a dropped or inverted mask and a softmax over the wrong axis in these styles as in the others
(the correct files themselves are graded by test_grading.test_correct_styles_get_full_code_marks)."""

from __future__ import annotations

import pytest

from tests.grading.helpers import SUBMISSIONS, graded_mutant

CORRECT = SUBMISSIONS / "correct"

# (file, text in it, the fault put in its place, the category that must lose points)
MUTANTS = {
    # the video's own slip: sqrt(embed_size) instead of sqrt(head_dim)
    "aladdin_scale_by_embed_size": ("aladdin_persson_einsum.py", "queries.shape[-1] ** (1 / 2)",
                                    "(queries.shape[-1] * queries.shape[2]) ** (1 / 2)", "formula_shape"),
    # sqrt(ch) on q and on k: divides by ch
    "guided_diffusion_scale_squared": ("guided_diffusion_qkv_legacy.py", "scale = 1 / math.sqrt(math.sqrt(ch))",
                                       "scale = 1 / math.sqrt(ch)", "formula_shape"),
    "torchscale_mask_dropped": ("torchscale_rearrange_bmm.py",
                                "attn_weights.view(bsz, num_heads, tgt_len, src_len) + additive_mask",
                                "attn_weights.view(bsz, num_heads, tgt_len, src_len)", "mask_parity"),
    "bart_padding_polarity": ("hf_bart_attention.py", "masked_fill(key_padding_mask[:, None, None, :]",
                              "masked_fill(~key_padding_mask[:, None, None, :]", "mask_parity"),
    "llama_softmax_over_queries": ("meta_llama_reference.py", "F.softmax(scores.float(), dim=-1)",
                                   "F.softmax(scores.float(), dim=-2)", "formula_shape"),
    "umar_mask_dropped": ("umar_jamil_block.py", "attention_scores = attention_scores + mask",
                          "attention_scores = attention_scores", "mask_parity"),
}


@pytest.mark.parametrize("name, old, new, category", MUTANTS.values(), ids=MUTANTS.keys())
def test_a_fault_in_a_new_correct_style_loses_points_in_its_category(executor, name, old, new, category):
    result = graded_mutant(executor, CORRECT / name, old, new)
    cats = result["categories"]
    assert cats[category]["score"] < cats[category]["max"], f"{name} with {new!r} kept full {category}"
