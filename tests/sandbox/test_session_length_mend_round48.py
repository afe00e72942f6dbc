"""Mend of round 48 (review RC MEDIUM-1): a session ends by its whole length (``Limits.wall_hard``) however much host
load took from its jail. The zygote moves a session's wall limit on by the time its threads waited for a CPU, up to the
backstop (``wall_backstop`` times the wall): the grading cuts that to what is left of its budget and credit
(child.Budget.reserve), and only the zygote's ``session_backstop`` and the client's ``session_hard`` enforce it.
Reverting both left every test passing.

Here the jail's one thread is starved on purpose: pinned to one CPU where a real-time (SCHED_FIFO) process spins, it waits for a
CPU nearly all the time, which is what host load looks like to the zygote (forking.load_credit), so without the cut its
wall of 2 s moves on to the backstop's 12 s. The bound is load-proof: more load only moves the wall on further,
and the cut ends it at 3 s; the margin covers the zygote's check interval, the kill and the status read.
"""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from grading.sandbox import SandboxDied, StudentTimeout
from grading.sandbox.client import Limits

_SPIN = "class P:\n    def spin(self):\n        while True:\n            pass\n"
# The zygote's wall check, the kill and the status read, and the starved jail's own exit: under the real-time hog it
# runs 50 ms of each second (RT throttling), so its death may wait up to a second. Without the cut it lasts to 12 s.
_MARGIN_S = 2.5


def _pin_jail(pid: int, cpu: int) -> None:
    """Every thread of ``pid`` and of its descendants (the student's process is a child of the jail's init) on ``cpu``."""
    todo = [pid]
    while todo:
        p = todo.pop()
        for tid in os.listdir(f"/proc/{p}/task"):
            os.sched_setaffinity(int(tid), {cpu})
            with open(f"/proc/{p}/task/{tid}/children") as f:
                todo += [int(c) for c in f.read().split()]


def _hog(cpu: int) -> None:
    os.sched_setaffinity(0, {cpu})
    # real-time: ahead of every normal thread whatever cgroup it is in (a nice -20 hog only halved the jail's share:
    # CFS shares a CPU between cgroups first); the kernel's RT throttling (95% of each second) bounds it
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    while True:
        pass


@pytest.mark.slow
def test_a_session_starved_by_host_load_ends_by_its_whole_length_not_its_backstop(executor):
    cpu = min(os.sched_getaffinity(0))
    limits = Limits(cpu=30, wall=2.0, wall_backstop=6.0, wall_hard=3.0, call_timeout=30, import_timeout=10,
                    idle_window=30, idle_total=30)     # the jail is starved, not idle: only the wall may end it
    hog = multiprocessing.get_context("fork").Process(target=_hog, args=(cpu,), daemon=True)
    t0 = time.monotonic()     # before the session opens: its whole length is counted from no later than this
    with executor.session(_SPIN, "p.py", "p", limits=limits) as s:
        s.load()
        h = s.new("P")
        _pin_jail(s._pid(), cpu)     # the jail's threads share the hog's CPU: they wait, runnable
        hog.start()
        try:
            with pytest.raises((StudentTimeout, SandboxDied)) as ended:
                s.call(h, "spin")
            took = time.monotonic() - t0
        finally:
            hog.kill()
            hog.join()
    print(f"took {took:.2f} s: {ended.value!r}")
    assert took < limits.wall_hard + _MARGIN_S, (took, ended.value)
