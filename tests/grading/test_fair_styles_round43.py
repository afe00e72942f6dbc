"""Round 43 (D): ten more public styles and one unusual layout, each graded for its 85 code points with no review
finding and no hint, and each with a faulty twin (tests/fixtures/submissions/faulty/r43_*.py: the correct file with
one real student fault put in) that must lose points in the category its header declares and be named as declared
(or, declared "none", described and never named). The styles: google/gemma_pytorch's float softmax ``type_as``,
ComfyUI's attention_basic with the heads folded into the batch, flamingo-pytorch's MaskedCrossAttention (amax
detach, to_kv chunk), suno-ai/bark's GPT attention with its kv cache left off, DeepSpeed's inference attention
(sqrt(sqrt(d)) on both q and k), Hugging Face's LXMERT cross-modality attention, FastSpeech2's head-major (n*b)
bmm, torchtitan's wq/wk/wv/wo with repeat_kv, Apple OpenELM's qkv split along the heads axis, PixArt-alpha's batch
folded into the tokens under a block-diagonal bias; and heads folded into the sequence axis, (b, n*h, d), kept
apart by a head bias, in the wrapper and in the kernel (the layout with no fault model of its own)."""

from __future__ import annotations

import ast

import pytest

from grader_tests.attention import diagnose
from tests.grading.helpers import (
    SUBMISSIONS,
    assert_twin_differs_by_one_declared_fault,
    assert_twin_loses_points_and_is_named_as_declared,
    code_score,
    failed_tests,
    graded_corpus_file,
)
from tests.grading.helpers import named_in as _named

CORRECT = SUBMISSIONS / "correct"
FAULTY = SUBMISSIONS / "faulty"
TWINS = {
    "r43_gemma_pytorch_scores_float_type_as": "r43_gemma_merge_without_transpose",
    "r43_comfyui_attention_basic_heads_in_batch": "r43_comfyui_softmax_over_queries",
    "r43_flamingo_masked_cross_attention": "r43_flamingo_scale_forgotten",
    "r43_bark_gpt_past_kv_use_cache": "r43_bark_scale_applied_twice",
    "r43_deepspeed_inference_norm_factor": "r43_deepspeed_norm_factor_sqrt_not_sqrt_sqrt",
    "r43_hf_lxmert_ctx_dim_cross_attention": "r43_lxmert_padding_mask_inverted",
    "r43_fastspeech2_ming024_head_major_bmm": "r43_fastspeech2_unfold_batch_major",
    "r43_torchtitan_wq_repeat_kv_model_args": "r43_torchtitan_mask_after_softmax",
    "r43_openelm_qkv_split_along_heads": "r43_openelm_softmax_over_heads",
    "r43_pixart_batch_along_tokens_block_diagonal": "r43_pixart_block_diagonal_left_out",
    "r43_heads_along_tokens_one_sequence": "r43_heads_along_tokens_no_head_bias",
    "r43_heads_along_tokens_in_kernel": "r43_heads_along_tokens_unfolded_head_major",
}
# Where each style comes from, as its module docstring must say first (review D round 43, LOW 2: "layout" anywhere
# in the docstring passed): "In the style of <project>'s <name> (<its source file>" for a public style; the layout's
# description and its shape for the two layouts with no public source.
PROVENANCE = {
    "r43_gemma_pytorch_scores_float_type_as": ("In the style of google/gemma_pytorch's GemmaAttention (", "gemma/model.py"),
    "r43_comfyui_attention_basic_heads_in_batch": ("In the style of ComfyUI's attention_basic (",
                                                   "comfy/ldm/modules/attention.py"),
    "r43_flamingo_masked_cross_attention": ("In the style of lucidrains' flamingo-pytorch MaskedCrossAttention (",
                                            "flamingo_pytorch/flamingo_pytorch.py"),
    "r43_bark_gpt_past_kv_use_cache": ("In the style of suno-ai/bark's CausalSelfAttention (", "bark/model.py"),
    "r43_deepspeed_inference_norm_factor": ("In the style of DeepSpeed's inference attention (",
                                            "deepspeed/ops/transformer/inference/ds_attention.py"),
    "r43_hf_lxmert_ctx_dim_cross_attention": ("In the style of Hugging Face's LxmertAttention (",
                                              "transformers/models/lxmert/modeling_lxmert.py"),
    "r43_fastspeech2_ming024_head_major_bmm": ("In the style of ming024/FastSpeech2's transformer/SubLayers.py and "
                                               "Modules.py (", "after jadore801120's first version"),
    "r43_torchtitan_wq_repeat_kv_model_args": ("In the style of pytorch/torchtitan's llama Attention (",
                                               "torchtitan/models/llama/model.py"),
    "r43_openelm_qkv_split_along_heads": ("In the style of Apple's OpenELM MultiHeadCausalAttention (",
                                          "apple/corenet"),
    "r43_pixart_batch_along_tokens_block_diagonal": ("In the style of PixArt-alpha's MultiHeadCrossAttention (",
                                                     "PixArt-alpha/diffusion/model/nets/PixArt_blocks.py"),
    "r43_heads_along_tokens_one_sequence": ("Heads folded into the sequence axis", "(b, n*h, d) layout"),
    "r43_heads_along_tokens_in_kernel": ("Heads folded into the sequence axis", "(b, n*h, d) layout"),
}
# The twins whose feedback quotes the faulty line: twin -> the code quoted, as the faulty line (and no other) has it.
QUOTED = {
    "r43_gemma_merge_without_transpose": "output.contiguous().view(batch_size, input_len, -1)",
    "r43_comfyui_softmax_over_queries": "sim.softmax(dim=1)",
    "r43_openelm_softmax_over_heads": "F.softmax(attn_weights, dim=1, dtype=torch.float32)",
}


def _line_of(twin: str) -> int:
    lines = (FAULTY / f"{twin}.py").read_text(encoding="utf-8").splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if QUOTED[twin] in text and not text.startswith("#")]
    return line


def test_the_rounds_styles_and_twins_are_every_r43_file_and_say_where_they_come_from():
    assert sorted(TWINS) == sorted(p.stem for p in CORRECT.glob("r43_*.py"))
    assert sorted(TWINS.values()) == sorted(p.stem for p in FAULTY.glob("r43_*.py"))
    assert sorted(PROVENANCE) == sorted(TWINS)
    for name, (start, source) in PROVENANCE.items():
        doc = " ".join((ast.get_docstring(ast.parse((CORRECT / f"{name}.py").read_text(encoding="utf-8"))) or "").split())
        assert doc.startswith(start), (name, doc[:120])
        # the public source it follows (its file, in the parentheses after the project's name), or the layout's shape
        assert source in (doc[len(start):].split(")")[0] if start.startswith("In the style of") else doc), name


def test_every_twin_differs_from_its_style_by_its_declared_fault_only():
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


def test_the_merge_quote_of_the_gemma_twin_is_its_own_flatten_line():
    source = (FAULTY / "r43_gemma_merge_without_transpose.py").read_text(encoding="utf-8")
    said = diagnose.SOURCE_NOTES["merge_no_transpose"](source, "MultiHeadAttention")
    assert said is not None and QUOTED["r43_gemma_merge_without_transpose"] in said["en"] and \
        QUOTED["r43_gemma_merge_without_transpose"] in said["zh"]
    line = _line_of("r43_gemma_merge_without_transpose")
    assert f"line {line} " in said["en"] and f"第 {line} 行" in said["zh"], said


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_public_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85 and _named(result) == {}


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_faulty_twin_loses_points_in_its_category_and_is_named_as_declared(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(QUOTED))
def test_a_twins_quote_is_the_line_that_has_its_fault(executor, twin):
    path = FAULTY / f"{twin}.py"
    line = _line_of(twin)
    result = graded_corpus_file(executor, path)
    quoting = [t for t in result["tests"] if t["outcome"] != "passed" and QUOTED[twin] in t["feedback"]["en"]]
    assert quoting, [t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed"]
    for t in quoting:
        assert f"line {line}" in t["feedback"]["en"] and f"第 {line} 行" in t["feedback"]["zh"], t["feedback"]
        assert QUOTED[twin] in t["feedback"]["zh"]
