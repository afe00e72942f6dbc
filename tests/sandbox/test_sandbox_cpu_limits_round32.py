"""Round 32: the import's and each call's time limits count the jail's CPU seconds, which a loaded host
does not inflate; a wall limit ``wall_backstop`` times as long still bounds a jail that waits without
using CPU. At load average 13-20 a correct file whose import used ~1 s of CPU met the 3 s wall limit
and lost every point. CPU hogs (one or more per core, as tests/grading/test_idle_round27.py starts
them) stand in for the deadline burst."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grading.sandbox import Limits, StudentTimeout
from tests.sandbox.helpers import GOOD, assert_healthy

# Gradings that wait for time limits, seconds each: slow lane (stop 40, fast lane < 10 min).
pytestmark = pytest.mark.slow

# Top-level code that uses ``seconds`` of the jail's own CPU, however long that takes on the host.
SPIN = "import time as _t\n_c0 = _t.process_time()\nwhile _t.process_time() - _c0 < {seconds}:\n    pass\n"


@contextmanager
def cpu_hogs(per_core: int) -> Iterator[None]:
    # Each in its own session: with autogroup scheduling (kernel.sched_autogroup_enabled=1 here) hogs
    # started in the test's session share one group, and the jail (setsid: a group of its own) got
    # half of the CPU however many there were; in a deadline burst every jail is a group of its own.
    hogs = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"], start_new_session=True)
            for _ in range(per_core * (os.cpu_count() or 2))]
    try:
        time.sleep(0.2)       # running before the jail starts
        yield
    finally:
        for p in hogs:
            p.kill()
            p.wait()


def test_an_import_that_uses_less_cpu_than_its_limit_loads_however_long_the_host_makes_it_take(executor):
    # 1 s of CPU, limit 1.5 s: beside the hogs the import took 2.5-4 s of wall time, and the wall limit
    # of 1.5 s stopped it (StudentTimeout, the file "timed out").
    lim = Limits(cpu=5, wall=30, call_timeout=2, import_timeout=1.5, wall_backstop=12)
    with cpu_hogs(2), executor.session(SPIN.format(seconds=1.0) + GOOD, "m.py", "m", limits=lim) as s:
        t0 = time.monotonic()
        s.load()
        took = time.monotonic() - t0
        assert s.call(s.new("Scale"), "forward", 1.0) == 2.0
    assert took > 1.0, took                # the load did spin; it counted CPU, not the wall
    assert_healthy(executor)


def test_an_import_that_spins_stops_at_its_cpu_limit_and_says_so(executor):
    lim = Limits(cpu=5, wall=30, call_timeout=2, import_timeout=0.8, wall_backstop=12)
    with cpu_hogs(1), executor.session(SPIN.format(seconds=60), "m.py", "m", limits=lim) as s:
        t0 = time.monotonic()
        with pytest.raises(StudentTimeout) as ei:
            s.load()
        took = time.monotonic() - t0
    assert ei.value.clock == "cpu" and ei.value.seconds == 0.8 and ei.value.during == "import"
    assert "used more than 0.8 s of CPU time" in str(ei.value)
    assert took < lim.import_timeout * lim.wall_backstop, took     # the CPU limit, not the backstop
    assert_healthy(executor)


def test_a_call_that_spins_stops_at_its_cpu_limit(executor):
    src = GOOD + "\ndef spin():\n" + "".join("    " + line + "\n" for line in SPIN.format(seconds=60).splitlines())
    lim = Limits(cpu=5, wall=30, call_timeout=0.6, import_timeout=3, wall_backstop=12)
    with executor.session(src, "m.py", "m", limits=lim) as s:
        s.load()
        with pytest.raises(StudentTimeout) as ei:
            s.call_function("spin")
    assert ei.value.clock == "cpu" and ei.value.seconds == 0.6 and ei.value.during == "spin()"
    assert_healthy(executor)


@pytest.mark.slow  # seconds of wall spent waiting for the backstop
def test_an_import_that_sleeps_forever_still_stops_at_the_wall_backstop(executor):
    # The idle watch would stop it first (2 s); it is set past the backstop to see the backstop alone.
    lim = Limits(cpu=5, wall=30, call_timeout=2, import_timeout=0.5, wall_backstop=3, idle_window=100)
    with executor.session("import time\ntime.sleep(1000)\n", "m.py", "m", limits=lim) as s:
        t0 = time.monotonic()
        with pytest.raises(StudentTimeout) as ei:
            s.load()
        took = time.monotonic() - t0
    assert ei.value.clock == "wall" and ei.value.seconds == 1.5, ei.value
    assert 1.4 < took < 3.0, took
    assert_healthy(executor)
