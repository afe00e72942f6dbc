"""Round 38 of the sandbox: a jail's end is said as the kernel saw it, not guessed.

The wait status alone does not tell a SIGSEGV the code sent itself from a fault of its code, nor a SIGKILL it sent
itself from one of the kernel's OOM killer: each pair was said alike. The kernel logs the two it sends itself, naming
the process by its pid (zygote.kernel_end); only then is a crash or an out-of-memory kill said. Each case runs the same
statements under plain python3.11 beside the jail, as round 37's did.
"""

from __future__ import annotations

import shutil
import signal
import subprocess

import pytest

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from tests.sandbox.helpers import GOOD, assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward, small_cgroup_executor  # noqa: F401 - a fixture

FAULT = "import ctypes\nctypes.string_at(0)"
SENT_SEGV = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"
SENT_KILL = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"


def _plain(statements: str) -> int:
    python = shutil.which("python3.11")
    if python is None:
        pytest.skip("no python3.11 to compare with")
    return subprocess.run([python, "-c", statements], capture_output=True, timeout=30).returncode


def _died(executor, statements: str) -> str:
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(statements))
    return str(died.value.reason)


def test_a_segfault_of_the_codes_own_is_said_as_a_crash_the_kernel_logged(executor):
    import time

    from tests.sandbox.helpers import jail_faults_logged

    assert _plain(FAULT) == -signal.SIGSEGV
    since = time.monotonic()
    said = _died(executor, FAULT)
    if not jail_faults_logged(since):
        # printk's host-wide rate limit dropped the line (other processes faulted): the cause is not named
        assert said == "the sandboxed process was ended by SIGSEGV, the signal's default action", said
        return
    assert said == "the sandboxed process crashed (SIGSEGV): the kernel logged a fault of its code", said
    told = death_text(said)
    assert told == {"en": "the process crashed (SIGSEGV): the kernel logged a segmentation fault (an access to memory "
                          "it may not use) in its code",
                    "zh": "进程崩溃（SIGSEGV）：内核记录到它的代码发生了段错误（访问了不允许访问的内存）"}, told
    assert_healthy(executor)


def test_a_sigsegv_the_code_sends_itself_is_said_as_the_signal_never_as_a_crash(executor):
    assert _plain(SENT_SEGV) == -signal.SIGSEGV      # plain Python ends the same way: only the cause differs
    said = _died(executor, SENT_SEGV)
    assert said == "the sandboxed process was ended by SIGSEGV, the signal's default action", said
    assert "崩溃" not in death_text(said)["zh"]
    assert_healthy(executor)


def test_a_sigkill_the_code_sends_itself_is_never_said_as_memory(executor):
    assert _plain(SENT_KILL) == -signal.SIGKILL
    said = _died(executor, SENT_KILL)
    assert said == "the sandboxed process was killed by SIGKILL, which the grader did not send", said
    # never as its memory use; since mend 41 the kernel's out-of-memory killer is named as one possible sender, whoever
    # used the memory (test_deaths_mend_round41)
    assert "内存上限" not in death_text(said)["zh"] and "内存已用尽" not in death_text(said)["zh"]
    assert_healthy(executor)


def test_a_fault_under_a_handler_of_its_own_is_not_said_as_logged(executor):
    """faulthandler takes SIGSEGV, then raises it again: the kernel logs no unhandled fault, so no cause is named."""
    said = _died(executor, "import faulthandler\nfaulthandler.enable()\n" + FAULT)
    assert said == "the sandboxed process was ended by SIGSEGV, the signal's default action", said
    assert_healthy(executor)


def test_the_kernel_log_is_read_for_one_pid_and_one_lifetime_only():
    """A real segfault of another process (plain python3.11) is found for its pid, not for another pid, and not for a
    process of that pid started after it."""
    import time

    from grading.sandbox.zygote import kernel_end

    python = shutil.which("python3.11")
    if python is None:
        pytest.skip("no python3.11")
    since = time.monotonic()
    proc = subprocess.Popen([python, "-c", FAULT])
    assert proc.wait(30) == -signal.SIGSEGV
    assert kernel_end(proc.pid, since) == "fault"
    assert kernel_end(proc.pid + 100_000, since) is None
    assert kernel_end(proc.pid, time.monotonic() + 5) is None
    assert kernel_end(proc.pid, since, kmsg="/nonexistent/kmsg") is None


@pytest.mark.slow
def test_a_jail_killed_at_its_cgroups_memory_limit_is_said_so(small_cgroup_executor):  # noqa: F811
    ex = small_cgroup_executor
    source = GOOD + "\n_big = [bytearray(1 << 20) for _ in range(400)]\n"   # under RLIMIT_AS, past the cgroup's 256 MiB
    with pytest.raises(SandboxDied) as died:
        with ex.session(source, "m.py", "m") as s:
            s.load()
    said = str(died.value.reason)
    assert said == ("the sandboxed process was killed by SIGKILL from the kernel's out-of-memory killer: the memory "
                    "limit of its cgroup was reached"), said
    assert death_text(said)["zh"] == "进程被内核在内存耗尽时以 SIGKILL 终止：它所在控制组的内存上限已达到"
    with ex.session(GOOD, "m.py", "m") as s:        # the executor goes on
        s.load()


# ----------------------------------------------------------------------------------------------- forged replies
# A thread of the student's writes a well-formed reply on the data socket (fd 3) while the main call still runs: the
# session's requests are load (seq 1), new (2), call (3). Its value is 7s where the call returns 2s.
_FORGER = '''
import json as _json, os as _os, sys as _sys, threading as _threading, time as _time


def _fields():
    """{guess}"""
    if {guess!r} == "seq":
        return {{"seq": 3}}
    frame = _sys._current_frames()[_threading.main_thread().ident]
    while frame is not None:
        req = frame.f_locals.get("req")
        if isinstance(req, dict) and "seq" in req:
            return {{k: v for k, v in req.items() if type(v) is int}}
        frame = frame.f_back
    return {{"seq": 3}}


def _forge():
    head = _json.dumps({{"v": {{"D": {{**_fields(), "ok": True, "value": {{"X": 0}}}}}},
                        "t": [{{"dtype": "float32", "shape": [2, 3], "offset": 0, "nbytes": 24}}], "n": 24}}).encode()
    _os.write(3, len(head).to_bytes(4, "big") + head + b"\\x00\\x00\\xe0@" * 6)


def _forward(self, x, shift=0.0):
    _threading.Thread(target=_forge, daemon=True).start()
    _time.sleep(0.5)
    return x * 2.0 + shift


Scale.forward = _forward
'''


@pytest.mark.parametrize("guess", ["seq", "the_int_fields_of_a_req_dict_read_off_the_main_threads_frames"])
def test_a_reply_a_student_thread_writes_while_the_call_runs_is_never_taken_as_its_return(executor, guess):
    import torch

    from grading.sandbox import StudentError

    with executor.session(GOOD + _FORGER.format(guess=guess), "m.py", "m") as s:
        s.load()
        h = s.new("Scale")
        with pytest.raises(StudentError) as refused:
            value = s.call(h, "__call__", torch.ones(2, 3))
            assert value.tolist() != [[7.0] * 3] * 2, "the forged reply was taken as the call's return"
    assert refused.value.kind == "InvalidResult"
    assert "a reply out of sequence: code in the sandbox wrote on the grader's channel" in str(refused.value)
    assert_healthy(executor)


def test_an_honest_sessions_replies_carry_the_requests_marks(executor):
    """Every request of a session gets a mark of its own (not a counter), and the runtime's replies are accepted."""
    import torch

    with executor.session(GOOD, "m.py", "m") as s:
        s.load()
        h = s.new("Scale")
        for _ in range(3):
            assert s.call(h, "__call__", torch.ones(2, 3)).tolist() == [[2.0] * 3] * 2
    assert_healthy(executor)
