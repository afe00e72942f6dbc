"""Review RE (round 40), HIGH 1 and 2: a jail the kernel's RLIMIT_CPU ended is told as the CPU limit it reached.

RLIMIT_CPU counts a process's PROF clock (tick-sampled utime + stime); the zygote checks /proc/<pid>/stat, scaled to
the scheduler's runtime, which lags it on a loaded host (2.45 s against 3.0 s at a 3 s rlimit). The rlimit's SIGXCPU
(or, when SIGXCPU is ignored, its SIGKILL at the hard limit) then came first, and the student read "ended by SIGXCPU,
the signal's default action" or "killed by SIGKILL, which the grader did not send". The zygote now reads the zombie's
PROF clock before reaping it (zygote.prof_seconds, Jail.rlimit_ended). These tests give the jail no session limit of
its own (cpu=inf), as when the zygote's check lags: only the rlimit can end it.
"""

from __future__ import annotations

import json
import math
import os
import resource
import select
import signal

import pytest

from grading.proxy import death_text
from grading.sandbox.client import RECEIVED_TEXT, UNSENT_KILL_TEXT, Limits, _describe_status

RLIMIT = (1, 2)


def _child(ignore_xcpu: bool = False, send: int | None = None) -> None:
    try:
        resource.setrlimit(resource.RLIMIT_CPU, RLIMIT)
        if ignore_xcpu:
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        if send is not None:
            os.kill(os.getpid(), send)
        while True:
            pass
    finally:
        os._exit(70)


def _end_of(reap: bool, **child) -> dict:
    """Run ``_child(**child)`` as a jail of RLIMIT; the status the zygote reports of its end, reaped by the zygote's
    loop (``reap``: zygote._reap, then Jail.finish) or by Jail.finish itself."""
    from grading.sandbox.zygote import Jail, _reap

    pid = os.fork()
    if pid == 0:
        _child(**child)
    pipes = [os.pipe() for _ in range(3)]
    (lifeline, lifeline_w), (status_r, status_w), (setup_r, setup_w) = pipes
    os.close(setup_w)
    jail = Jail(pid, lifeline, status_w, setup_r, wall=60.0, uid=0, cpu=math.inf, rlimit=RLIMIT)
    try:
        assert select.select([jail.pidfd], [], [], 30)[0], "the child did not end within 30 s"
        if reap:
            _reap({0: jail})
            assert jail.ended is not None
        jail.finish()
        return json.loads(os.read(status_r, 4096))
    finally:
        for fd in (lifeline_w, status_r):
            os.close(fd)


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
@pytest.mark.parametrize("reap", [True, False], ids=["reaped_by_the_loop", "reaped_by_finish"])
def test_the_rlimits_sigxcpu_is_said_as_the_cpu_limit(reap):
    st = _end_of(reap)
    assert st["signal"] == signal.SIGXCPU
    assert st["status"] == "cpu", st
    assert st["cpu"] >= RLIMIT[0] - 0.001, st       # the seconds the rlimit counted, not the scheduler's
    said = _describe_status(st, Limits(cpu=RLIMIT[0]))
    assert said.startswith("CPU time limit exceeded"), said
    assert death_text(said)["zh"].startswith("超出 CPU 时间上限"), death_text(said)


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_the_rlimits_sigkill_past_an_ignored_sigxcpu_is_said_as_the_cpu_limit():
    st = _end_of(reap=True, ignore_xcpu=True)
    assert st["signal"] == signal.SIGKILL
    assert st["status"] == "cpu", st
    assert "kernel" not in st         # no question left open: the kernel's log is not read for it
    said = _describe_status(st, Limits(cpu=RLIMIT[0]))
    assert said.startswith("CPU time limit exceeded"), said
    assert "did not send" not in death_text(said)["en"]


@pytest.mark.parametrize("sig", [signal.SIGXCPU, signal.SIGKILL])
def test_a_signal_it_sends_itself_before_its_cpu_limit_is_still_said_as_received(sig):
    st = _end_of(reap=True, send=sig)
    assert st["signal"] == sig
    assert st["status"] == "exited", st
    said = _describe_status(st, Limits(cpu=RLIMIT[0]))
    assert said == (RECEIVED_TEXT.format(name="SIGXCPU") if sig == signal.SIGXCPU else UNSENT_KILL_TEXT), said


def test_an_rlimit_it_lowered_itself_is_not_said_as_the_graders_cpu_limit():
    from grading.sandbox.zygote import Jail

    jail = object.__new__(Jail)
    jail.rlimit, jail.prof = (20, 21), 1.004       # it set RLIMIT_CPU to (1, 1): SIGKILL at 1 s
    assert not jail.rlimit_ended(signal.SIGKILL)    # a wait status of "killed by SIGKILL"
    assert not jail.rlimit_ended(signal.SIGXCPU)
    jail.prof = 21.002
    assert jail.rlimit_ended(signal.SIGKILL)
    jail.prof = 20.001
    assert jail.rlimit_ended(signal.SIGXCPU) and not jail.rlimit_ended(signal.SIGKILL)


def test_the_zygotes_cpu_status_reads_as_the_cpu_limit_whatever_seconds_it_carries():
    # a status the zygote marked "cpu" is the limit, even with rusage's seconds below the session's limit
    said = _describe_status({"status": "cpu", "signal": signal.SIGKILL, "cpu": 18.279}, Limits(cpu=20))
    assert said.startswith("CPU time limit exceeded"), said
