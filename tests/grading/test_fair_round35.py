"""Fairness round 35: correct code in 20 more public styles, and a file that sets torch's default dtype at import.

- 20 correct styles (README's correct corpus): Yandex rtdl's FT-Transformer MultiheadAttention (heads folded into
  the batch), Tencent UER-py, minimind and llama2.c's manual (non-flash) paths, sgrvinod's transformer tutorial,
  sooftware/attentions (heads folded head-major), krasserm's Perceiver IO (-finfo.max padding), HF LayoutLMv3's
  cogview (PB-Relax) softmax, DALLE-pytorch's stable_softmax, phi-1.5's MixFormer einsums ([b, t, h, d], q and k in
  float32, a -10000 padding), YOLO's PSA attention (channels first), torchmultimodal's module-level
  scaled_dot_product_attention with split/merge_multihead, the "NLP with Transformers" book's per-head function,
  DeepSeek-V3's naive MLA path ([b, s, h, t] scores), PatchTST (keys pre-transposed, the scale an nn.Parameter),
  VITS's channels-first attention (GPT-SoVITS, Bert-VITS2), MobileViT (ml-cvnets), bert4torch, StarCoder's
  GPTBigCode baddbmm path and audiocraft's einsum layouts. Each got 85/85 with no review finding at once: the grader
  had no defect to fix for them (one adaptation of ours failed first, DeepSeek's mask transposed as if it were 4-D:
  a [Nq, Nk] mask raised, which the grader said; the file was fixed, not the grader). Faults put into seven of
  them lose points in their category (the checks can fail on these styles).
- ``torch.set_default_dtype(torch.float64)`` at the top of a file (a notebook's demo) scored 85 with no failing test:
  right, by the contract. The sandbox puts torch's defaults back after the import (ASSIGNMENT §2, "How your file is
  run"), so the modules the grader builds are float32 and float32 inputs give float32 results, which
  test_dtype_preserved checks (the contract does not allow float64 outputs for float32 inputs: MultiHeadAttention's
  float32 out_proj could not take them). A tensor the top level builds under that default keeps float64 and loses
  the points, with the line that set it named.
"""

from __future__ import annotations

import pytest

from tests.grading.helpers import SUBMISSIONS, grade_stored, graded_mutant
from tests.grading.test_fair_round30 import _code_score, _failed

CORRECT = SUBMISSIONS / "correct"
# (the round's new styles get full marks and no review finding: test_fair_styles_round38)


# A fault put into a new style loses points in its category: the checks can fail on these styles.
MUTANTS = {
    # the stable softmax over the queries
    "dalle_stable_softmax_dim_2": ("dalle_pytorch_stable_softmax", "return (t * alpha).softmax(dim=dim)",
                                   "return (t * alpha).softmax(dim=-2)", "formula_shape"),
    # LayoutLMv3 divides the query, not the scores: without it there is no scale
    "layoutlmv3_query_not_scaled": ("hf_layoutlmv3_cogview", "torch.matmul(query_layer / math.sqrt(attention_head_size),",
                                    "torch.matmul(query_layer,", "formula_shape"),
    # the head-major fold unfolded batch-major: heads and samples mixed
    "sooftware_unfold_batch_major": ("sooftware_attentions_head_major",
                                     "context = context.view(num_heads, batch_size, q_len, d_value).transpose(0, 1)",
                                     "context = context.view(batch_size, num_heads, q_len, d_value)", "implementation"),
    # phi's mask keeps True: the lab's True (padding) kept instead
    "phi_padding_inverted": ("phi_mixformer_selfattention", "padding_mask.masked_fill_(keep, 0.0)",
                             "padding_mask.masked_fill_(key_padding_mask, 0.0)", "mask_parity"),
    # bert4torch's (1 - mask) left out: the keys to keep are blocked
    "bert4torch_keep_blocked": ("bert4torch_multihead_layer", "pad = (1.0 - keep) * torch.finfo(x.dtype).min",
                                "pad = keep * torch.finfo(x.dtype).min", "mask_parity"),
    # StarCoder's alpha left at 1: no scale
    "bigcode_alpha_one": ("hf_gpt_bigcode_attn", "beta=beta, alpha=scale_factor)", "beta=beta, alpha=1)",
                          "formula_shape"),
    # YOLO's channels-first product without its transpose: the values weighted by the keys' axis
    "ultralytics_attn_not_transposed": ("ultralytics_psa_channels_first", "x = v @ attn.transpose(-2, -1)",
                                        "x = v @ attn", "formula_shape"),
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "old", "new", "category"), MUTANTS.values(), ids=MUTANTS.keys())
def test_a_fault_in_a_new_style_loses_points_in_its_category(executor, name, old, new, category):
    result = graded_mutant(executor, CORRECT / f"{name}.py", old, new)
    assert result["categories"][category]["score"] < result["categories"][category]["max"], _failed(result)


# ------------------------------------------------------------------ torch.set_default_dtype(torch.float64) at import
REFERENCE = (CORRECT / "reference.py").read_text(encoding="utf-8")
IMPORTS = "from torch import Tensor, nn\n"
SCALED = "scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])"


def _float64_default(extra: str = "", scaled: str = SCALED) -> str:
    assert REFERENCE.count(IMPORTS) == 1 and REFERENCE.count(SCALED) == 1
    return REFERENCE.replace(IMPORTS, IMPORTS + "\ntorch.set_default_dtype(torch.float64)\n" + extra).replace(
        SCALED, scaled)


@pytest.mark.parametrize("extra", ["", "SCALE = torch.tensor(1.0)\n"], ids=["default_only", "a_0_dim_tensor_built"])
def test_a_float64_default_set_at_import_keeps_full_marks_and_float32_results(executor, extra):
    """The defaults are put back after the import: the modules the grader builds are float32, and float32 inputs give
    float32 results (test_dtype_preserved checks it; it passed). A 0-dim float64 tensor does not promote a float32
    one, so a scale built at import changes nothing."""
    scaled = SCALED + " * SCALE" if extra else SCALED
    result = grade_stored(executor, _float64_default(extra, scaled))
    assert _failed(result) == {} and _code_score(result) == 85, _failed(result)
    assert next(t for t in result["tests"] if t["id"] == "test_dtype_preserved")["outcome"] == "passed"


def test_a_tensor_built_at_import_under_the_float64_default_loses_the_points_and_is_traced_to_that_line(executor):
    """A 1-element tensor built under the float64 default promotes the float32 scores to float64: float32 inputs
    then fail (PyTorch refuses the float64 weights times the float32 values), and the feedback names the line that set
    the default."""
    source = _float64_default("ONE = torch.ones(1)\n", SCALED.replace(" / math", " * ONE / math"))
    line = source.splitlines().index("torch.set_default_dtype(torch.float64)") + 1
    result = grade_stored(executor, source)
    assert _code_score(result) < 85
    dtype = _failed(result)["test_dtype_preserved"]
    assert f"the file writes float64 at line {line} (torch.float64)" in dtype["en"], dtype
    assert f"而文件在第 {line} 行" in dtype["zh"] and "写出了 float64" in dtype["zh"], dtype
