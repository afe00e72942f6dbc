"""Round 40 (issue 14 item 1): a jail is built for the grading that uses it, when that grading asks for it.

A jail built ahead, while the worker sits idle (to take its build and its copy-on-write faults off a grading's wall
time: ``bench/prepared_warm.py``), carries its age into the student's code: at the import it reads how long ago its
process started (``/proc/self/stat`` against ``CLOCK_BOOTTIME``) and how long ago its root, ``/tmp`` and
``/tmp/work`` were made (their ctimes). Those ages would say how long the worker was idle, and, for a hidden tests'
jail built beside the visible tests', which session the code runs in (``GradingPlugin._want_prepared``). Each age is
checked here after the worker sat idle for longer than any jail's build takes."""

from __future__ import annotations

import ast
import time

from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

IDLE_S = 1.5

OBSERVE = r'''

def _ages():
    import os as _os, time as _time
    stat = open("/proc/self/stat").read().rpartition(")")[2].split()
    ages = {"process": _time.clock_gettime(_time.CLOCK_BOOTTIME) - int(stat[19]) / _os.sysconf("SC_CLK_TCK")}
    now = _time.time()
    for path in ("/", "/tmp", "/tmp/work"):
        ages[path] = now - _os.stat(path).st_ctime
    return ages


print("AGES", repr(_ages()))
'''


def _ages(result: dict) -> list[dict[str, float]]:
    return [ast.literal_eval(line.split("AGES ", 1)[1]) for line in result["log"].splitlines() if "AGES " in line]


def test_a_jails_age_at_the_import_does_not_tell_how_long_the_worker_was_idle(executor):
    code = ((SUBMISSIONS / "correct" / "reference.py").read_text() + OBSERVE).encode()
    grade(GradeInput(code=code), "attention", executor)      # warm: the next grading finds everything as a worker does
    time.sleep(IDLE_S)                                          # the worker idle, as between two uploads
    result = grade(GradeInput(code=code), "attention", executor)
    assert result["status"] == "graded", result["message"]
    seen = _ages(result)
    assert len(seen) >= 2, result["log"][-2000:]               # the visible tests' session and the hidden tests'
    for ages in seen:
        assert set(ages) == {"process", "/", "/tmp", "/tmp/work"}, ages
        for what, age in ages.items():
            # built when its session was opened: its age is the grading's, never the idle time before it
            assert 0 <= age < IDLE_S / 2, (what, age, seen)
