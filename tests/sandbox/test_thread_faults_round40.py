"""Round 40: a jail thread that faults before any CPU check saw it is named as the fault it was.

The zygote knows a jail's threads from the kernel's own fork events (zygote.ThreadWatch, the proc connector), queued
as each thread is cloned, not only from /proc at each CPU check (every CPU_CHECK_S): a thread that starts and faults
within a millisecond was never in /proc when read. The kernel's fault record of that thread now counts as the jail's;
a record of a thread the kernel never said was the jail's still does not, and nothing the jail writes is read.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from grading.sandbox.client import FAULT_TEXT
from tests.sandbox.helpers import assert_healthy, jail_faults_logged
from tests.sandbox.test_sandbox_round35 import _call, _in_forward
from tests.sandbox.test_sandbox_threads_mend_round39 import THREAD_FAULTS_AT_ONCE

DEFAULT_ACTION = "the sandboxed process was ended by SIGSEGV, the signal's default action"


def _jail(pid: int, forked_ns: int):
    """A zygote.Jail as ThreadWatch.drain reads it (its pid, its fork's time, its threads), no process behind it."""
    from grading.sandbox.zygote import Jail

    j = object.__new__(Jail)
    j.pid, j.forked_ns, j.threads, j.lives = pid, forked_ns, set(), {}
    j.events, j.watched = 0, True      # round 41: its events read, and still followed (JAIL_EVENTS_MAX)
    return j


def _child_with_a_thread(wait_r: int, tid_w: int) -> None:
    os.read(wait_r, 1)           # the watch is listening and the child is known before its thread starts
    t = threading.Thread(target=lambda: os.write(tid_w, str(threading.get_native_id()).encode()))
    t.start()
    t.join()
    os._exit(0)


def _run_child(forked_ns_of) -> tuple[int, int, object, set[int]]:
    """Fork a process that starts one thread once told; return (its pid, its thread's id, it as a jail forked at
    forked_ns_of(now) once the watch read it, the threads it said of a jail of another pid)."""
    from grading.sandbox.zygote import LIFE_OPEN, ThreadWatch

    watch = ThreadWatch()
    watch.listen(True)
    if watch.fileno() is None:
        pytest.skip("no proc connector here (not root in the host's network namespace)")
    try:
        wait_r, wait_w = os.pipe()
        tid_r, tid_w = os.pipe()
        before = time.monotonic_ns()
        pid = os.fork()
        if pid == 0:
            _child_with_a_thread(wait_r, tid_w)
        os.close(wait_r)
        os.close(tid_w)
        jail, other = _jail(pid, forked_ns_of(before)), _jail(pid + 1_000_000, before)
        os.write(wait_w, b"x")
        tid = int(os.read(tid_r, 32))
        os.waitpid(pid, 0)
        for fd in (wait_w, tid_r):
            os.close(fd)
        deadline = time.monotonic() + 2
        while (tid not in jail.lives or jail.lives[tid][1] == LIFE_OPEN) and time.monotonic() < deadline:
            watch.drain({1: jail, 2: other})
            time.sleep(0.01)
        return pid, tid, jail, other.threads
    finally:
        watch.close()


def test_the_kernels_fork_event_names_a_thread_of_the_jails_process_and_of_no_other():
    before = time.monotonic_ns()
    pid, tid, jail, others = _run_child(lambda before: before)
    assert tid != pid
    assert jail.threads == {tid}      # its thread, never the process itself
    assert others == set()
    # its life, from the kernel's fork and exit events
    cloned, ended = jail.lives[tid]
    assert before <= cloned <= ended < time.monotonic_ns()


def test_a_fork_event_from_before_the_jails_fork_is_not_its_own():
    # an earlier holder of the same pid: its events are older than the jail's fork
    _, _, jail, _ = _run_child(lambda before: time.monotonic_ns() + 10**12)
    assert jail.threads == set() and jail.lives == {}


def _log(tmp_path, tid: int, at_us: int) -> str:
    log = tmp_path / "kmsg"
    log.write_bytes(b"6,100,%d,-;ag-jail[%d]: segfault at 0 ip 00007f8eceb85ad8 sp 00007fffe6007478 error 4\n"
                    % (at_us, tid))
    return str(log)


def test_a_fault_record_of_a_thread_id_counts_only_within_the_life_the_kernel_gave_it(tmp_path):
    # host thread ids come round again (pid_max): a record of the same id before the jail's thread was cloned or
    # after it ended is another task's
    from grading.sandbox.zygote import LIFE_OPEN, kernel_end

    since = time.monotonic()
    t0 = int(since * 1e9)
    life = {501: (t0 + 100_000_000, t0 + 200_000_000)}        # 0.1 s to 0.2 s after the jail's start
    for at_s, said in ((0.15, "fault"), (0.05, None), (0.25, None)):
        log = _log(tmp_path, 501, int((since + at_s) * 1e6))
        assert kernel_end(500, since, kmsg=log, lives=life) == said, at_s
        # an id the /proc reads saw too is still held to the life the kernel's events gave it
        assert kernel_end(500, since, kmsg=log, threads=frozenset({501}), lives=life) == said, at_s
    # a thread still alive: from its clone on
    log = _log(tmp_path, 501, int((since + 0.5) * 1e6))
    assert kernel_end(500, since, kmsg=log, lives={501: (t0 + 100_000_000, LIFE_OPEN)}) == "fault"


# The jail lists its descriptors' socket families: none may be the host's fork events (a netlink socket).
FAMILIES = ("import socket\n"
            "def _families():\n"
            "    out = []\n"
            "    for fd in range(3, 1024):\n"
            "        try:\n"
            "            s = socket.socket(fileno=os.dup(fd))\n"
            "        except OSError:\n"
            "            continue\n"
            "        out.append(int(s.family))\n"
            "        s.close()\n"
            "    return out\n")


def test_the_watch_is_no_descriptor_of_a_jail(executor):
    # A jail reading the host's fork events would see the other jails' threads. A guard of the whole: the jail's
    # closerange before student code closes every descriptor of the zygote (the watch among them) whatever launch's
    # ``held`` lists, so no change of ``held`` alone makes this fail (review RE, LOW 6).
    source = _in_forward("assert socket.AF_NETLINK not in _families(), _families()", head="import os\n" + FAMILIES)
    out = _call(executor, source)
    assert out is not None
    assert_healthy(executor)


def test_a_thread_that_faults_at_once_is_named_as_a_fault_when_the_kernel_logged_it(executor):
    # printk's host-wide rate limit may drop a fault line (jail_faults_logged): then the default action is said,
    # which is as true; three tries, and at least one must have been logged to test anything
    logged_runs = 0
    for _ in range(3):
        since = time.monotonic()
        with pytest.raises(SandboxDied) as died:
            _call(executor, _in_forward(THREAD_FAULTS_AT_ONCE))
        said = str(died.value.reason)
        if jail_faults_logged(since):
            logged_runs += 1
            assert said == FAULT_TEXT.format(name="SIGSEGV"), said
            assert "内核记录到" in death_text(said)["zh"]
        else:
            assert said == DEFAULT_ACTION, said
        assert_healthy(executor)
        if logged_runs:
            break
    assert logged_runs, "the kernel logged none of three faults (rate limit): nothing tested"


SENDS_ITS_THREAD = ("import signal, threading, time\n"
                    "t = threading.Thread(target=time.sleep, args=(5,), daemon=True)\n"
                    "t.start()\n"
                    "signal.pthread_kill(t.ident, signal.SIGSEGV)\n"
                    "time.sleep(5)")


def test_a_segv_the_jail_sends_a_thread_it_started_is_still_said_as_sent(executor):
    # the thread is the jail's (its fork event was read), but no fault of it was logged: nothing is said of a fault
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(SENDS_ITS_THREAD))
    assert str(died.value.reason) == DEFAULT_ACTION
    assert_healthy(executor)
