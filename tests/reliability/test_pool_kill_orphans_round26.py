"""A pool process SIGKILLed mid-grading (Celery's hard time limit, the OOM killer): what it had
started must go with it. Its forked test process (`ag-tests`, which leads its own process group)
and its zygote (which ends when its control socket closes, a socket the test process holds too)
kept running the student's code beside the replacement's grading of the same run."""

from __future__ import annotations

import os
import signal
import time

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import GradingRun
from tests.reliability.helpers import (
    CORRECT,
    CORRECT_TOTAL,
    all_finished,
    assert_graded_exactly_once,
    worker_log_tail,
)
from tests.reliability.test_clean_stop import alive
from tests.reliability.test_failures import submit_many
from tests.workers import child_pids, running_worker, wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

# Every forward sleeps: the grading outlasts the checks below by far (with the idle limits of round 27 raised:
# sitting idle that long is otherwise stopped).
SLOW = CORRECT + (b"\nimport time as _time\n_forward = ScaledDotProductAttention.forward\n"
                  b"def _slow(self, *a, **k):\n    _time.sleep(1)\n    return _forward(self, *a, **k)\n"
                  b"ScaledDotProductAttention.forward = _slow\n")


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def test_a_pool_process_killed_mid_grading_takes_its_test_process_and_zygote_with_it(rig):
    expected = submit_many(rig.app, [(SLOW, CORRECT_TOTAL)])
    with running_worker(rig.env(HEARTBEAT_STALE_S=600, SWEEP_INTERVAL_S=600, IDLE_WINDOW_S=60, IDLE_TOTAL_S=120), "orphans", 1, rig.log("orphans")):

        def holder_pid() -> int | None:
            with rig.app.app_context():
                worker = db.session.scalar(select(GradingRun.worker).where(GradingRun.status == "running"))
                db.session.remove()
            return int(worker.rpartition(":")[2]) if worker else None

        pool = wait_for(holder_pid, 120, interval=0.1, what="a run to start")
        kids = wait_for(lambda: (k := child_pids(pool)) and any(comm(p) == "ag-tests" for p in k) and k, 60,
                        interval=0.05, what="the pool process's test process")
        started = {p: comm(p) for p in kids}
        assert "ag-tests" in started.values() and any("zygote" in open(f"/proc/{p}/cmdline").read() for p in kids), started
        os.kill(pool, signal.SIGKILL)
        time.sleep(5)
        left = {p: name for p, name in started.items() if alive(p)}
        try:
            assert not left, f"5 s after its pool process was killed, still running: {left}"
            wait_for(lambda: all_finished(rig.app, list(expected)), 180, what="the redelivered run")
        except AssertionError:
            print(worker_log_tail(rig.log("orphans")))
            raise
        finally:
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    # Graded once, by the replacement (its sleeps cost it the timing-dependent points: the total
    # is whatever that grading gave, checked against its own rows).
    with rig.app.app_context():
        (run,) = db.session.scalars(select(GradingRun).where(GradingRun.submission_id.in_(expected)))
        total, tries = run.total, run.tries
        db.session.remove()
    assert tries == 2
    assert_graded_exactly_once(rig.app, dict.fromkeys(expected, total))
