"""Round 33: a session's wall limit does not count the time host load took from its jail. Round 32 moved the
import's and each call's limits to the jail's CPU seconds; the session's own wall limit (30 s, cut to what is
left of the grading's budget) still counted every second a loaded host kept the jail waiting for a CPU. Now
the zygote moves it on by that time (``forking.load_credit``: the jail's threads' run-queue wait, at most the
part of the wall it was not on a CPU), up to ``wall_backstop`` times the limit; a jail that waits for
nothing (a sleep) or spins in its own threads earns nothing."""

from __future__ import annotations

import time

import pytest

from grading.forking import load_credit
from grading.sandbox import Limits, StudentTimeout
from tests.sandbox.helpers import GOOD, assert_healthy
from tests.sandbox.test_sandbox_cpu_limits_round32 import SPIN, cpu_hogs


@pytest.mark.slow     # ~4 s beside the hogs on an idle host, 10 s on a busy one
def test_a_session_slowed_by_host_load_is_not_stopped_by_its_wall_limit(executor):
    # 1.5 s of CPU beside two hogs per core takes ~3.5 s of wall time: the session's wall limit of 2 s ended
    # it ("the session took longer than 2 s").
    lim = Limits(cpu=10, wall=2.0, call_timeout=5, import_timeout=5, wall_backstop=6)
    with cpu_hogs(2), executor.session(SPIN.format(seconds=1.5) + GOOD, "m.py", "m", limits=lim) as s:
        t0 = time.monotonic()
        s.load()
        took = time.monotonic() - t0
        assert s.call(s.new("Scale"), "forward", 1.0) == 2.0
    assert took > lim.wall, f"{took:.1f} s: the host was not loaded, the test shows nothing"
    assert_healthy(executor)


def test_a_session_that_sleeps_past_its_wall_limit_earns_no_credit(executor):
    lim = Limits(cpu=10, wall=1.0, call_timeout=5, import_timeout=5, wall_backstop=6, idle_window=60, idle_total=60)
    with executor.session("import time\ntime.sleep(30)\n" + GOOD, "m.py", "m", limits=lim) as s:
        t0 = time.monotonic()
        with pytest.raises(StudentTimeout) as ei:
            s.load()
        took = time.monotonic() - t0
    assert ei.value.during == "the session", ei.value
    assert took < 2.5, f"{took:.1f} s"
    assert_healthy(executor)


def test_the_load_credit_never_exceeds_the_time_off_a_cpu():
    import os

    assert load_credit(os.getpid(), 0.0) == 0.0
    assert load_credit(2 ** 22 + 1, 100.0) == 0.0      # no such process


def test_a_backstop_that_would_stretch_a_session_past_the_graders_own_limit_is_refused():
    from autograder import settings

    settings.check()
    # 40 s of budget and 15 of load credit, the last full session started at 25 s and stretched 5 times: 175 s,
    # past GRADING_WALL_S (120).
    with pytest.raises(settings.SettingsError, match="GRADING_WALL_S"):
        settings.check({"WALL_BACKSTOP": 5})
    with pytest.raises(settings.SettingsError, match="GRADING_WALL_S"):
        settings.check({"GRADING_LOAD_CREDIT_S": 60})
    with pytest.raises(settings.SettingsError, match="GRADING_LOAD_CREDIT_S"):
        settings.check({"GRADING_LOAD_CREDIT_S": -1})
    settings.check({"WALL_BACKSTOP": 5, "GRADING_WALL_S": 176, "TASK_SOFT_TIME_LIMIT_S": 300,
                    "TASK_HARD_TIME_LIMIT_S": 360, "RUN_DEADLINE_S": 400, "BROKER_VISIBILITY_S": 500})


# ---------------------------------------------------------------------------- the grading's wall budget
def test_the_grading_budget_gives_back_what_host_load_took_up_to_its_cap():
    from autograder import settings
    from grading.child import Budget, _session_cpu

    budget = Budget.start(wall=1.0, cpu=5.0)
    lim = budget.reserve(Limits(cpu=2.0))
    budget.settle(lim, 0.1, 3.0)              # a session that waited 3 s for a CPU other load held
    assert 3.5 < budget.wall_left() <= 4.0
    budget.settle(lim, 0.1, 1000.0)
    assert budget.wall_left() <= 1.0 + settings.GRADING_LOAD_CREDIT_S
    # The credit comes from the zygote's status of the session's end, or the one a grading child reported.
    class Ended:
        status = None
    assert _session_cpu(Ended(), {"status": "exited", "cpu": 0.2, "credit": 1.5}, "credit") == 1.5
    assert _session_cpu(Ended(), {"status": "exited", "cpu": 0.2, "credit": float("nan")}, "credit") is None


def test_the_zygote_reports_no_credit_for_a_jail_that_sleeps(executor):
    with executor.session("import time\ntime.sleep(0.5)\n" + GOOD, "m.py", "m", limits=Limits(cpu=5, wall=10)) as s:
        s.load()
    assert 0.0 <= s.status["credit"] < 0.2, s.status


@pytest.mark.slow
def test_the_zygote_reports_the_time_host_load_took_from_a_jail(executor):
    lim = Limits(cpu=10, wall=30, call_timeout=5, import_timeout=5)
    with cpu_hogs(2), executor.session(SPIN.format(seconds=1.0) + GOOD, "m.py", "m", limits=lim) as s:
        t0 = time.monotonic()
        s.load()
        took = time.monotonic() - t0
    assert took > 1.5, f"{took:.1f} s: the host was not loaded, the test shows nothing"
    assert 0.3 < s.status["credit"] <= took - 0.9, (s.status, took)


def test_a_spent_wall_budget_is_said_in_plain_seconds_whatever_its_size():
    # ``:.3g`` said "1e+03 s" once the budget and its credit passed 999 s (a long GRADING_WALL_S).
    from grading.child import Budget

    budget = Budget.start(wall=1000.0, cpu=5.0)
    budget.wall_total, budget.credit = 1000.0, 0.0
    budget.wall_left = lambda: 0.0           # spent
    said = budget.why()
    assert "the 1000 s of wall time" in said["en"] and "1000 秒运行时间" in said["zh"], said
    budget.wall_total = 40.04
    assert "the 40 s of wall time" in budget.why()["en"]
