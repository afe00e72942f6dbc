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
    assert _plain(FAULT) == -signal.SIGSEGV
    said = _died(executor, FAULT)
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
    assert "内存" not in death_text(said)["zh"]
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
