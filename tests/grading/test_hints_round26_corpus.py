"""Round 26's multi-head bugs that no fault model names (tests/fixtures/submissions/faulty/described/): graded
with the guarantees the main corpus gets in the fast lane (test_grading.py, test_fair_corpus.py), here in the
slow lane (about 0.4 s a file): each loses points in its category and keeps part of the code points, every
failed test says something without a traceback, no mistake is named (the feedback describes what was seen),
and the Chinese text is Chinese with the English text's numbers. The diagnosed files of round 26 are in the
main corpus."""

from __future__ import annotations

import re

import pytest

from grading.i18n import is_msg
from tests.grading.helpers import (
    SUBMISSIONS,
    code_names,
    english_in_zh,
    expected_category,
    graded_corpus_file,
    named_faults,
)

DESCRIBED = sorted((SUBMISSIONS / "faulty" / "described").glob("*.py"))
CODE_CATEGORIES = ("formula_shape", "implementation", "mask_parity")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")
pytestmark = pytest.mark.slow


def test_the_described_corpus_declares_no_diagnosis():
    assert len(DESCRIBED) >= 15
    for path in DESCRIBED:
        assert path.read_text(encoding="utf-8").splitlines()[1] == "# diagnosis: none", path.name


@pytest.mark.parametrize("path", DESCRIBED, ids=[p.stem for p in DESCRIBED])
def test_a_described_bug_loses_points_and_is_described_in_both_languages_without_a_name(executor, path):
    result = graded_corpus_file(executor, path)
    assert result["status"] == "graded", result["message"]
    cats = result["categories"]
    category = expected_category(path)
    assert cats[category]["score"] < cats[category]["max"], f"{path.stem} kept full {category}"
    assert 20 <= sum(cats[c]["score"] for c in CODE_CATEGORIES) < 85
    code = code_names(path.read_text(encoding="utf-8"))
    named, english, numbers = {}, {}, {}
    for t in result["tests"]:
        fb = t["feedback"]
        if t["outcome"] == "passed":
            continue
        assert is_msg(fb) and fb["en"] and "Traceback" not in fb["en"] and "/work/" not in fb["en"], (t["id"], fb)
        for key in named_faults(fb):
            named.setdefault(key, []).append(t["id"])
        if left := english_in_zh(fb["zh"], code):
            english[t["id"]] = (left, fb["zh"])
        if sorted(_NUMBER.findall(fb["en"])) != sorted(_NUMBER.findall(fb["zh"])):
            numbers[t["id"]] = fb
    assert named == {} and english == {} and numbers == {}, (named, english, numbers)


def test_a_module_kept_as_its_class_is_explained_in_the_graded_feedback(executor):
    result = graded_corpus_file(executor, SUBMISSIONS / "faulty" / "described" / "mha_attention_class_not_instance.py")
    failed = [t["feedback"] for t in result["tests"] if t["outcome"] != "passed"]
    assert len(failed) >= 8
    for fb in failed:
        assert "self.attention holds the class ScaledDotProductAttention itself (line 41: self.attention = " \
               "ScaledDotProductAttention, without parentheses), so line 68 calls the class" in fb["en"], fb["en"]
        assert "应在 __init__ 中创建一次模块：self.attention = ScaledDotProductAttention()" in fb["zh"], fb["zh"]
