"""Round 40 mend (review RG): what the r40g styles cost when written as their sources are, pinned.

MED-1: mamba_ssm/modules/mha.py opens with three guarded imports (``flash_attn_with_kvcache``,
``flash_attn.layers.rotary.RotaryEmbedding``, ``causal_conv1d``); the r40g file dropped them. Kept, the file is held
the points that wait for the review (the suite's withholding tests, derived in test_assignment_page_mend_round40)
and flagged: packages of attention kernels stay flagged even guarded (``static._ATTENTION_WORDS``; the assignment
page says they are the exception to guarded optional imports). A declared cost, by design; ``causal_conv1d``
alone, not an attention kernel and not installed, costs nothing.

LOW: the README's claim that the Zhihu file grades the same in GBK, with a BOM and CRLF, and with Chinese
identifiers, held by a test; CrossViT's own ``qkv_bias=False`` default kept in its r40g file."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests
from tests.grading.test_assignment_page_mend_round40 import withheld_points, withheld_tests

CORRECT = SUBMISSIONS / "correct"
MAMBA = (CORRECT / "r40g_mamba_ssm_mha_kv_unbind.py").read_text(encoding="utf-8")
ANCHOR = "from einops import rearrange\n"
FLASH_HEADER = ("try:\n    from flash_attn import flash_attn_with_kvcache\nexcept ImportError:\n"
                "    flash_attn_with_kvcache = None\n\n"
                "try:\n    from flash_attn.layers.rotary import RotaryEmbedding\nexcept ImportError:\n"
                "    RotaryEmbedding = None\n\n")
CONV_HEADER = ("try:\n    from causal_conv1d import causal_conv1d_fn, causal_conv1d_update\nexcept ImportError:\n"
               "    causal_conv1d_fn, causal_conv1d_update = None, None\n")


def _with_header(header: str) -> bytes:
    assert MAMBA.count(ANCHOR) == 1
    return MAMBA.replace(ANCHOR, ANCHOR + "\n" + header).encode()


@pytest.mark.slow
def test_mamba_ssm_faithful_header_is_held_the_review_points_and_flagged_for_flash_attn(executor):
    result = grade(GradeInput(code=_with_header(FLASH_HEADER + CONV_HEADER)), "attention", executor)
    assert result["status"] == "graded", result["message"]
    assert set(failed_tests(result)) == withheld_tests()
    assert code_score(result) == 85 - withheld_points() == 68
    assert result["review"] and "flash_attn" in str(result["review"]), result["review"]
    assert "causal_conv1d" not in str(result["review"]), result["review"]


@pytest.mark.slow
def test_mamba_ssm_header_without_the_attention_kernel_costs_nothing(executor):
    result = grade(GradeInput(code=_with_header(CONV_HEADER)), "attention", executor)
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


ZHIHU = (CORRECT / "r40g_zhihu_pinyin_zh_comments.py").read_text(encoding="utf-8")
ENCODED = {
    "gbk_with_coding_line": ("# -*- coding: gbk -*-\n" + ZHIHU).encode("gbk"),
    "utf8_bom_crlf": b"\xef\xbb\xbf" + ZHIHU.replace("\n", "\r\n").encode(),
    "chinese_identifiers": ZHIHU.replace("fenshu", "分数").replace("zhuyili", "注意力").replace("yanma", "掩码").encode(),
}


def test_the_zhihu_variants_are_what_they_say():
    assert "zhuyili" in ZHIHU and "fenshu" in ZHIHU and "yanma" in ZHIHU
    assert ZHIHU.encode("utf-8") != ZHIHU.encode("gbk")      # the file has Chinese text GBK encodes otherwise


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(ENCODED))
def test_the_zhihu_style_gets_full_marks_in_gbk_with_bom_and_crlf_and_with_chinese_identifiers(executor, variant):
    result = grade(GradeInput(code=ENCODED[variant]), "attention", executor)
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


def test_crossvit_keeps_its_own_qkv_bias_default():
    """CrossViT's CrossAttention is ``qkv_bias=False`` (the r40g file had changed it to True)."""
    text = (CORRECT / "r40g_crossvit_wq_wk_wv_aliases.py").read_text(encoding="utf-8")
    assert "qkv_bias=False" in text and "qkv_bias=True" not in text
