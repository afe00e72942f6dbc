"""Round 46 (brief D 3): how far a failed import went is carried beside its load error as a flag
(``grading.proxy.load_seen``: ``RAN``, ``UNREAD`` or None), not read back off the error's English words (a prefix,
and a set of whole texts).

The words broke once anything was added to the load error: the runner appends what the source shows of the
contract's names (``load_note``) to it, and a file defining neither class whose jail's loop failed after its import
was headed "attention.py did not load: ..." (its words no longer one of the set's), though it had run."""

from __future__ import annotations

import pytest

from grading import runner
from grading.proxy import RAN, UNREAD, death_text, load_error_text, load_seen, not_loaded_text
from grading.runner import GradeInput, grade
from grading.sandbox.client import (
    INTERRUPTED_TEXT,
    SERVE_FAILED_TEXT,
    SandboxDied,
    StudentError,
    StudentTimeout,
)
from grading.suite_state import suite_state

UNREAD_EXC = StudentError("InvalidResult", "invalid reply from the sandbox: bad header: ValueError")


@pytest.mark.parametrize("exc, seen", [
    (UNREAD_EXC, UNREAD),
    (StudentError("InvalidResult", "mine", 3), None),           # the student's own, at a line of the file
    (StudentError("ValueError", "bad", 4), None),
    (SandboxDied(SERVE_FAILED_TEXT), RAN),
    (SandboxDied(INTERRUPTED_TEXT), RAN),
    (SandboxDied("the sandboxed process exited with code 3"), None),
    (StudentTimeout(2.0, "import"), None),
])
def test_how_far_a_failed_import_went_is_read_off_its_exception(exc, seen):
    assert load_seen(exc) == seen


def test_the_texts_of_tests_not_run_are_those_of_round_45_in_both_languages():
    assert not_loaded_text("attention.py", RAN) == {
        "en": "not run: attention.py ran, then its sandbox ended before any test could run",
        "zh": "未运行：attention.py 运行之后，其沙箱在任何测试运行之前就结束了"}
    assert not_loaded_text("attention.py", UNREAD) == {
        "en": "not run: the sandbox's reply to importing attention.py could not be read",
        "zh": "未运行：沙箱对导入 attention.py 的回复无法读取"}
    assert not_loaded_text("attention.py") == {"en": "not run: attention.py did not load",
                                               "zh": "未运行：attention.py 无法导入"}
    # the load errors themselves: the loop's end said as it is, the unread reply as what was seen
    assert load_error_text(SandboxDied(SERVE_FAILED_TEXT)) == death_text(SERVE_FAILED_TEXT)
    assert load_error_text(UNREAD_EXC)["en"].startswith("the sandbox's reply to importing attention.py could not be "
                                                        "read: invalid reply")


# Defines neither contract class (the runner's load_note then adds "Besides, ... defines neither ..."), and calls
# code at its top level (so it is run, not refused as defining nothing)
NO_CLASS = "import math\n\n\ndef attend(q, k, v):\n    return v\n\n\nSCALE = math.sqrt(64)\n"


def _graded_with(monkeypatch, load_error, seen) -> dict:
    tests = list(suite_state("attention").rubric.tests)
    report = {"load_error": load_error, "load_seen": seen, "collected": tests, "log": [],
              "outcomes": {t: {"outcome": "failed", "feedback": not_loaded_text("attention.py", seen)} for t in tests}}
    monkeypatch.setattr(runner, "run_suite", lambda *a, **k: dict(report))
    return grade(GradeInput(code=NO_CLASS.encode()), "attention", object())


def test_a_file_that_ran_is_headed_so_when_a_note_on_its_names_follows_the_load_error(monkeypatch):
    result = _graded_with(monkeypatch, death_text(SERVE_FAILED_TEXT), RAN)
    said = result["message"]
    assert said["en"].startswith("attention.py ran, but its sandbox ended before any test could run: "
                                 + SERVE_FAILED_TEXT), said["en"]
    assert "Besides, attention.py defines neither" in said["en"] and "did not load" not in said["en"]
    assert said["zh"].startswith("attention.py 已运行，但其沙箱在任何测试运行之前就结束了："), said["zh"]


def test_an_unread_reply_with_a_note_on_its_names_gets_no_head_of_did_not_load(monkeypatch):
    result = _graded_with(monkeypatch, load_error_text(UNREAD_EXC), UNREAD)
    said = result["message"]
    assert said["en"].startswith("the sandbox's reply to importing attention.py could not be read"), said["en"]
    assert "did not load" not in said["en"] and "Besides, attention.py defines neither" in said["en"]


def test_a_file_that_did_not_load_is_still_headed_so(monkeypatch):
    error = load_error_text(StudentError("ValueError", "bad", 9))
    result = _graded_with(monkeypatch, error, None)
    assert result["message"]["en"].startswith("attention.py did not load: ValueError at line 9: bad")
    assert result["message"]["zh"].startswith("attention.py 无法导入：")
