"""The grader version follows everything that grades (round 31). It was the suite's declared string
("attention-suite 1.0", never bumped) plus a hash of the suite folder's top-level ``*.py``, rubric.yaml and
audit.yaml: an edited handout (what the audit checker calls copied), pytest.ini, or a feedback text of the
engine (grading/proxy.py) or the audit checker (rubric/audit/) graded differently under the same version,
and the dashboard's "graded with an older version" count and the regrade reports could not tell."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from grading import suite_state as state_mod
from grading.suite_state import SHARED_CODE, _files_under, grader_version, shared_code_digest
from rubric.loader import RUBRIC_ROOT, SUITE_ROOT

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def suite_copy():
    """A copy of the NumPy lab's suite and rubric under a new assignment name (removed afterwards)."""
    name = f"numpy_copy_{uuid.uuid4().hex[:8]}"
    suite, rubric = SUITE_ROOT / name, RUBRIC_ROOT / name
    shutil.copytree(SUITE_ROOT / "attention_numpy", suite, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(RUBRIC_ROOT / "attention", rubric)       # for the handout the audit checker reads
    shutil.copy(RUBRIC_ROOT / "attention_numpy" / "rubric.yaml", rubric / "rubric.yaml")
    rubric_file = rubric / "rubric.yaml"
    rubric_file.write_text(rubric_file.read_text().replace("assignment: attention_numpy", f"assignment: {name}", 1))
    try:
        yield name, suite, rubric
    finally:
        state_mod._states.pop(name, None)
        shutil.rmtree(suite, ignore_errors=True)
        shutil.rmtree(rubric, ignore_errors=True)


def _edit(path: Path, extra: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")


def test_an_edited_handout_or_pytest_ini_is_a_new_grader_version(suite_copy):
    name, suite, rubric = suite_copy
    first = grader_version(name)
    _edit(rubric / "handout" / "lesson2_attention_handout_and_lab.txt", "\nA sentence the instructor added.\n")
    second = grader_version(name)
    assert second != first
    _edit(suite / "pytest.ini", "\n# the instructor's note\n")
    third = grader_version(name)
    assert third not in (first, second)
    assert grader_version(name) == third          # nothing changed: the same version


def test_the_assignment_page_is_no_part_of_the_version(suite_copy):
    name, suite, _ = suite_copy
    first = grader_version(name)
    for page in ("ASSIGNMENT.zh.md", "ASSIGNMENT.en.md"):    # one page per language (round 32)
        _edit(suite / page, "\nA typo fixed.\n")
        assert grader_version(name) == first


def test_the_version_covers_the_engines_and_the_audit_checkers_feedback_texts():
    covered = {p.relative_to(ROOT).as_posix() for root, pattern in SHARED_CODE for p in _files_under(root, pattern)}
    for path in ("grading/proxy.py", "grading/child.py", "grading/i18n.py", "grading/load_hints.py",
                 "grading/sandbox/runtime.py", "rubric/scoring.py", "rubric/audit/text.py", "rubric/audit/checklist.py"):
        assert path in covered, path


def test_a_change_of_the_shared_code_is_a_new_version(suite_copy, tmp_path, monkeypatch):
    name, _, _ = suite_copy
    code = tmp_path / "engine"
    code.mkdir()
    (code / "texts.py").write_text('NOT_RUN = "not run"\n')
    roots = ((code, "**/*.py"),)
    before = shared_code_digest(roots)
    (code / "texts.py").write_text('NOT_RUN = "not run: the budget was spent"\n')
    shared_code_digest.cache_clear()
    assert shared_code_digest(roots) != before
    shared_code_digest.cache_clear()

    first = grader_version(name)
    state_mod._states.pop(name)                   # the engine changed: a restarted worker
    monkeypatch.setattr(state_mod, "shared_code_digest", lambda: "another engine")
    assert grader_version(name) != first
