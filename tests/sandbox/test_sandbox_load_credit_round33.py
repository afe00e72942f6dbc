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
    # 10 s of budget before the last full session, then 30 s stretched 5 times: 160 s, past GRADING_WALL_S (120).
    with pytest.raises(settings.SettingsError, match="GRADING_WALL_S"):
        settings.check({"WALL_BACKSTOP": 5})
    settings.check({"WALL_BACKSTOP": 5, "GRADING_WALL_S": 161, "TASK_SOFT_TIME_LIMIT_S": 300,
                    "TASK_HARD_TIME_LIMIT_S": 360, "RUN_DEADLINE_S": 400, "BROKER_VISIBILITY_S": 500})
