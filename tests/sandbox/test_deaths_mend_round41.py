"""Mend of round 41 (E): the death texts name every cause the grader cannot tell apart, each as what can raise it.

HIGH 1: a SIGKILL the grader did not send names the kernel's out-of-memory killer too: every jail is its first choice
(zygote._prefer_for_oom_kill), so an honest jail dies when another process exhausts the memory, and where there is no
/dev/kmsg (compose) nothing tells that kill apart. It is said as a possible sender, never as the jail's memory use.
MED 2: a signal no one outside the process sent is "raised" by the process, by a send or by something it asked the
kernel for: a seccomp filter of its own (SIGSYS) and a POSIX timer (any signal) send nothing.
MED 3: the runtime catches SystemExit wherever student code runs, so an exit is never told as an uncaught sys.exit.
LOW 4, 5: SIGFPE and SIGSEGV give their faults as examples (INT_MIN / -1, floating-point traps; stack exhaustion).
"""

from __future__ import annotations

import re
import signal

import pytest

from grading.proxy import death_text
from grading.sandbox.client import Limits, _describe_status
from tests.sandbox import test_hostile_round39
from tests.sandbox.test_hostile_round39 import REF, fwd, grade_hostile

reference_total = test_hostile_round39.reference_total

LIBC = "import ctypes\n_libc = ctypes.CDLL(None, use_errno=True)\n"


def _told(status: dict) -> dict:
    return death_text(_describe_status(status, Limits()))


# ------------------------------------------------------------------------------------------------- HIGH 1
@pytest.mark.parametrize("oom_killed", [False, True])
def test_a_sigkill_the_grader_did_not_send_names_the_oom_killer_as_a_possible_sender_whoever_used_the_memory(
        oom_killed):
    told = _told({"status": "exited", "signal": int(signal.SIGKILL), "cpu": 0.1, "maxrss_kib": 300_000,
                  **({"oom_killed": True} if oom_killed else {})})
    assert "the kernel's out-of-memory killer, which ends sandboxed processes first" in told["en"], told
    assert "whichever process used it" in told["en"], told
    assert "内核在整台机器内存不足时结束进程的机制：它优先结束沙箱中的进程，不论内存是被哪个进程用掉的" in told["zh"], told
    # the other senders stay, and all are said as possibilities
    assert "it can come from" in told["en"] and "`os.kill`" in told["en"] and "`resource.setrlimit`" in told["en"]
    assert "可能来自" in told["zh"] and "`os.kill`" in told["zh"] and "`resource.setrlimit`" in told["zh"], told
    # never as the jail's own memory use (review R1): the kernel's record alone says that (client.OOM_TEXTS)
    assert not re.search(r"ran out of memory|memory limit|used too much", told["en"]), told
    assert "内存上限" not in told["zh"] and "内存已用尽" not in told["zh"], told


# ------------------------------------------------------------------------------------------------- MED 2
@pytest.mark.parametrize("sig", [signal.SIGSYS, signal.SIGUSR1, signal.SIGTERM, signal.SIGSEGV, signal.SIGALRM],
                         ids=lambda s: s.name)
def test_a_signal_of_the_process_own_is_said_raised_by_a_send_or_by_what_it_asked_the_kernel_for(sig):
    told = _told({"status": "exited", "signal": int(sig), "cpu": 0.1})
    assert "code in your process (yours or a library's) raised it: by a send (`os.kill`" in told["en"], told
    assert "by something it asked the kernel for (a timer, a seccomp filter, ...)" in told["en"], told
    assert "sent it" not in told["en"], told
    assert "引发了它" in told["zh"] and "定时器、`seccomp` 过滤器等" in told["zh"], told


NOTHING_SENT = {
    # its own seccomp filter (allowed under NO_NEW_PRIVS) kills on getppid: a SIGSYS the kernel raises
    "own_seccomp_filter": fwd(
        LIBC + "import struct\n"
        "_f = (struct.pack('HBBI', 0x20, 0, 0, 0) + struct.pack('HBBI', 0x15, 0, 1, 110)\n"
        "      + struct.pack('HBBI', 0x06, 0, 0, 0x80000000) + struct.pack('HBBI', 0x06, 0, 0, 0x7fff0000))\n"
        "_b = ctypes.create_string_buffer(_f)\n"
        "class _P(ctypes.Structure):\n    _fields_ = [('len', ctypes.c_ushort), ('f', ctypes.c_void_p)]\n"
        "_p = _P(4, ctypes.addressof(_b))\n"
        "assert _libc.prctl(22, 2, ctypes.byref(_p), 0, 0) == 0, ctypes.get_errno()\n"
        "import os\nos.getppid()"),
    # a POSIX timer whose expiry the kernel signals with SIGUSR1
    "posix_timer_sigusr1": fwd(
        LIBC + "import signal, time\n"
        "class _SE(ctypes.Structure):\n"
        "    _fields_ = [('v', ctypes.c_void_p), ('signo', ctypes.c_int), ('notify', ctypes.c_int),"
        " ('pad', ctypes.c_char * 48)]\n"
        "_se = _SE(None, int(signal.SIGUSR1), 0)\n_t = ctypes.c_void_p()\n"
        "assert _libc.timer_create(1, ctypes.byref(_se), ctypes.byref(_t)) == 0\n"
        "class _TS(ctypes.Structure):\n    _fields_ = [('s', ctypes.c_long), ('ns', ctypes.c_long)]\n"
        "class _IT(ctypes.Structure):\n    _fields_ = [('i', _TS), ('v', _TS)]\n"
        "_libc.timer_settime(_t, 0, ctypes.byref(_IT(_TS(0, 0), _TS(0, 10_000_000))), None)\ntime.sleep(1)"),
}


@pytest.mark.parametrize("name", list(NOTHING_SENT))
def test_a_signal_the_kernel_raised_for_what_the_process_asked_is_not_told_as_sent(executor, reference_total, name):
    result = grade_hostile(executor, NOTHING_SENT[name], reference_total, name)
    told = [t["feedback"] for t in result["tests"] if t["outcome"] != "passed"]
    assert any("by something it asked the kernel for" in f["en"] for f in told), [f["en"] for f in told]
    assert not any("sent it" in f["en"] for f in told), [f["en"] for f in told]
    assert any("向内核请求了会引发它的东西" in f["zh"] for f in told), [f["zh"] for f in told]


# ------------------------------------------------------------------------------------------------- MED 3
def test_an_exit_is_never_told_as_an_uncaught_sys_exit():
    told = _told({"status": "exited", "exit_code": 3})
    assert "sys.exit" not in told["en"] and "sys.exit" not in told["zh"], told
    assert "`os._exit(3)` or C's `exit(3)`" in told["en"], told


SYS_EXITS = {
    "in_forward": fwd("import sys\nsys.exit(3)"),
    "at_import": REF + "\nimport sys\nsys.exit(3)\n",
    "from_a_handler_between_calls": REF + "\nimport signal, sys\n"
                                          "signal.signal(signal.SIGALRM, lambda *a: sys.exit(3))\n"
                                          "signal.setitimer(signal.ITIMER_REAL, 0.05)\n",
}


@pytest.mark.parametrize("name", list(SYS_EXITS))
def test_a_sys_exit_anywhere_is_caught_by_the_runtime_and_never_ends_the_process_with_its_code(
        executor, reference_total, name):
    """What the exit text leaves out is what the sandbox does: SystemExit is caught wherever the code runs."""
    result = grade_hostile(executor, SYS_EXITS[name], reference_total, name)
    texts = [t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed"]
    texts.append((result.get("message") or {}).get("en", ""))
    assert not any("exited with code 3" in t for t in texts), texts


# ------------------------------------------------------------------------------------------------- LOW 4, 5
def test_a_floating_point_exception_gives_its_faults_as_examples_not_only_division_by_zero():
    told = _told({"status": "exited", "signal": int(signal.SIGFPE), "cpu": 0.1})
    assert "for example an integer division by zero or of the smallest integer by -1" in told["en"], told
    assert "floating-point trap" in told["en"] and "最小整数除以 -1" in told["zh"] and "浮点异常" in told["zh"], told


def test_a_segmentation_fault_names_a_stack_overflowed_by_deep_recursion_in_c_code():
    told = _told({"status": "exited", "signal": int(signal.SIGSEGV), "cpu": 0.1})
    assert "deep recursion in C code" in told["en"] and "过深的递归用尽了栈" in told["zh"], told
