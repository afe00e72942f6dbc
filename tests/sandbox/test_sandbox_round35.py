"""Round 35 of the sandbox: how a jail ends on a signal it receives, and on running out of memory.

The jail is pid 1 of its pid namespace, and the kernel drops a signal whose action is the default that pid 1 gets
from its own namespace: ``os.kill(os.getpid(), signal.SIGTERM)`` returned and the code went on, where ``python
attention.py`` ends there. The jail now ends on each signal whose default action ends a process, and is said to
have been ended by it; a handler the student installed still runs instead."""

from __future__ import annotations

import re
import signal

import pytest
import torch

from grading.proxy import death_text
from grading.sandbox import Executor, SandboxDied
from grading.sandbox.client import Limits, _describe_status
from tests.sandbox.helpers import GOOD, assert_healthy

# How the code sends the signal (``{s}``: the signal's number) to the jail, in a call.
_SENDS = {"os_kill_of_its_pid": "import os\nos.kill(os.getpid(), {s})",
          "raise_signal": "import signal\nsignal.raise_signal({s})",
          "pthread_kill_of_its_thread": "import signal, threading\nsignal.pthread_kill(threading.get_ident(), {s})",
          "os_kill_from_another_thread": "import os, threading, time\n"
                                         "threading.Thread(target=os.kill, args=(os.getpid(), {s})).start()\n"
                                         "time.sleep(5)",
          "kill_of_its_process_group": "import os\nos.kill(0, {s})"}

# SIGINT is not among them: Python's own handler raises KeyboardInterrupt, in the jail as in ``python attention.py``.
_SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGHUP": signal.SIGHUP, "SIGQUIT": signal.SIGQUIT,
            "SIGUSR1": signal.SIGUSR1, "SIGUSR2": signal.SIGUSR2, "SIGALRM": signal.SIGALRM,
            "SIGVTALRM": signal.SIGVTALRM, "SIGPROF": signal.SIGPROF, "SIGIO": signal.SIGIO,
            "SIGPWR": signal.SIGPWR, "SIGSTKFLT": signal.SIGSTKFLT, "SIGXCPU": signal.SIGXCPU,
            "SIGRTMIN": signal.SIGRTMIN, "SIGRTMIN+6": signal.SIGRTMIN + 6, "SIGRTMAX": signal.SIGRTMAX}


def _in_forward(statements: str, head: str = "") -> str:
    body = "".join("    " + line + "\n" for line in statements.splitlines())
    return GOOD + f"\n{head}\ndef _forward(self, x, shift=0.0):\n{body}    return x * 2.0 + shift\nScale.forward = _forward\n"


def _call(executor, source: str):
    with executor.session(source, "m.py", "m") as s:
        s.load()
        return s.call(s.new("Scale"), "__call__", torch.ones(2, 3))


@pytest.mark.parametrize("name", list(_SIGNALS))
def test_a_jail_that_sends_itself_a_signal_whose_default_action_ends_a_process_is_ended_by_it(executor, name):
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(_SENDS["os_kill_of_its_pid"].format(s=int(_SIGNALS[name]))))
    said = str(died.value)
    assert f"ended by {name}, the signal's default action" in said, said
    told = death_text(died.value.reason)
    assert f"ended by {name}, the signal's default action" in told["en"], told
    assert f"信号 {name} 结束，这是该信号的默认动作" in told["zh"], told
    assert_healthy(executor)


@pytest.mark.parametrize("how", list(_SENDS))
def test_every_way_of_sending_sigterm_to_itself_ends_the_jail(executor, how):
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(_SENDS[how].format(s=int(signal.SIGTERM))))
    assert "ended by SIGTERM" in str(died.value), str(died.value)
    assert_healthy(executor)


def test_an_alarm_with_no_handler_ends_the_jail_as_an_alarm_clock_ends_a_process(executor):
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward("import signal, time\nsignal.setitimer(signal.ITIMER_REAL, 0.05)\ntime.sleep(3)"))
    assert "ended by SIGALRM" in str(died.value), str(died.value)


def test_a_handler_the_student_installed_runs_and_the_code_goes_on(executor):
    source = _in_forward("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\nsignal.raise_signal(signal.SIGUSR1)\n"
                         "return x * 0 + len(_SEEN)",
                         head="import signal\n_SEEN = []\nsignal.signal(signal.SIGTERM, lambda s, f: _SEEN.append(s))\n"
                              "signal.signal(signal.SIGUSR1, lambda s, f: _SEEN.append(s))")
    out = _call(executor, source)
    assert out.tolist() == [[2.0] * 3] * 2


def test_an_ignored_signal_stays_ignored_and_a_restored_handler_ends_the_jail_again(executor):
    source = _in_forward("import os, signal\n_old = signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                         "os.kill(os.getpid(), signal.SIGTERM)\nsignal.signal(signal.SIGTERM, _old)\n"
                         "os.kill(os.getpid(), signal.SIGHUP)")
    with pytest.raises(SandboxDied) as died:
        _call(executor, source)
    assert "ended by SIGHUP" in str(died.value), str(died.value)


def test_the_default_action_asked_for_again_ends_the_jail_and_is_told_as_the_default(executor):
    source = _in_forward("import os, signal\nassert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n"
                         "signal.signal(signal.SIGTERM, lambda s, f: None)\n"
                         "assert signal.signal(signal.SIGTERM, signal.SIG_DFL) is not signal.SIG_DFL\n"
                         "assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n"
                         "os.kill(os.getpid(), signal.SIGTERM)")
    with pytest.raises(SandboxDied) as died:
        _call(executor, source)
    assert "ended by SIGTERM" in str(died.value), str(died.value)


@pytest.mark.parametrize("sig", ["SIGSTOP", "SIGCHLD", "SIGWINCH", "SIGURG", "SIGCONT"])
def test_sigstop_and_signals_ignored_by_default_sent_to_itself_leave_the_jail_running(executor, sig):
    """SIGSTOP cannot be caught: sent by pid 1 to itself, the kernel drops it and the code goes on (a stop would be
    seen by the idle watch anyway); the others are ignored by every process. SIGKILL sent to itself ends the jail
    since round 36 (tests/sandbox/test_sandbox_round36.py)."""
    out = _call(executor, _in_forward(f"import os, signal\nos.kill(os.getpid(), signal.{sig})"))
    assert out.tolist() == [[2.0] * 3] * 2
    assert_healthy(executor)


def test_an_exit_with_128_plus_a_signals_number_is_still_an_exit_code(executor):
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward("import os\nos._exit(143)"))
    assert "exited with code 143" in str(died.value) and "SIGTERM" not in str(died.value), str(died.value)


_SHARED_PAGES = GOOD + '''
def shared_pages():
    return [line.split()[0] for line in open("/proc/self/maps")
            if line.split()[1] == "rw-s" and line.split()[-2:] == ["/dev/zero", "(deleted)"]]
'''


def test_a_jail_sees_only_its_own_end_page_at_an_address_that_says_nothing_of_other_jails(executor):
    """The page _end_on writes to: one shared mapping per jail, none of another live jail's, and mapped at a random
    address (the next free one told how many jails were running: the hidden tests' session runs beside the
    visible tests' one)."""
    with executor.session(_SHARED_PAGES, "m.py", "m") as first, executor.session(_SHARED_PAGES, "m.py", "m") as second:
        first.load()
        second.load()
        (a,), (b,) = [s.call_function("shared_pages") for s in (first, second)]
    start_a, start_b = int(a.split("-")[0], 16), int(b.split("-")[0], 16)
    assert start_a != start_b and abs(start_a - start_b) > (1 << 30), (a, b)


def test_a_real_time_signal_is_named_from_sigrtmin():
    st = {"status": "exited", "signal": int(signal.SIGRTMIN) + 6, "received": True, "cpu": 0.1}
    said = _describe_status(st, Limits())
    assert "ended by SIGRTMIN+6, the signal's default action" in said, said


# --------------------------------------------------------------------------- out of memory
_CGROUP_V1 = "/sys/fs/cgroup/memory"


@pytest.fixture
def small_cgroup_executor():
    """An executor whose zygote was moved into a cgroup (v1) of 256 MiB: its jails are forked there, and one that
    touches more is ended by the kernel's OOM killer, as on a worker whose memory ran out."""
    import os
    import uuid

    from grading.sandbox import Executor

    path = f"{_CGROUP_V1}/autograder-test-{uuid.uuid4().hex[:8]}"
    try:
        os.mkdir(path)
    except OSError as e:
        pytest.skip(f"no cgroup v1 memory controller to write here: {e}")
    try:
        with open(f"{path}/memory.limit_in_bytes", "w") as f:
            f.write(str(256 << 20))
        if os.path.exists(f"{path}/memory.memsw.limit_in_bytes"):
            with open(f"{path}/memory.memsw.limit_in_bytes", "w") as f:
                f.write(str(256 << 20))
        with Executor(Limits(cpu=5, wall=20, call_timeout=5, import_timeout=5)) as ex:
            with open(f"{path}/cgroup.procs", "w") as f:
                f.write(str(ex.zygote_pid))
            yield ex
    finally:
        import time

        for _ in range(50):
            try:
                os.rmdir(path)
                break
            except OSError:
                time.sleep(0.1)


@pytest.mark.slow
def test_a_jail_ended_by_the_oom_killer_is_said_so_from_the_kernels_record_of_its_pid(small_cgroup_executor):
    """Review R1: "ran out of memory" was said from counts of OOM kills that are not the jail's own (the host's, the
    zygote's cgroup's). Round 38: said only from the kernel's log line naming the jail's own pid (zygote.kernel_end)."""
    ex = small_cgroup_executor
    # touched, under the jail's own limit (RLIMIT_AS, 1 GiB) but past the cgroup's 256 MiB
    source = GOOD + "\n_big = [bytearray(1 << 20) for _ in range(400)]\n"
    with pytest.raises(SandboxDied) as died:
        with ex.session(source, "m.py", "m") as s:
            s.load()
    said = str(died.value)
    assert said.endswith("killed by SIGKILL from the kernel's out-of-memory killer: the memory limit of its cgroup "
                         "was reached"), said
    told = death_text(died.value.reason)
    assert told == {"en": "the process was killed by SIGKILL from the kernel's out-of-memory killer: the memory limit "
                          "of its cgroup was reached",
                    "zh": "进程被内核在内存耗尽时以 SIGKILL 终止：它所在控制组的内存上限已达到"}, told
    with ex.session(GOOD, "m.py", "m") as s:        # the executor goes on
        s.load()


@pytest.mark.parametrize("oom_killed", [False, True])
def test_a_sigkill_is_said_as_seen_and_never_as_running_out_of_memory(oom_killed):
    """Review R1 (/tmp/R1/oomfake.py): a jail that dropped the grader's channel while another process of the host was
    OOM-killed was said to have "run out of memory"; one the zygote killed itself ("closed") was counted too."""
    st = {"status": "exited", "signal": int(signal.SIGKILL), "cpu": 0.1, "maxrss_kib": 300_000,
          **({"oom_killed": True} if oom_killed else {})}
    unsent = _describe_status(st, Limits())
    assert unsent == "the sandboxed process was killed by SIGKILL, which the grader did not send", unsent
    closed = _describe_status({**st, "status": "closed"}, Limits())
    assert closed == "the sandboxed process was killed by SIGKILL", closed
    for said in (unsent, closed):
        told = death_text(said)
        # never the jail's own memory use; since mend 41 the unsent SIGKILL names the kernel's out-of-memory killer as
        # one possible sender, whoever used the memory (every jail is its first choice: test_deaths_mend_round41)
        assert not re.search(r"ran out of memory|memory limit|used too much", told["en"]), told
        assert "内存上限" not in told["zh"] and "内存已用尽" not in told["zh"] and "OOM" not in told["zh"], told


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_the_zygote_holding_the_jails_handlers_still_ends_on_sigterm_as_before():
    """The handlers are installed once in the zygote and inherited by the jails; the zygote itself, no namespace's
    pid 1, still ends by the signal."""
    import os
    import time

    from grading.sandbox import Executor

    with Executor(Limits(cpu=5, wall=20)) as ex:
        with ex.session(GOOD, "m.py", "m") as s:
            s.load()
        os.kill(ex.zygote_pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while ex._proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ex._proc.returncode == -signal.SIGTERM


# --------------------------------------------------------------------------- review R1
def test_sigint_raises_keyboardinterrupt_which_the_code_can_catch_as_in_plain_python(executor):
    """Review R1: the jail ended on SIGINT ("had no handler") where ``python attention.py`` raises KeyboardInterrupt."""
    source = _in_forward("import os, signal, time\nassert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
                         "try:\n    os.kill(os.getpid(), signal.SIGINT)\n    time.sleep(2)\n"
                         "except KeyboardInterrupt:\n    return x * 0 + 7")
    assert _call(executor, source).tolist() == [[7.0] * 3] * 2
    assert_healthy(executor)


def test_sigint_set_to_the_default_action_ends_the_jail_by_sigint(executor):
    source = _in_forward("import os, signal\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\nos.kill(os.getpid(), signal.SIGINT)")
    with pytest.raises(SandboxDied) as died:
        _call(executor, source)
    assert "ended by SIGINT, the signal's default action" in str(died.value), str(died.value)


def test_a_handler_that_restores_the_default_and_resends_is_told_as_the_default_action_not_as_no_handler(executor):
    """Review R1 (/tmp/R1/reraise.py): the common clean-up-and-re-raise idiom was told it "had no handler"."""
    source = _in_forward("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)",
                         head="import os, signal\ndef _h(s, f):\n    signal.signal(s, signal.SIG_DFL)\n"
                              "    os.kill(os.getpid(), s)\nsignal.signal(signal.SIGTERM, _h)")
    with pytest.raises(SandboxDied) as died:
        _call(executor, source)
    told = death_text(died.value.reason)
    # since round 41 followed by what sends it (grading.proxy._SENT_EN): never a handler
    assert told["en"].startswith("the process was ended by SIGTERM, the signal's default action; "), told
    assert told["zh"].startswith("进程被信号 SIGTERM 结束，这是该信号的默认动作；"), told
    assert "handler" not in str(died.value), str(died.value)


# Everything the student's code can reach of the process it runs in: each frame below it (locals, plain values in
# full, others by type) and every dict gc tracks with a key naming a limit, a deadline or a sequence number, and
# every object of the zygote's bookkeeping classes.
_TRACES = GOOD + '''
import gc, sys

def _plain(v, depth=0):
    if isinstance(v, (bool, int, float, str, bytes, type(None))):
        return repr(v)[:300]
    if isinstance(v, (list, tuple, set, frozenset)) and depth < 4:
        return type(v).__name__ + "[" + ",".join(sorted(_plain(x, depth + 1) for x in v)) + "]"
    if isinstance(v, dict) and depth < 4:
        return "{" + ",".join(sorted(_plain(k, depth + 1) + ":" + _plain(x, depth + 1) for k, x in v.items())) + "}"
    return type(v).__name__

def traces():
    seen = []
    f = sys._getframe().f_back
    while f is not None:
        if f.f_code.co_name != "<module>":
            seen.append(f.f_code.co_name + " " + _plain(dict(f.f_locals)))
        f = f.f_back
    keys = {"cpu", "wall", "deadline", "limits", "cpu_rlimit", "wall_backstop", "uids", "uid", "started", "credit"}
    for o in gc.get_objects():
        if isinstance(o, dict) and keys & {k for k in o if isinstance(k, str)}:
            seen.append("dict " + _plain(o))
        elif type(o).__name__ in ("Jail", "EndPage", "BecomeJail", "Limits", "Executor"):
            # the end page's address is drawn at random for each jail (EndPage): its number only
            seen.append("object " + type(o).__name__ + ("" if type(o).__name__ == "EndPage" else _plain(vars(o))))
    return sorted(seen)
'''


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_nothing_that_differs_between_two_sessions_is_reachable_from_the_students_code():
    """Review R1 (/tmp/R1/leak1.py, leak2.py, leak3.py): a file walked the stack to run_jail and read
    job["limits"] (cpu 20.0 in the visible tests' session, 8.0 in the hidden ones'), or found that dict with
    gc.get_objects(), and told which tests it answered. The second session is opened beside the first, with other
    limits, as the hidden tests' is."""
    from grading.sandbox import Executor

    with Executor(Limits(cpu=20, wall=60, call_timeout=5, import_timeout=5)) as ex:
        with ex.session(_TRACES, "m.py", "m", limits=Limits(cpu=20, wall=60, call_timeout=5, import_timeout=5)) as a:
            a.load()
            first = a.call_function("traces")
            with ex.session(_TRACES, "m.py", "m", limits=Limits(cpu=8, wall=31, call_timeout=3, import_timeout=4)) as b:
                b.load()
                second = b.call_function("traces")
    assert any(t.startswith("serve ") for t in first), first        # the probe does see the frames
    # Round 38: each request's mark is drawn at random (os.urandom), the same way in every session: masked.
    first, second = ([re.sub(r"""(['"]mark['"]:)\d+""", r"\1N", t) for t in ts] for ts in (first, second))
    assert first == second, sorted(set(first) ^ set(second))
    assert not any("run_jail" in t and "'limits'" in t for t in first), first


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_the_jails_signals_do_not_depend_on_what_the_zygotes_starter_ignored_or_blocked():
    """The full fast lane found SIGQUIT sent to itself ignored by the jail: dispositions set to SIG_IGN and blocked
    signals survive the exec that starts the zygote, and the zygote kept them (a Celery worker or a test that
    ignored SIGQUIT started it). The zygote now starts from the default actions and an empty mask."""
    old = signal.signal(signal.SIGQUIT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        ex = Executor()
    finally:
        signal.signal(signal.SIGQUIT, old)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    with ex:
        for s in (signal.SIGQUIT, signal.SIGUSR1):
            with pytest.raises(SandboxDied) as died:
                _call(ex, _in_forward(_SENDS["os_kill_of_its_pid"].format(s=int(s))))
            assert f"ended by {signal.Signals(s).name}" in str(died.value), str(died.value)
