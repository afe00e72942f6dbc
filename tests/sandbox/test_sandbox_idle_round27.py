"""Round 27: a pending call whose jail sits idle (a sleep, a blocking read, a lock, select() on
nothing, a gc callback that sleeps) is stopped after ``Limits.idle_window`` with ``StudentIdle``,
not at the call's timeout; a call that is starved of CPU by other load is runnable, and is never
stopped. Before, each such call held the worker for its whole timeout (5 s; ~40 s a grading)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time

import pytest

from grading.sandbox import Limits, StudentIdle, StudentTimeout
from grading.sandbox.client import IdleWatch, JailSample
from tests.sandbox.helpers import assert_healthy

# Short windows keep these fast; the call timeout (3 s) is what a sleeping call met before.
IDLE = Limits(cpu=5, wall=20, call_timeout=3, import_timeout=3, idle_window=0.3, idle_total=10)

SLEEPERS = {
    "sleep": "import time\n        time.sleep(60)",
    "blocking_read": "import os\n        r, w = os.pipe()\n        os.read(r, 1)",
    "lock_never_released": "import threading\n        lk = threading.Lock()\n        lk.acquire()\n        lk.acquire()",
    "select_on_nothing": "import select\n        select.select([], [], [])",
    "gc_callback_sleeps": ("import gc, time\n        gc.callbacks.append(lambda *a: time.sleep(60))\n"
                           "        gc.collect()"),
    "reads_the_graders_channel": "import os\n        os.read(3, 1)",
}


def _module(body: str) -> str:
    return f"class M:\n    def go(self):\n        {body}\n        return 1\n    def ok(self):\n        return 2\n"


@pytest.mark.parametrize("how", sorted(SLEEPERS))
def test_an_idle_call_is_stopped_after_the_idle_window_not_at_its_timeout(executor, how):
    t0 = time.monotonic()
    with executor.session(_module(SLEEPERS[how]), "m.py", "m", limits=IDLE) as s:
        s.load()
        h = s.new("M")
        assert s.call(h, "ok") == 2
        with pytest.raises(StudentIdle) as ei:
            s.call(h, "go")
        assert ei.value.during == "call go" and 0.3 <= ei.value.seconds < 1.5 and ei.value.cpu < 0.05
        assert isinstance(ei.value, StudentTimeout)        # a timeout as the tests count it
        with pytest.raises(StudentIdle):                   # the session is dead
            s.call(h, "ok")
    assert time.monotonic() - t0 < 1.5                      # the call timeout is 3 s


def test_an_import_that_sleeps_is_stopped_as_idle(executor):
    t0 = time.monotonic()
    with executor.session("import time\ntime.sleep(60)\n", "m.py", "m", limits=IDLE) as s:
        with pytest.raises(StudentIdle) as ei:
            s.load()
        assert ei.value.during == "import"
    assert time.monotonic() - t0 < 2.0


def test_a_thread_left_sleeping_after_the_call_returned_costs_nothing(executor):
    src = ("import threading, time\nclass M:\n    def go(self):\n"
           "        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n        return 1\n")
    with executor.session(src, "m.py", "m", limits=IDLE) as s:
        s.load()
        h = s.new("M")
        t0 = time.monotonic()
        assert [s.call(h, "go") for _ in range(3)] == [1, 1, 1]
        time.sleep(0.5)                                      # idle between calls: nothing is pending
        assert s.call(h, "go") == 1 and s.alive
        assert time.monotonic() - t0 < 1.5


def test_short_sleeps_add_up_to_the_idle_allowance(executor):
    # Each call sleeps less than the window; the allowance shared by the sessions (a grading's) stops them.
    src = "import time\nclass M:\n    def go(self):\n        time.sleep(0.45)\n        return 1\n"
    lim = dataclasses.replace(IDLE, idle_window=5, idle_total=1.0)
    t0 = time.monotonic()
    with executor.session(src, "m.py", "m", limits=lim) as s:
        s.load()
        h = s.new("M")
        with pytest.raises(StudentIdle) as ei:
            for _ in range(20):
                s.call(h, "go")
        assert ei.value.total
    assert time.monotonic() - t0 < 3.5                      # 20 calls: 9 s


def test_a_call_that_computes_is_not_idle(executor):
    src = ("import time\nclass M:\n    def go(self, s):\n        t = time.process_time()\n"
           "        while time.process_time() - t < s:\n            pass\n        return 1\n")
    with executor.session(src, "m.py", "m", limits=IDLE) as s:
        s.load()
        assert s.call(s.new("M"), "go", 0.6) == 1      # twice the window


def _lowest_priority(pid: int) -> None:
    """The jail's scheduling group (its own autogroup: it calls setsid) and every thread of every process
    of its session at nice 19: either alone left the call a full CPU on some hosts (CI, stop 34: 0.04 s)."""
    sid = os.getsid(pid)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getsid(int(entry)) != sid:
                continue
            with open(f"/proc/{entry}/autogroup", "w") as f:
                f.write("19")
            for task in os.listdir(f"/proc/{entry}/task"):
                os.setpriority(os.PRIO_PROCESS, int(task), 19)
        except OSError:
            continue        # gone meanwhile


def _jail_pid(session, within: float = 10.0) -> int | None:
    """The jail's pid, once the zygote has said it. It writes it on the status pipe after it has set the jail up
    (zygote.launch), and the jail answers load() and new() meanwhile: s._pid() read straight after them (it does
    not wait) was None 3 times in 24 runs at load 6-17 (review of round 46), and every time with a 2 s sleep
    before the zygote's report."""
    deadline = time.monotonic() + within
    while (pid := session._pid()) is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return pid


@pytest.mark.slow   # ~3 s: a call given under 5 % of a CPU by hogs of higher priority
def test_a_call_starved_of_cpu_is_runnable_and_never_stopped(executor):
    # Hogs on every CPU, and the jail's scheduling group (its own autogroup: it calls setsid) at nice
    # 19, leave the jail about 1 % of a CPU: it uses far less CPU than IDLE_CPU_SHARE of the wall
    # time, but waits on the run queue the whole time.
    src = ("import time\nclass M:\n    def go(self, s):\n        t = time.process_time()\n"
           "        while time.process_time() - t < s:\n            pass\n        return time.process_time() - t\n")
    hog = "while True:\n    pass\n"
    hogs = [subprocess.Popen([sys.executable, "-c", hog]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        lim = dataclasses.replace(IDLE, call_timeout=15, idle_window=0.5)
        with executor.session(src, "m.py", "m", limits=lim) as s:
            s.load()
            h = s.new("M")
            pid = _jail_pid(s)
            assert pid is not None
            _lowest_priority(pid)
            t0 = time.monotonic()
            assert s.call(h, "go", 0.03) >= 0.03
            waited = time.monotonic() - t0
    finally:
        for p in hogs:
            p.kill()
            p.wait()
    assert_healthy(executor)
    if waited <= 1.0:
        # The call was not starved, so it says nothing of the rule (CI at stop 34: 0.04 s, autogroup nice
        # not taking effect there); skipped with the number rather than passed.
        pytest.skip(f"the hogs did not starve the call ({waited:.2f} s): this host cannot show the rule")


# ---------------------------------------------------------------------------- the rule itself
def _samples(*rows: tuple[float, float, float, bool]) -> list[JailSample]:
    return [JailSample(*r) for r in rows]


def test_idle_watch_cuts_a_window_of_idle_intervals_only():
    w = IdleWatch(window=1.0, allowance=100)
    verdicts = [w.feed(s) for s in _samples(*[(0.25 * i, 0.0, 0.0, False) for i in range(5)])]
    assert verdicts == [None, None, None, None, "window"]
    assert w.run_seconds == 1.0 and w.idle == 1.0


@pytest.mark.parametrize("row", [
    lambda i: (0.25 * i, 0.0, 0.0, True),               # a thread running or runnable at each look
    lambda i: (0.25 * i, 0.0, 0.2 * i, False),          # waiting for a CPU (run queue), never on it
    lambda i: (0.25 * i, 0.02 * i, 0.0, False),         # 8 % of a CPU
])
def test_idle_watch_never_cuts_a_call_that_is_running_or_waiting_for_a_cpu(row):
    w = IdleWatch(window=1.0, allowance=0.1)
    assert [w.feed(JailSample(*row(i))) for i in range(40)] == [None] * 40
    assert w.idle == 0


def test_idle_watch_counts_idle_seconds_against_the_allowance():
    # Idle, busy (a runnable thread), idle, idle, idle: 1.0 s idle in all, never 1 s in a row.
    w = IdleWatch(window=1.0, allowance=0.8)
    rows = [(0.0, 0, 0, False), (0.25, 0, 0, False), (0.5, 0, 0, True), (0.75, 0, 0, False), (1.0, 0, 0, False),
            (1.25, 0, 0, False)]
    assert [w.feed(s) for s in _samples(*rows)] == [None, None, None, None, None, "total"]


# ---------------------------------------------------------------------------- a serving loop broken at import
POISONS = {
    # json.dumps replaced no longer reaches the loop (round 45: the wire's JSON is bound privately), nor does
    # builtins.isinstance (round 46: the loop's builtins are its own); a data descriptor replaced or closed under it
    # still breaks it
    "data_descriptor": "import os\nos.dup2(os.open('/dev/null', os.O_RDWR), 3)\n",
    "data_descriptor_closed": "import os\nos.close(3)\n",
}


@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_serving_loop_broken_at_import_is_said_as_such_not_as_an_exit_code_0(executor, poison):
    # The module imported; the jail's own loop then failed to write the reply or read the next request.
    # Before: "the sandboxed process exited with code 0", read as "crashed while importing".
    from grading.proxy import load_error_text
    from grading.sandbox import SandboxDied
    from grading.sandbox.client import SERVE_FAILED_TEXT

    with executor.session("X = 1\n" + POISONS[poison], "m.py", "m", limits=IDLE) as s:
        with pytest.raises(SandboxDied) as ei:
            s.load()
            s.new("int")
    assert ei.value.reason == SERVE_FAILED_TEXT and s.status["exit_code"] == 71
    text = load_error_text(ei.value, "attention.py")
    assert "crashed while importing" not in text["en"] and "exited with code 0" not in text["en"]
    assert text["en"].startswith("after your code had run, the sandbox stopped answering the grader")
    assert text["zh"].startswith("你的代码运行完之后，沙箱不再回应评分器") and "退出码 71" in text["zh"]


def test_an_exit_at_import_is_still_its_own_exit_code(executor):
    from grading.sandbox import SandboxDied

    with executor.session("import os\nos._exit(0)\n", "m.py", "m", limits=IDLE) as s:
        with pytest.raises(SandboxDied, match="exited with code 0"):
            s.load()
