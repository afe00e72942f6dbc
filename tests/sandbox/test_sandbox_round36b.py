"""Round 36b (mend M1): signals the jail sends itself, as the kernel delivers them, and the grader loop's own end.

R1 found the jail going on where ``python attention.py`` dies (a process-directed signal the caller blocks but
another thread does not; kill() of a thread's TID; the signal as an IntEnum or np.int64; pidfd_send_signal;
faulthandler's handler, which re-raises with C's raise(); a signal blocked, sent, then unblocked) and ending where it
goes on (pthread_kill of a thread that blocks the signal, or of a joined thread: the caller's mask was read and any
ident taken for the jail's). And a student's ``os._exit(72)`` was told "ended by a SIGINT ... between calls".
"""
from __future__ import annotations

import pytest

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from tests.sandbox.helpers import GOOD, assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward
from tests.sandbox.test_sandbox_round36 import _ended_by

_THREAD = "ev = threading.Event()\nt = threading.Thread(target=ev.wait, daemon=True)\nt.start()\n"

# each: python -c of it ends by the signal (rc=-N); before, in the jail, the code went on
ENDS = {
    "block_send_unblock": ("import os, signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGSEGV})\n"
                           "os.kill(os.getpid(), signal.SIGSEGV)\n"
                           "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGSEGV})", "SIGSEGV"),
    "caller_blocks_another_thread_not": ("import os, signal, threading, time\n" + _THREAD +
                                         "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGSEGV})\n"
                                         "os.kill(os.getpid(), signal.SIGSEGV)\ntime.sleep(0.3)", "SIGSEGV"),
    "pthread_kill_of_another_thread_from_a_blocking_caller": (
        "import signal, threading, time\n" + _THREAD + "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGSEGV})\n"
        "signal.pthread_kill(t.ident, signal.SIGSEGV)\ntime.sleep(0.3)", "SIGSEGV"),
    "kill_of_a_thread_s_tid": ("import os, signal, threading, time\n" + _THREAD +
                               "os.kill(t.native_id, signal.SIGSEGV)\ntime.sleep(0.3)", "SIGSEGV"),
    "intenum": ("import os, enum\nclass S(enum.IntEnum):\n    SEGV = 11\nos.kill(os.getpid(), S.SEGV)", "SIGSEGV"),
    "numpy_int64": ("import os, numpy as np\nos.kill(os.getpid(), np.int64(11))", "SIGSEGV"),
    "pidfd_send_signal": ("import os, signal\nsignal.pidfd_send_signal(os.pidfd_open(os.getpid()), signal.SIGSEGV)",
                          "SIGSEGV"),
    "faulthandler_kill": ("import os, signal, faulthandler\nfaulthandler.enable()\n"
                          "os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV"),
    "faulthandler_raise_signal": ("import signal, faulthandler\nfaulthandler.enable()\n"
                                  "signal.raise_signal(signal.SIGFPE)", "SIGFPE"),
}

# each: python -c of it goes on; before, the jail was "ended by SIGSEGV"
GOES_ON = {
    "pthread_kill_of_a_thread_that_blocks_it": (
        "import signal, threading\nready, ev = threading.Event(), threading.Event()\ndef run():\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGSEGV})\n    ready.set()\n    ev.wait()\n"
        "t = threading.Thread(target=run, daemon=True)\nt.start()\nready.wait()\n"
        "signal.pthread_kill(t.ident, signal.SIGSEGV)\nev.set()\nt.join()"),
}

# pthread_kill of a joined thread: undefined in glibc (see the test of its own below)
MAY_GO_ON = {
    "pthread_kill_of_a_joined_thread": (
        "import signal, threading\nt = threading.Thread(target=lambda: None)\nt.start()\nt.join()\n"
        "try:\n    signal.pthread_kill(t.ident, signal.SIGSEGV)\nexcept OSError:\n    pass"),
}


@pytest.mark.parametrize("name", list(ENDS))
def test_a_signal_that_ends_plain_python_ends_the_jail(executor, name):
    source, signame = ENDS[name]
    _ended_by(executor, _in_forward(source), signame)


@pytest.mark.parametrize("name", list(GOES_ON))
def test_a_signal_plain_python_goes_on_after_leaves_the_jail_running(executor, name):
    assert _call(executor, _in_forward(GOES_ON[name])).tolist() == [[2.0] * 3] * 2
    assert_healthy(executor)


def test_pthread_kill_of_a_joined_thread_either_goes_on_or_is_told_as_the_sigsegv_it_sent(executor):
    """pthread_kill of a joined thread reads a freed descriptor (undefined in glibc): when a later thread of the jail
    reuses the cached stack, the signal reaches that live thread and the jail is ended by SIGSEGV, as plain Python
    would be in the same state. Seen about once in three fast-lane runs. Either outcome is the student's; a grader
    error or an unnamed death is not. Before round 36b the jail died every time (the caller's ident was taken for the
    jail's), so most of the tries must go on."""
    source = _in_forward(MAY_GO_ON["pthread_kill_of_a_joined_thread"])
    went_on = 0
    for _ in range(3):
        try:
            assert _call(executor, source).tolist() == [[2.0] * 3] * 2
            went_on += 1
        except SandboxDied as died:
            told = death_text(died.reason)
            assert "SIGSEGV" in told["en"] and "SIGSEGV" in told["zh"], told
        assert_healthy(executor)
    assert went_on >= 2


def _died(executor, source: str) -> SandboxDied:
    with pytest.raises(SandboxDied) as died:
        _call(executor, source)
    return died.value


@pytest.mark.parametrize("code", [71, 72])
@pytest.mark.parametrize("where", ["forward", "import"])
def test_a_student_s_os_exit_with_the_grader_loop_s_codes_is_told_as_that_exit(executor, code, where):
    """Before: 72 "was ended by a SIGINT (KeyboardInterrupt) that arrived between calls", 71 "stopped answering"."""
    exit_ = f"import os\nos._exit({code})"
    died = _died(executor, _in_forward(exit_) if where == "forward" else GOOD + "\n" + exit_ + "\n")
    told = death_text(died.reason)
    assert f"exited with code {code}" in str(died), str(died)
    assert "SIGINT" not in told["en"] + told["zh"] and "stopped answering" not in told["en"], told
    assert_healthy(executor)
