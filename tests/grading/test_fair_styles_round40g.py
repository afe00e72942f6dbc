"""Round 40 (G): ten more public styles, each graded for its 85 code points with no review finding, and each with a
faulty twin (tests/fixtures/submissions/faulty/r40g_*.py: the correct file with one real student fault put in) that
must lose points in the category its header declares and be named as declared, as round 39's were
(test_fair_styles_round38). The styles: a Zhihu tutorial with pinyin names and Chinese comments, the Bilibili
channel's ViT with its stacked qkv, mamba_ssm's MHA (kv unbind), k-diffusion's split ** -0.25 scale on positive
dims, CrossViT's wq/wk/wv aliases, a MegEngine port through shims, GluonNLP's batch_dot with a log keep-mask,
a softmax written as F.normalize(p=1) of shifted exponentials, the Conformer's query kept [B, N, H, D], and DGL's
heads-last layout in einsums."""

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
FAULTY = SUBMISSIONS / "faulty"
TWINS = {
    "r40g_zhihu_pinyin_zh_comments": "r40g_zhihu_softmax_over_queries",
    "r40g_bilibili_wz_vit_qkv_stack": "r40g_bilibili_merge_without_transpose",
    "r40g_mamba_ssm_mha_kv_unbind": "r40g_mamba_ssm_split_d_first",
    "r40g_k_diffusion_quarter_scale_positive_dims": "r40g_k_diffusion_half_power_on_both",
    "r40g_crossvit_wq_wk_wv_aliases": "r40g_crossvit_keys_from_wv",
    "r40g_megengine_port_shims": "r40g_megengine_mask_after_softmax",
    "r40g_mxnet_gluonnlp_batch_dot_port": "r40g_gluonnlp_keep_mask_inverted",
    "r40g_normalize_p1_softmax": "r40g_normalize_p1_without_max",
    "r40g_conformer_sooftware_sqrt_dim": "r40g_conformer_sqrt_d_model",
    "r40g_dgl_sparse_mha_heads_last": "r40g_dgl_heads_split_d_first",
}


def test_the_rounds_styles_and_twins_are_every_r40g_file_and_say_where_they_come_from():
    assert sorted(TWINS) == sorted(p.stem for p in CORRECT.glob("r40g_*.py"))
    assert sorted(TWINS.values()) == sorted(p.stem for p in FAULTY.glob("r40g_*.py"))
    for name in TWINS:
        assert "In the style of " in (CORRECT / f"{name}.py").read_text(encoding="utf-8"), name


def test_every_twin_differs_from_its_style_by_its_declared_fault_only():
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_public_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_faulty_twin_loses_points_in_its_category_and_is_named_as_declared(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)
