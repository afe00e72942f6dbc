"""Rerunning grading after an instructor fixes a test runs the fixed test, labelled with a new
grader version, in the same long-lived worker process (no restart)."""

from __future__ import annotations

import shutil
import uuid

import pytest

from grading.runner import GradeInput, grade
from rubric.loader import RUBRIC_ROOT, SUITE_ROOT
from tests.grading.helpers import SUBMISSIONS

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_bytes()


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_an_edited_test_is_picked_up_with_a_new_grader_version(executor):
    name = f"attention_copy_{uuid.uuid4().hex[:8]}"
    suite, rubric = SUITE_ROOT / name, RUBRIC_ROOT / name
    shutil.copytree(SUITE_ROOT / "attention", suite, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(RUBRIC_ROOT / "attention", rubric)
    rubric_file = rubric / "rubric.yaml"
    rubric_file.write_text(rubric_file.read_text().replace("assignment: attention", f"assignment: {name}", 1))
    try:
        before = grade(GradeInput(code=CORRECT), name, executor)
        assert before["status"] == "graded" and before["total"] == 85

        # The instructor "fixes" a test: here it now demands something no submission does.
        path = suite / "test_formula_shape.py"
        source = path.read_text()
        marker = "def test_sdpa_interface("
        assert marker in source
        path.write_text(source.replace(
            marker, "def test_sdpa_interface(student):\n    expect(False, 'edited by the instructor')\n\n\n"
            "def _old_sdpa_interface(", 1))

        after = grade(GradeInput(code=CORRECT), name, executor)
        assert after["status"] == "graded", after["message"]
        assert after["grader_version"] != before["grader_version"]
        edited = next(t for t in after["tests"] if t["id"] == "test_sdpa_interface")
        assert edited["outcome"] == "failed" and edited["feedback"]["en"] == "edited by the instructor"
        assert after["total"] == before["total"] - edited["max_points"]
    finally:
        shutil.rmtree(suite, ignore_errors=True)
        shutil.rmtree(rubric, ignore_errors=True)
