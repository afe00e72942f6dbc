"""The NumPy lab (grader_tests/attention_numpy): the course page's code as printed gets full marks,
and each one-line fault of that code loses points in the category the page puts it in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grading.i18n import is_msg, pick
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

# The NumPy lab's own executor and gradings take about a minute here: slow lane (stop 40, fast lane < 10 min).
pytestmark = pytest.mark.slow

PAGE_CODE = SUBMISSIONS / "numpy" / "course_page.py"
SEED = Path("/work/shared/seeds/attention_qkv_course_page.txt")
CATEGORIES = {"stable_softmax": 20, "scaled_scores": 25, "weights_context": 25, "causal_mask": 30}


def _grade(executor, source: str, **kw) -> dict:
    return grade(GradeInput(code=source.encode(), **kw), "attention_numpy", executor)


def _failed(result: dict) -> set[str]:
    return {t["id"] for t in result["tests"] if t["outcome"] != "passed"}


def _failures(result: dict) -> str:
    return "\n".join(f"{t['id']}: {t['outcome']}: {pick(t['feedback'], 'en')}" for t in result["tests"]
                     if t["outcome"] != "passed")


@pytest.mark.skipif(not SEED.exists(), reason="the course seed text is not on this machine")
def test_fixture_is_the_course_page_code_as_printed():
    text = SEED.read_text(encoding="utf-8")
    block = text[text.index("import numpy as np"):text.index("04 / 案例")].rstrip() + "\n"
    assert PAGE_CODE.read_text(encoding="utf-8").rstrip() + "\n" == block


def test_course_page_code_gets_full_marks(executor):
    result = _grade(executor, PAGE_CODE.read_text(encoding="utf-8"))
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 100 and result["max_total"] == 100, _failures(result)
    assert {k: v["max"] for k, v in result["categories"].items()} == CATEGORIES
    assert result["audit"] is None and result["message"] is None
    assert result["measurements"]["max_abs_error"] < 1e-9
    assert result["measurements"]["row_sum_error"] < 1e-12
    assert "policy" in result["log"], "the page's demo printout is kept for the instructor log"


def _variant(old: str, new: str) -> str:
    source = PAGE_CODE.read_text(encoding="utf-8")
    assert source.count(old) == 1, old
    return source.replace(old, new)


# name: (line of the page code, its faulty replacement, category that must lose points,
#        tests that must fail (None: not pinned), a phrase the visible feedback contains)
FAULTS = {
    "no_max_subtraction": (
        "    a = a - np.max(a, axis=axis, keepdims=True)\n", "",
        "stable_softmax", {"test_softmax_large_inputs_are_stable", "test_attention_is_stable_for_large_scores"},
        "subtract the row maximum"),
    "softmax_ignores_axis": (
        "    return exp / exp.sum(axis=axis, keepdims=True)", "    return exp / exp.sum(axis=-1, keepdims=True)",
        "stable_softmax", {"test_softmax_honours_axis"}, "column sums"),
    "no_scale": (
        "scores = (Q @ K.T) / np.sqrt(d_k)", "scores = Q @ K.T",
        "scaled_scores", {"test_scores_are_query_key_dot_products", "test_scores_scaled_by_sqrt_dk",
                          "test_scale_keeps_score_variance_near_one"},
        "without dividing by sqrt(d_k)"),
    "scale_by_d_model": (
        "    d_k = Q.shape[-1]", "    d_k = X.shape[-1]",
        "scaled_scores", {"test_scores_are_query_key_dot_products", "test_scores_scaled_by_sqrt_dk",
                          "test_scale_keeps_score_variance_near_one"},
        "sqrt(d_model)"),
    "qk_swapped": (
        "scores = (Q @ K.T) / np.sqrt(d_k)", "scores = (K @ Q.T) / np.sqrt(d_k)",
        "scaled_scores", None, "Q and K are swapped"),
    "softmax_over_queries": (
        "weights = softmax(scores, axis=-1)", "weights = softmax(scores, axis=0)",
        "weights_context", None, "columns sum to 1 instead of the rows"),
    "context_from_keys": (
        "    context = weights @ V", "    context = weights @ K[:, :V.shape[1]]",
        "weights_context", None, "context"),
    "mask_inverted": (
        "scores = np.where(mask, scores, -1e9)", "scores = np.where(mask, -1e9, scores)",
        "causal_mask", None, "future tokens"),
    "mask_after_softmax": (
        "    if mask is not None:\n        scores = np.where(mask, scores, -1e9)\n\n    weights = softmax(scores, axis=-1)\n",
        "    weights = softmax(scores, axis=-1)\n    if mask is not None:\n        weights = weights * mask\n",
        "causal_mask", None, "no longer sum to 1"),
    "mask_ignored": (
        "scores = np.where(mask, scores, -1e9)", "scores = scores",
        "causal_mask", None, "future tokens"),
    "torch_softmax": (
        "    weights = softmax(scores, axis=-1)\n",
        "    import torch\n    weights = torch.softmax(torch.from_numpy(scores), dim=-1).numpy()\n",
        "weights_context", {"test_written_with_numpy"}, "torch.softmax"),
}


# Faults that touch one behaviour only: nothing else may fail.
NARROW = {"no_max_subtraction", "softmax_ignores_axis", "torch_softmax"}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_fault_of_the_page_code_loses_points_in_its_category(executor, name):
    old, new, category, must_fail, phrase = FAULTS[name]
    result = _grade(executor, _variant(old, new))
    assert result["status"] == "graded", result["message"]
    cats = result["categories"]
    assert cats[category]["score"] < cats[category]["max"], _failures(result)
    assert 0 < result["total"] < 100, _failures(result)
    if must_fail is not None:
        assert must_fail <= _failed(result), _failures(result)
    if name in NARROW:
        assert _failed(result) == must_fail, "a narrow fault costs exactly its own tests"
    shown = " ".join(pick(t["feedback"], "en") for t in result["tests"] if not t["hidden"])
    assert phrase in shown, _failures(result)
    for t in result["tests"]:
        if t["outcome"] != "passed" and not t["hidden"]:
            assert is_msg(t["feedback"]), f"{t['id']}: feedback in English and Chinese"
            for lang in ("en", "zh"):
                text = t["feedback"][lang]
                assert text and "Traceback" not in text and "/work/" not in text
            assert t["feedback"]["en"] != t["feedback"]["zh"], "the Chinese text is a translation"


@pytest.mark.parametrize("source, expect", [
    ("import numpy as np\ndef softmax(a, axis=-1)\n    return a\n", "SyntaxError at line 2"),
    ("import numpy as np\n\ndef softmax(a, axis=-1):\n    return a\n", "does not define scaled_dot_attention"),
    ("import numpy as np\n\ndef softmax(a, axis=-1):\n    return np.exp(a) / np.exp(a).sum(axis, keepdims=True)\n\n"
     "def scaled_dot_attention(X, Wq, Wk, Wv, mask=None):\n    return X @ Wv\n", "must return a tuple"),
    ("import numpy as np\n\ndef softmax(a, axis=-1):\n    return a.tolist()\n\n"
     "def scaled_dot_attention(X, Wq, Wk, Wv, mask=None):\n    return [X, X, X]\n", "should be a NumPy array"),
], ids=["syntax", "missing-function", "not-a-tuple", "not-arrays"])
def test_broken_submissions_get_actionable_feedback(executor, source, expect):
    result = _grade(executor, source)
    assert result["status"] == "graded", result["message"]
    assert result["total"] < 100
    text = pick(result["message"], "en") + " ".join(pick(t["feedback"], "en") for t in result["tests"])
    assert re.search(re.escape(expect), text), _failures(result)


def test_an_audit_sent_to_an_assignment_without_audit_is_not_read(executor):
    result = _grade(executor, PAGE_CODE.read_text(encoding="utf-8"), audit=b"# notes\nweights", audit_filename="a.md")
    assert result["status"] == "graded" and result["total"] == 100
    assert result["audit"] is None and "no written audit" in result["message"]["en"]
    assert "没有审计文字" in result["message"]["zh"]
