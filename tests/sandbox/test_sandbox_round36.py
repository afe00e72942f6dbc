"""Round 36 of the sandbox: signals the jail sends itself while their action in the kernel is the default.

The jail is pid 1 of its pid namespace, and the kernel drops a signal whose action is the default that pid 1 sends
itself. Round 35 gave every ending signal a Python handler; still open were a SIG_DFL put back through ctypes
``sigaction`` (under Python's handler), and the signals with no handler there: SIGSEGV, SIGBUS, SIGFPE, SIGILL,
SIGABRT, SIGKILL sent with ``os.kill`` or ``signal.raise_signal``. Each returned and the code went on, where ``python
attention.py`` ends on it. And a SIGINT arriving between calls was told "the sandbox stopped answering"."""

from __future__ import annotations

import signal

import pytest
import torch

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from grading.sandbox.client import UNSENT_KILL_TEXT
from tests.sandbox.helpers import GOOD, assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward

# The kernel's action for a signal set back to the default through ctypes, under Python's handler.
_CTYPES_DEFAULT = ("import ctypes, signal\n"
                   "class _Act(ctypes.Structure):\n"
                   "    _fields_ = [('handler', ctypes.c_void_p), ('mask', ctypes.c_ulong * 16), ('flags', ctypes.c_int),"
                   " ('restorer', ctypes.c_void_p)]\n"
                   "ctypes.CDLL(None).sigaction({s}, ctypes.byref(_Act()), None)\n")

_SENDS = {"os_kill_of_its_pid": "import os\nos.kill(os.getpid(), {s})",
          "raise_signal": "import signal\nsignal.raise_signal({s})",
          "pthread_kill": "import signal, threading\nsignal.pthread_kill(threading.get_ident(), {s})",
          "killpg_of_its_group": "import os\nos.killpg(os.getpgrp(), {s})",
          "os_kill_of_its_group": "import os\nos.kill(0, {s})"}


def _ended_by(executor, source: str, name: str) -> None:
    with pytest.raises(SandboxDied) as died:
        _call(executor, source)
    said = str(died.value)
    assert f"ended by {name}, the signal's default action" in said, said
    told = death_text(died.value.reason)
    assert f"ended by {name}, the signal's default action" in told["en"], told
    assert f"信号 {name} 结束，这是该信号的默认动作" in told["zh"], told


@pytest.mark.parametrize("name", ["SIGTERM", "SIGUSR1", "SIGALRM", "SIGHUP", "SIGINT"])
def test_a_default_action_set_through_ctypes_sigaction_then_a_signal_sent_to_itself_ends_the_jail(executor, name):
    s = int(getattr(signal, name))
    _ended_by(executor, _in_forward(_CTYPES_DEFAULT.format(s=s) + _SENDS["raise_signal"].format(s=s)), name)
    assert_healthy(executor)


@pytest.mark.parametrize("name", ["SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGTRAP", "SIGSYS"])
def test_a_fault_signal_or_abort_sent_to_itself_ends_the_jail_said_as_sent_not_crashed(executor, name):
    s = int(getattr(signal, name))
    _ended_by(executor, _in_forward(_SENDS["os_kill_of_its_pid"].format(s=s)), name)
    assert_healthy(executor)


def test_a_sigkill_sent_to_itself_ends_the_jail_said_as_a_sigkill_the_grader_did_not_send(executor):
    """Since round 37 the student's process is pid 2 and its end is the kernel's: a SIGKILL it sent itself is a SIGKILL
    like the out-of-memory killer's, and the wait status does not tell which: no cause is named."""
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(_SENDS["os_kill_of_its_pid"].format(s=int(signal.SIGKILL))))
    assert str(died.value) == UNSENT_KILL_TEXT, str(died.value)
    assert_healthy(executor)


@pytest.mark.parametrize("how", list(_SENDS))
def test_every_way_of_sending_itself_sigsegv_ends_the_jail(executor, how):
    _ended_by(executor, _in_forward(_SENDS[how].format(s=int(signal.SIGSEGV))), "SIGSEGV")


def test_a_handler_of_its_own_for_sigsegv_still_runs_and_an_ignored_or_blocked_signal_is_left_to_the_kernel(executor):
    source = _in_forward("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
                         "signal.signal(signal.SIGUSR1, signal.SIG_IGN)\nsignal.raise_signal(signal.SIGUSR1)\n"
                         "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})\nsignal.raise_signal(signal.SIGUSR2)\n"
                         "return x * 0 + len(_SEEN)",
                         head="import signal\n_SEEN = []\nsignal.signal(signal.SIGSEGV, lambda s, f: _SEEN.append(s))")
    out = _call(executor, source)
    assert out.tolist() == [[1.0] * 3] * 2
    assert_healthy(executor)


def test_a_signal_sent_to_another_pid_or_a_refused_call_is_the_kernels_answer(executor):
    source = _in_forward("import os, signal\n"
                         "try:\n    os.kill(12345, signal.SIGSEGV)\nexcept ProcessLookupError:\n    pass\n"
                         "try:\n    signal.raise_signal(1000)\nexcept (ValueError, OSError):\n    pass\n"
                         "try:\n    os.kill('me', 9)\nexcept TypeError:\n    pass")
    assert _call(executor, source).tolist() == [[2.0] * 3] * 2


_SIGINT_BETWEEN_CALLS = GOOD + '''
import os, signal, threading
def arm():
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
'''


def test_a_sigint_arriving_between_calls_is_said_as_such_in_both_languages_not_as_stopped_answering(executor):
    with executor.session(_SIGINT_BETWEEN_CALLS, "m.py", "m") as s:
        s.load()
        s.call_function("arm")
        import time
        time.sleep(0.8)
        with pytest.raises(SandboxDied) as died:
            s.call(s.new("Scale"), "__call__", torch.ones(2, 3))
    told = death_text(died.value.reason)
    assert "KeyboardInterrupt (what a SIGINT raises) in the grader's loop between calls" in told["en"], told
    assert "stopped answering" not in told["en"], told
    assert "两次调用之间因评分器循环中的 KeyboardInterrupt（SIGINT 会引发它）" in told["zh"], told
    assert_healthy(executor)


def test_kill_of_minus_one_reaches_no_other_process_and_leaves_the_jail_running(executor):
    """kill(-1) signals every process but the caller; in the jail (pid 1, process group 1) there is none: ESRCH, as
    before, never the jail's end."""
    source = _in_forward("import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    pass")
    assert _call(executor, source).tolist() == [[2.0] * 3] * 2
    assert_healthy(executor)
