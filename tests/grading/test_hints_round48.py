"""Round 48 (brief D): hints that tell the truth.

1. Padding handled on one of the two results only (the returned weights before the padding mask while the output is
   computed with it, or the reverse; the padding keys' weights zeroed after the softmax for the returned weights only;
   the padding tokens' output rows zeroed while the scores stay unmasked) was graded with a distance or "padding keys
   get weight up to X" and no hint. Now, when the output and the weights each are one of these computations and the
   output is not the one the returned weights give (``diagnose._padding_apart``, checked on the probe too), what each
   is is said, then the fix (``pad_weights_output_apart``), in en and zh.
2. Hunt: 32 faulty multi-head files written as students err (tests/fixtures/submissions/faulty/r48d_*.py, each with its
   ``# diagnosis:``), and 12 correct-but-unusual ones (correct/r48d_*.py) that must get no hint and full marks. Every
   hint was read against its code; none contradicted it (a one-head module whose queries are divided by
   sqrt(d_model) and again by sqrt(head_dim) is told "divided by dk (or by sqrt(dk) twice)": with one head the two
   are the same number, so the hint is what the code does). test_fair_corpus.py grades them with the main corpus too.
"""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from tests.grading.helpers import (
    SUBMISSIONS,
    code_names,
    declared_diagnoses,
    english_in_zh,
    graded_corpus_file,
    named_in,
)
from tests.grading.test_padding_fill_round41 import PAD8
from tests.grading.test_padding_fill_round45 import CTX, PARAMS, D, H

APART = diagnose.FAULTS["pad_weights_output_apart"]
FAULTY = sorted((SUBMISSIONS / "faulty").glob("r48d_*.py"))
CORRECT = sorted((SUBMISSIONS / "correct").glob("r48d_*.py"))


def _variants() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    right = C.mha_variant(PARAMS, H, D // H, CTX, None, None, PAD8)
    unpadded = C.mha_variant(PARAMS, H, D // H, CTX, None, None, PAD8, "pad_ignored")
    assert right is not None and unpadded is not None
    zeroed = unpadded[1].masked_fill(PAD8[:, None, None, :], 0.0)
    rows_zeroed = unpadded[0].masked_fill(PAD8[:, :, None], 0.0)
    return {"output_right_weights_unpadded": (right[0], unpadded[1]),
            "output_unpadded_weights_right": (unpadded[0], right[1]),
            "output_unpadded_weights_zeroed": (unpadded[0], zeroed),
            "output_rows_zeroed_weights_unpadded": (rows_zeroed, unpadded[1]),
            "right": right, "padding_ignored": unpadded}


SEEN = {
    "output_right_weights_unpadded": (
        ["the output is the right one (the padding keys blocked)",
         "the returned weights equal those computed without key_padding_mask (the padding keys get weight up to 0.919)"],
        ["输出是正确的（padding key 已被屏蔽）", "返回的权重与不使用 key_padding_mask 计算的权重一致（padding key 的权重最大为 0.919）"]),
    "output_unpadded_weights_right": (
        ["the output equals the one computed without key_padding_mask (the padding keys read)",
         "the returned weights are the right ones (0 on the padding keys)"],
        ["输出与不使用 key_padding_mask 计算的结果一致", "返回的权重是正确的（padding key 上为 0）"]),
    "output_unpadded_weights_zeroed": (
        ["the output equals the one computed without key_padding_mask",
         "with the padding keys' weights then set to 0 (rows summing to as little as 0.061)"],
        ["输出与不使用 key_padding_mask 计算的结果一致", "之后再把 padding key 的权重置 0 的结果一致（行和最小为 0.061）"]),
    "output_rows_zeroed_weights_unpadded": (
        ["with the padding tokens' output rows then set to 0", "the padding keys get weight up to 0.919"],
        ["之后再把 padding token 的输出行置 0 的结果一致", "padding key 的权重最大为 0.919"]),
}


@pytest.mark.parametrize("name", sorted(SEEN))
def test_padding_applied_to_the_output_or_the_weights_only_is_said_as_each_is_seen_with_the_fix(name):
    out, w = _variants()[name]
    said = diagnose.mha(out.float(), w.float(), PARAMS, H, D // H, CTX, None, None, PAD8)
    assert said is not None, name
    en, zh = said["en"], said["zh"]
    assert APART["en"] in en and APART["zh"] in zh, en
    seen_en, seen_zh = SEEN[name]
    assert all(s in en for s in seen_en) and all(s in zh for s in seen_zh), (en, zh)
    assert english_in_zh(zh, frozenset({"key_padding_mask", "padding", "key", "token", "softmax", "score",
                                        "out", "weights", "v"})) == [], zh


@pytest.mark.parametrize("name", ["right", "padding_ignored"])
def test_results_of_one_computation_are_not_said_apart(name):
    out, w = _variants()[name]
    said = diagnose.mha(out.float(), w.float(), PARAMS, H, D // H, CTX, None, None, PAD8)
    assert said is None or APART["en"] not in said["en"], said


def test_without_padding_in_the_case_nothing_is_said_apart():
    # no key padded: the right and the unpadded computations are one, so which one each result is cannot be seen
    # (both results are "right" then; the "no padding read" guard itself is tested by test_hints_mend_round48.py)
    none = torch.zeros_like(PAD8)
    right = C.mha_variant(PARAMS, H, D // H, CTX, None, None, none)
    assert right is not None
    said = diagnose.mha(right[0].float(), (right[1] * 0.5).float(), PARAMS, H, D // H, CTX, None, None, none)
    assert said is None or APART["en"] not in said["en"], said


def test_mask_after_softmax_results_are_not_said_apart():
    # weights zeroed on the padding keys and the output from those very weights: not apart (mask_after_softmax's own;
    # its output is none of the labelled ones, so the merge check is not reached: test_hints_mend_round48.py tests it)
    right = C.mha_variant(PARAMS, H, D // H, CTX, None, None, PAD8, "mask_after_softmax")
    assert right is not None
    said = diagnose.mha(right[0].float(), right[1].float(), PARAMS, H, D // H, CTX, None, None, PAD8)
    assert said is None or APART["en"] not in said["en"], said


def test_the_round_48_corpus_has_30_faulty_and_10_correct_files_each_faulty_one_declaring_its_diagnosis():
    assert len(FAULTY) >= 30 and len(CORRECT) >= 10
    for path in FAULTY:
        assert declared_diagnoses(path), path.name
    assert sum(declared_diagnoses(p) == ["pad_weights_output_apart"] for p in FAULTY) == 4


@pytest.mark.slow
@pytest.mark.parametrize("path", FAULTY, ids=[p.stem for p in FAULTY])
def test_a_round_48_faulty_file_is_named_as_declared_and_no_zh_hint_keeps_english(executor, path):
    result = graded_corpus_file(executor, path)
    assert result["status"] == "graded" and result["total"] < 85, path.name
    named, declared = named_in(result), declared_diagnoses(path)
    if declared == ["none"]:
        assert named == {}, named
    else:
        assert declared[0] in named and set(named) <= set(declared), (declared, named)
    code = code_names(path.read_text(encoding="utf-8"))
    for test in result["tests"]:
        if test["outcome"] != "passed" and isinstance(test["feedback"], dict):
            assert english_in_zh(test["feedback"]["zh"], code) == [], (test["id"], test["feedback"]["zh"])


@pytest.mark.slow
@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_a_round_48_correct_but_unusual_file_gets_full_marks_and_no_hint(executor, path):
    result = graded_corpus_file(executor, path)
    assert result["status"] == "graded" and result["total"] == 85, path.name
    assert all(t["outcome"] == "passed" for t in result["tests"]), [t["id"] for t in result["tests"]
                                                                  if t["outcome"] != "passed"]
