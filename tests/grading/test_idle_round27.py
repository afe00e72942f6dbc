"""Round 27: a submission whose code sits idle while the grader waits (a sleep in forward or at import,
a blocking read, a lock) holds a worker for seconds, not for the call timeouts of every session (15 s
for a forward that sleeps; ~40 s, the whole budget, for one that sleeps just under the timeout on
every call). The grading ends `graded` and says what was seen, in zh and en. Honest gradings run side
by side with CPU hogs are never cut."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

from grading.proxy import gave_up_text, idle_text, load_error_text
from grading.sandbox import StudentIdle
from tests.grading.helpers import SUBMISSIONS, english_in_zh, in_forward
from tests.grading.helpers import grade_stored as _grade

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()


@pytest.fixture
def real_limits(executor):
    """The executor with the service's call and import timeouts (5 s, 10 s; the fixture's are shorter)."""
    from grading.sandbox import Limits

    saved = executor.limits
    executor.limits = dataclasses.replace(saved, call_timeout=Limits.call_timeout, import_timeout=Limits.import_timeout,
                                          wall=Limits.wall, cpu=Limits.cpu)
    yield executor
    executor.limits = saved


def _timed(executor, code: str) -> tuple[dict, float]:
    t0 = time.monotonic()
    result = _grade(executor, code)
    return result, time.monotonic() - t0


def _said(result: dict) -> list[dict]:
    return [t["feedback"] for t in result["tests"] if t["outcome"] == "timeout"]


# ---------------------------------------------------------------------------- what the student reads
def test_the_idle_message_says_what_was_seen_in_both_languages():
    what = {"en": "ScaledDotProductAttention.forward", "zh": "ScaledDotProductAttention.forward"}
    text = idle_text(what, StudentIdle(2.04, "call forward", 0.001))
    assert text["en"].startswith("ScaledDotProductAttention.forward used 0.00 s of CPU in 2.0 s while the grader")
    assert "nothing it computed arrived" in text["en"]
    assert "2.0 秒" in text["zh"] and "0.00 秒 CPU" in text["zh"] and "没有返回任何结果" in text["zh"]
    total = idle_text(what, StudentIdle(6.1, "call forward", 0.0, total=True))
    assert "6.1 s in all" in total["en"] and "累计 6.1 秒" in total["zh"]
    for t in (text, total):     # what was seen, no guessed cause
        assert "sleep" not in t["en"] and "loop" not in t["en"] and "?" not in t["en"]
    loaded = load_error_text(StudentIdle(2.0, "import", 0.0), "attention.py")
    assert loaded["en"].startswith("importing attention.py used 0.00 s of CPU in 2.0 s") and "导入 attention.py" in loaded["zh"]
    skipped = gave_up_text("attention.py", 3, ["idle"])
    assert "sat idle while the grader waited 3 times" in skipped["en"] and "空闲" in skipped["zh"]
    for t in (text, total, loaded, skipped):
        assert english_in_zh(t["zh"]) == [], t["zh"]


# ---------------------------------------------------------------------------- gradings in the sandbox
@pytest.mark.slow   # ~7 s: three sessions, each stopped after the idle window
@pytest.mark.parametrize("body", ["import time as _t\n_t.sleep(60)",
                                  "import threading as _th\n_l = _th.Lock()\n_l.acquire()\n_l.acquire()",
                                  "import time as _t\n_t.sleep(4.9)"],
                         ids=["sleeps", "waits_on_a_lock", "sleeps_just_under_the_call_timeout"])
def test_a_forward_that_sits_idle_is_graded_in_seconds(real_limits, body):
    result, wall = _timed(real_limits, in_forward(CORRECT, body))
    assert result["status"] == "graded", result["message"]
    # Before: 15.3 s (three sessions lost at the 5 s call timeout); now 7-9 s.
    assert wall < 12.5, f"{wall:.1f} s"
    said = _said(result)
    assert said and any("while the grader waited for its results" in f["en"] for f in said), said[:2]
    assert all("评分器" in f["zh"] for f in said)
    assert result["total"] < 40


@pytest.mark.slow   # ~8 s
def test_short_sleeps_in_every_call_are_bounded_by_the_gradings_idle_allowance(real_limits):
    # 1.5 s a call, under the idle window: before, every call slept and the grading used its whole
    # 40 s budget (the remaining tests `timeout`); now the sleeps add up to IDLE_TOTAL_S (6 s).
    result, wall = _timed(real_limits, in_forward(CORRECT, "import time as _t\n_t.sleep(1.5)"))
    assert result["status"] == "graded", result["message"]
    assert wall < 16, f"{wall:.1f} s"
    said = _said(result)
    assert any("in all in this grading" in f["en"] and "累计" in f["zh"] for f in said), said[:2]


@pytest.mark.slow   # ~3 s
def test_an_import_that_sleeps_is_a_load_error_that_says_so(real_limits):
    result, wall = _timed(real_limits, CORRECT + "\nimport time as _t\n_t.sleep(60)\n")
    assert result["status"] == "graded", result["message"]
    assert wall < 6, f"{wall:.1f} s"             # before: the 10 s import timeout
    assert "importing attention.py used" in result["message"]["en"], result["message"]
    assert "导入 attention.py" in result["message"]["zh"] and "没有返回任何结果" in result["message"]["zh"]


@pytest.mark.slow   # ~4 s
def test_a_thread_left_sleeping_by_forward_costs_nothing(real_limits):
    # One thread (a thread per call would meet the jail's thread limit), started by the first call.
    code = in_forward(CORRECT + "\n_NAPPERS = []\n", "import threading as _th, time as _t\n"
                                                      "if not _NAPPERS:\n"
                                                      "    _NAPPERS.append(_th.Thread(target=_t.sleep, args=(60,), daemon=True))\n"
                                                      "    _NAPPERS[0].start()")
    honest, _ = _timed(real_limits, in_forward(CORRECT + "\n_NAPPERS = []\n", "pass"))   # the same wrapper
    result, wall = _timed(real_limits, code)
    assert result["status"] == "graded" and result["total"] == honest["total"], [
        (t["id"], t["feedback"]) for t in result["tests"] if t["outcome"] != "passed"]


def _grade_in_own_process(queue) -> None:
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor

    with Executor() as ex:
        for _ in range(2):
            r = grade(GradeInput(code=CORRECT.encode()), "attention", ex)
            queue.put((r["status"], r["total"], [t["feedback"] for t in r["tests"] if t["outcome"] != "passed"]))


@pytest.mark.slow   # ~40 s on 2 cores: 3 workers, each with its own zygote, beside 2 CPU hogs
def test_honest_gradings_beside_cpu_hogs_are_never_cut(executor):
    honest = _grade(executor, CORRECT)["total"]
    hogs = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"]) for _ in range(os.cpu_count() or 2)]
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=_grade_in_own_process, args=(queue,)) for _ in range(3)]
    try:
        for w in workers:
            w.start()
        results = [queue.get(timeout=300) for _ in range(2 * len(workers))]
    finally:
        for p in hogs:
            p.kill()
            p.wait()
        for w in workers:
            w.join(timeout=30)
            if w.is_alive():
                w.kill()
    for status, total, not_passed in results:
        assert status == "graded" and total == honest, not_passed


@pytest.mark.parametrize("name", ["IDLE_WINDOW_S", "IDLE_TOTAL_S"])
def test_an_idle_limit_that_is_not_positive_stops_the_start(name):
    from autograder import settings

    with pytest.raises(settings.SettingsError, match=name):
        settings.check({name: 0})
