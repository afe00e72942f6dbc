"""Round 24's corpus files graded through the whole grader (see test_hints_round24.py for the fault models).

1. A module that changes the caller's tensors in place (``additive_mask.clamp_(min=-1e9)``,
   ``additive_mask.masked_fill_(pad, -inf)`` in the wrapper, ``k.transpose_(-2, -1)``) kept 85: the jail
   receives copies. The jail's call handler now compares each tensor argument before and after the call;
   test_deterministic (a result that depends on an earlier call) loses its 2 points, with the argument and
   the line. 2. A causal mask off by one and a scale by sqrt(Nk) / sqrt(H * dk) are named in their files.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import diagnose
from tests.grading.helpers import SUBMISSIONS, graded_corpus_file, says

FAULTY = SUBMISSIONS / "faulty"
pytestmark = pytest.mark.slow      # seven files graded: about 7 s each on a loaded host


def _failed(executor, name: str) -> dict:
    return {t["id"]: t["feedback"] for t in graded_corpus_file(executor, FAULTY / f"{name}.py")["tests"]
            if t["outcome"] != "passed"}


@pytest.mark.parametrize("name, call, arg, line", [
    ("sdpa_mask_clamped_in_place", "ScaledDotProductAttention.forward", "additive_mask",
     "line 19 changes additive_mask in place; compute a new tensor instead: additive_mask = additive_mask.clamp("),
    ("mha_padding_into_caller_mask", "MultiHeadAttention.forward", "additive_mask",
     "line 50 changes additive_mask in place; compute a new tensor instead: additive_mask = "
     'additive_mask.masked_fill(pad, float("-inf"))'),
    ("k_transposed_in_place", "ScaledDotProductAttention.forward", "k", "line 15 changes k in place")])
def test_a_call_that_changes_the_callers_tensors_in_place_loses_the_determinism_test(executor, name, call, arg, line):
    failed = _failed(executor, name)
    fb = failed["test_deterministic"]
    assert fb["en"].startswith(f"{call} changed the tensor {arg} it was given, in place"), fb
    assert line in fb["en"], fb
    assert fb["zh"].startswith(f"{call} 原地（in-place）修改了传入的 tensor {arg}"), fb
    assert set(failed) <= {"test_deterministic", "test_gradients_match_reference"}, failed


@pytest.mark.parametrize("name, fault, where", [
    ("causal_mask_diagonal_blocked", "causal_diagonal", "test_weights_parity_reference"),
    ("causal_mask_one_ahead", "causal_ahead", "test_weights_parity_reference"),
    ("scale_by_key_count", "scale_nk", "test_weights_parity_reference"),
    ("scale_by_d_model", "scale_heads_dk", "test_weights_parity_reference"),
    # 4. new faulty files whose mistake had no model: the heads concatenated in reverse, the mask added to the weights
    ("mha_heads_concat_reversed", "merge_heads_reversed", "test_mha_self_attention_parity"),
    ("mask_added_after_softmax", "mask_added_after_softmax", "test_additive_mask_parity")])
def test_the_new_fault_models_are_named_in_their_files(executor, name, fault, where):
    failed = _failed(executor, name)
    named = [tid for tid, fb in failed.items() if diagnose.FAULTS[fault]["en"] in fb["en"]
             and diagnose.FAULTS[fault]["zh"] in fb["zh"]]
    assert where in named and len(named) >= 3, named


@pytest.mark.parametrize("name, said", [("k_transpose_1_2_on_4d", "line 16 multiplies by k.transpose(1, 2), which swaps"),
                                        ("k_T_on_4d", "line 16 multiplies by k.T, which reverses")])
def test_a_key_transposed_on_the_wrong_axes_is_explained_where_pytorch_only_gives_sizes(executor, name, said):
    result = graded_corpus_file(executor, FAULTY / "raises" / f"{name}.py")
    raised = [t["feedback"] for t in result["tests"] if t["outcome"] != "passed" and "raised" in t["feedback"]["en"]]
    assert len(raised) >= 10
    for fb in raised:
        assert says(said, fb["en"]) and "请用 .transpose(-2, -1) 交换最后两个维度" in fb["zh"], fb
