"""Round 32: the import's and each call's time limits count the jail's CPU seconds (a loaded host does
not inflate them), with a wall backstop; what the student reads says which limit was met, in zh and en.
Before, at load average 13-20, a correct file whose import used ~1 s of CPU met the 3 s wall limit of
the import and scored 0."""

from __future__ import annotations

import re

import pytest

from grading.proxy import load_error_text
from grading.sandbox import StudentTimeout
from tests.sandbox.test_sandbox_cpu_limits_round32 import SPIN, cpu_hogs

_ENGLISH = re.compile(r"(?<![`\w])[a-z]{2,}(?![`\w])")     # a lower-case ASCII word outside code


def test_an_import_stopped_at_its_cpu_limit_says_cpu_time_in_both_languages():
    text = load_error_text(StudentTimeout(3, "import", clock="cpu"), "attention.py")
    assert text["en"] == "stopped after using 3 s of CPU time, the limit, while importing attention.py"
    assert text["zh"] == "导入 attention.py 时用完了 3 秒的 CPU 时间上限，已被终止"
    assert not _ENGLISH.findall(text["zh"].replace("attention.py", ""))


def test_an_import_stopped_at_the_wall_backstop_says_wall_clock_time_in_both_languages():
    text = load_error_text(StudentTimeout(9, "import"), "attention.py")
    assert text["en"] == "timed out after 9 s of wall-clock time while importing attention.py"
    assert text["zh"] == "导入 attention.py 超时（实际经过 9 秒）"
    assert "CPU" not in text["en"] and "CPU" not in text["zh"]


@pytest.mark.slow   # ~6 s: a grading whose import spins 1 s of CPU beside CPU hogs
def test_a_correct_file_whose_import_uses_a_second_of_cpu_grades_in_full_beside_cpu_hogs(executor):
    from tests.grading.helpers import SUBMISSIONS
    from tests.grading.helpers import grade_stored as _grade

    correct = (SUBMISSIONS / "correct" / "reference.py").read_text()
    honest = _grade(executor, correct)["total"]
    # The shared executor's import limit is 3 s; beside 3 hogs a core the import took 4-6 s of wall
    # time and the file "timed out after 3 s while importing" (0 points).
    with cpu_hogs(3):
        result = _grade(executor, SPIN.format(seconds=1.0) + correct)
    assert result["load_error"] is None, result["load_error"]
    assert result["status"] == "graded" and result["total"] == honest, [
        (t["id"], t["feedback"]) for t in result["tests"] if t["outcome"] != "passed"]


@pytest.mark.parametrize("value", [0, 0.5])
def test_a_wall_backstop_shorter_than_the_cpu_limit_stops_the_start(value):
    from autograder import settings

    with pytest.raises(settings.SettingsError, match="WALL_BACKSTOP"):
        settings.check({"WALL_BACKSTOP": value})
    settings.check({"WALL_BACKSTOP": 1})
