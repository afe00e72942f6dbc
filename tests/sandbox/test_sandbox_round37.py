"""Round 37 of the sandbox: the jail's signals as a class.

The jail was pid 1 of its pid namespace, and the kernel drops a signal whose action is the default that pid 1 receives
from inside its namespace. Rounds 35/36 wrapped the Python-level senders; still dropped (the code went on where plain
python3.11 dies): libc's kill/raise/tgkill through ctypes, a kernel-generated signal (an alarm, SIGXCPU) after a default
action set through ctypes, ``pthread_kill`` of a thread ``threading`` does not know, a pending signal unblocked through
ctypes. Since round 37 the student's code runs as pid 2, under an init that runs none of it: each case below ends (or
goes on) in the jail as the same statements do under plain python3.11, which each test runs beside it.
"""

from __future__ import annotations

import shutil
import signal
import subprocess

import pytest

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from tests.sandbox.helpers import assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward

# The kernel's action for a signal set back to the default through ctypes (what C code that installs SIG_DFL does).
_CTYPES_DEFAULT = ("class _Act(ctypes.Structure):\n"
                   "    _fields_ = [('handler', ctypes.c_void_p), ('mask', ctypes.c_ulong * 16), ('flags', ctypes.c_int),"
                   " ('restorer', ctypes.c_void_p)]\n"
                   "ctypes.CDLL(None).sigaction({s}, ctypes.byref(_Act()), None)\n")
_SET = "_set = (ctypes.c_ulong * 16)()\n_set[0] = 1 << ({s} - 1)\n"    # a sigset_t holding signal {s}

# Statements, each run in a jail's call and under plain python3.11; {s} is the signal sent.
CASES = {
    "libc_kill_of_its_pid": ("SIGSEGV", "import ctypes, os\nctypes.CDLL(None).kill(os.getpid(), {s})"),
    "libc_raise": ("SIGBUS", "import ctypes\ngetattr(ctypes.CDLL(None), 'raise')({s})"),
    "libc_tgkill_syscall": ("SIGFPE", "import ctypes, os, threading\n"
                                       "ctypes.CDLL(None).syscall(234, os.getpid(), threading.get_native_id(), {s})"),
    "libc_abort_under_a_python_handler": ("SIGABRT", "import ctypes, signal\n"
                                                     "signal.signal(signal.SIGABRT, lambda n, f: None)\n"
                                                     "ctypes.CDLL(None).abort()"),
    "an_alarm_after_sig_dfl_through_ctypes": ("SIGALRM", "import ctypes, signal, time\n" + _CTYPES_DEFAULT
                                              + "signal.setitimer(signal.ITIMER_REAL, 0.2)\ntime.sleep(1.5)"),
    "sigint_set_to_the_default_through_ctypes_then_libc_raise": (
        "SIGINT", "import ctypes\n" + _CTYPES_DEFAULT + "getattr(ctypes.CDLL(None), 'raise')({s})"),
    "pthread_kill_of_a_thread_threading_does_not_know": (
        "SIGSEGV", "import _thread, signal, time\n_idents = []\n"
                   "_thread.start_new_thread(lambda: (_idents.append(_thread.get_ident()), time.sleep(3)), ())\n"
                   "while not _idents:\n    time.sleep(0.01)\n"
                   "signal.pthread_kill(_idents[0], {s})\ntime.sleep(1.5)"),
    "a_pending_signal_unblocked_through_ctypes_pthread_sigmask": (
        "SIGILL", "import ctypes, signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {{{s}}})\n"
                   "signal.raise_signal({s})\n" + _SET + "ctypes.CDLL(None).pthread_sigmask(1, ctypes.byref(_set), None)"),
    "a_pending_signal_unblocked_through_ctypes_sigprocmask": (
        "SIGBUS", "import ctypes, signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {{{s}}})\n"
                   "signal.raise_signal({s})\n" + _SET + "ctypes.CDLL(None).sigprocmask(1, ctypes.byref(_set), None)"),
    # Taken by sigwait, the pending signal's default action is never taken: plain Python goes on.
    "a_pending_signal_taken_by_sigwait": (
        "SIGTERM", "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {{{s}}})\nsignal.raise_signal({s})\n"
                   "if signal.sigwait({{{s}}}) != {s}:\n    raise AssertionError('sigwait')\n"
                   "signal.pthread_sigmask(signal.SIG_UNBLOCK, {{{s}}})"),
}


def _statements(case: str) -> str:
    name, code = CASES[case]
    return code.format(s=int(getattr(signal, name)))


@pytest.fixture(scope="module")
def plain() -> dict[str, int]:
    """Each case's end under plain python3.11: its return code (minus the signal that ended it; 0: it went on)."""
    python = shutil.which("python3.11")
    if python is None:
        pytest.skip("no python3.11 to compare with")
    ends = {}
    for case in CASES:
        done = subprocess.run([python, "-c", _statements(case) + "\nprint('went on')"], capture_output=True, text=True,
                              timeout=30)
        assert done.returncode != 0 or done.stdout == "went on\n", (case, done)
        ends[case] = done.returncode
    return ends


@pytest.mark.parametrize("case", list(CASES))
def test_each_signal_case_ends_the_jail_or_lets_it_go_on_as_plain_python_does(executor, plain, case):
    if plain[case] == 0:
        assert _call(executor, _in_forward(_statements(case))).tolist() == [[2.0] * 3] * 2
    else:
        name = signal.Signals(-plain[case]).name
        assert name == CASES[case][0], (case, plain[case])
        with pytest.raises(SandboxDied) as died:
            _call(executor, _in_forward(_statements(case)))
        said = str(died.value)
        assert f"ended by {name}, the signal's default action" in said, said
        told = death_text(died.value.reason)
        assert f"信号 {name} 结束，这是该信号的默认动作" in told["zh"], told
    assert_healthy(executor)


def test_plain_python_dies_in_every_case_but_sigwait(plain):
    """The comparison is no tautology: plain python3.11 dies by the case's signal in each case but sigwait's."""
    assert {c: -r for c, r in plain.items() if r} == {
        c: int(getattr(signal, n)) for c, (n, _) in CASES.items() if c != "a_pending_signal_taken_by_sigwait"}
    assert plain["a_pending_signal_taken_by_sigwait"] == 0


@pytest.mark.slow
def test_a_sigxcpu_from_a_lowered_cpu_rlimit_ends_the_jail_as_it_ends_plain_python(executor):
    """The kernel's own SIGXCPU (RLIMIT_CPU's soft limit, lowered by the code to 1 s, below the session's 5 s), its
    default action set through ctypes."""
    spin = ("import ctypes, resource\n" + _CTYPES_DEFAULT.format(s=int(signal.SIGXCPU))
            + "resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))\n"
            "while True:\n    pass")
    plain_end = subprocess.run([shutil.which("python3.11") or "python3", "-c", spin], timeout=30).returncode
    assert plain_end == -signal.SIGXCPU
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(spin))
    assert "ended by SIGXCPU, the signal's default action" in str(died.value), str(died.value)
    assert_healthy(executor)


def test_the_jail_sees_only_its_own_process_not_its_init(executor):
    """Pid 1 of the namespace is the jail's init (root, cat: round 37 A2): hidden from the student's /proc (hidepid),
    and beyond its signals (another uid; and pid 1 drops what has no handler)."""
    source = _in_forward("import os, signal\n"
                         "if not sorted(p for p in os.listdir('/proc') if p.isdigit()) == [str(os.getpid())] == ['2']:\n"
                         "    raise AssertionError(os.listdir('/proc'))\n"
                         "try:\n    os.kill(1, signal.SIGKILL)\nexcept PermissionError:\n    pass\n"
                         "else:\n    raise AssertionError('signalled its init')")
    assert _call(executor, source).tolist() == [[2.0] * 3] * 2
    assert_healthy(executor)
