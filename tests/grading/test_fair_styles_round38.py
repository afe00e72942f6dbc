"""Every correct file a fairness round added in a public style gets full marks with no review finding: one test
over the files rounds 29-38 each checked in a test of their own (test_fair_roundNN.py kept the rest: the mutants,
the cheats, the round's own checks). The files are tests/fixtures/submissions/correct/; each is graded once per
session (tests/grading/helpers.graded_corpus_file, shared with test_grading's fast lane and test_fair_corpus).

The lane is each round's: rounds 29-33 checked a few files in the fast lane, rounds 34-37 their many new styles in
the slow one, as do round 38's (test_grading.test_correct_styles_get_full_code_marks grades them all for their 85 points fast).
Round 39's ten styles come with a faulty twin each: the same file with one fault put in, which must lose points in the
category its header declares and be named as declared (the twins are graded with the rest of the corpus too).
"""

from __future__ import annotations

import pytest

from tests.grading.helpers import (
    SUBMISSIONS,
    assert_twin_differs_by_one_declared_fault,
    assert_twin_loses_points_and_is_named_as_declared,
    code_score,
    failed_tests,
    graded_corpus_file,
)

CORRECT = SUBMISSIONS / "correct"

# round: the correct files its fairness test graded for full marks
FAST = {
    29: ["weight_norm_parametrizations", "minlora_parametrize"],
    30: ["torch_compile_decorated", "module_compile_in_place"],
    31: ["from_torch_import_compile", "torchscript_kernel_module", "torchscript_function_kernel"],
    33: ["jit_scriptmodule_script_method", "jit_fork_wait_heads", "gpt_fast_dynamo_hints"],
}
SLOW = {
    34: ["informer_full_attention", "statquest_row_col_dim", "chatglm_layer_scaling_coeff", "qwen_full_scale_tensor",
         "opt_clamp_finfo_min", "einsum_sublist_format", "flax_dot_general_helper", "xformers_lse_merge",
         "longformer_dense_window", "bigbird_original_full", "hf_perceiver_self_attention", "timm_fused_attn_flag",
         "causal_buffer_max_len_unused", "in_proj_linear_chunk3", "einops_pack_unpack", "torch_func_functional_call",
         "broadcast_mul_sum_scores", "jittor_execute_port", "torch_masked_softmax", "pvt_kv_linear_sr1",
         "fairseq2_sdpa_alias", "graphormer_attn_bias"],
    35: ["rtdl_ft_transformer_mha", "uer_py_multi_headed", "minimind_attention", "llama2c_manual_path",
         "sgrvinod_transformer_tutorial", "sooftware_attentions_head_major", "krasserm_perceiver_io",
         "hf_layoutlmv3_cogview", "dalle_pytorch_stable_softmax", "phi_mixformer_selfattention",
         "ultralytics_psa_channels_first", "torchmultimodal_split_multihead", "nlp_with_transformers_book",
         "deepseek_v3_naive_einsum", "patchtst_scale_parameter", "vits_channels_first_attention",
         "mobilevit_cvnets_mha", "bert4torch_multihead_layer", "hf_gpt_bigcode_attn", "audiocraft_streaming_mha"],
    36: ["flash_attn_attention_ref", "vllm_ref_masked_attention", "fastai_v1_keys_permuted", "hf_funnel_bind_einsum",
         "hf_prophetnet_bsij_einsum", "hf_squeezebert_matmul_wrapper", "hf_cpmant_scalar_tensor",
         "torchvision_maxvit_einsum_spaces", "thumt_split_combine_heads", "ane_split_heads_softmax_dim1",
         "taming_attnblock_bmm_dim2", "guided_diffusion_qkv_new_order", "libai_oneflow_guarded_alias",
         "jax_dot_product_attention_xla_port", "equinox_mha_port_case_subscripts", "timm_botnet_keys_untransposed",
         "tinygrad_tensor_method_port", "mmpretrain_pyimpl_torch_dropout", "torch_softmax_module_copied",
         "texar_mha_encoder_bias"],
    37: ["r37_hf_siglip_attention", "r37_beit_qv_bias_packed_linear", "r37_tslib_full_attention_layer",
         "r37_segformer_efficient_self_attention", "r37_codertimo_bert_pytorch", "r37_olmo_private_sdpa_method",
         "r37_fastnlp_heads_last_einsum", "r37_timesformer_with_qkv_flag", "r37_wenet_forward_attention",
         "r37_baichuan_w_pack_unflatten", "r37_cs336_einsum_hand_softmax", "r37_modernbert_qkv_transpose_unbind"],
    # round 38: 85/85, no review finding and no hint at once (the faulty twins: test_hints_round38)
    38: ["r38_pytorch_docs_sdpa_math_reference", "r38_hf_pix2struct_transpose_3_2",
         "r38_annotated_diffusion_d_first_einsum", "r38_fastai_course22p2_heads_in_batch",
         "r38_hf_kosmos2_scaled_query_shape"],
    # round 39: ten more public projects, each with a faulty twin (TWINS below)
    39: ["r39_picogpt_split_heads_hstack", "r39_cvt_einsum_operand_list", "r39_uvit_rearrange_uppercase_axes",
         "r39_trax_logsumexp_dot_product", "r39_google_bert_tf_transpose_for_scores",
         "r39_pytorch112_functional_baddbmm", "r39_sagan_channels_first_bmm", "r39_pytorch_forecasting_tft_sdpa",
         "r39_glide_bthc_sqrt_sqrt_scale", "r39_gemma_jax_port_k_mask"],
}
ROUNDS = FAST | SLOW
# how many new styles each round said it added (its own count, kept as its test had it)
ADDED = {34: 22, 35: 20, 36: 20, 37: 12, 38: 5, 39: 10}

STYLES = [pytest.param(name, id=f"r{rnd}-{name}") for rnd, names in FAST.items() for name in names] + \
    [pytest.param(name, id=f"r{rnd}-{name}", marks=pytest.mark.slow) for rnd, names in SLOW.items() for name in names]


@pytest.mark.parametrize("rnd", sorted(ROUNDS))
def test_each_rounds_styles_are_in_the_corpus(rnd):
    names = ROUNDS[rnd]
    assert all((CORRECT / f"{n}.py").is_file() for n in names), [n for n in names if not (CORRECT / f"{n}.py").is_file()]
    assert len(set(names)) == ADDED.get(rnd, len(names))


@pytest.mark.parametrize("rnd", [37, 38, 39])
def test_the_rounds_styles_are_every_file_of_the_round_and_say_where_they_come_from(rnd):
    assert sorted(SLOW[rnd]) == sorted(p.stem for p in CORRECT.glob(f"r{rnd}_*.py"))
    for name in SLOW[rnd]:
        assert "In the style of " in (CORRECT / f"{name}.py").read_text(encoding="utf-8"), name


@pytest.mark.parametrize("name", STYLES)
def test_public_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


# round 39: each new style's faulty twin, the correct file with one fault put in (declared in its header)
FAULTY = SUBMISSIONS / "faulty"
TWINS = {
    "r39_picogpt_split_heads_hstack": "r39_picogpt_softmax_without_max",
    "r39_cvt_einsum_operand_list": "r39_cvt_scale_by_dim_out",
    "r39_uvit_rearrange_uppercase_axes": "r39_uvit_heads_split_d_first",
    "r39_trax_logsumexp_dot_product": "r39_trax_split_without_transpose",
    "r39_google_bert_tf_transpose_for_scores": "r39_google_bert_adder_from_padding",
    "r39_pytorch112_functional_baddbmm": "r39_pytorch112_key_value_from_query",
    "r39_sagan_channels_first_bmm": "r39_sagan_energy_unscaled",
    "r39_pytorch_forecasting_tft_sdpa": "r39_tft_softmax_dim2_kept",
    "r39_glide_bthc_sqrt_sqrt_scale": "r39_glide_sqrt_on_both_sides",
    "r39_gemma_jax_port_k_mask": "r39_gemma_merge_without_transpose",
}


def test_every_round_39_style_has_a_twin_that_differs_by_its_declared_fault_only():
    assert sorted(TWINS) == sorted(SLOW[39])
    assert sorted(TWINS.values()) == sorted(p.stem for p in FAULTY.glob("r39_*.py"))
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_faulty_twin_loses_points_in_its_category_and_is_named_as_declared(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)
