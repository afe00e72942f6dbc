"""Mend 47 (review RC, MED 2): a lost session is said to have crashed only when a crash was seen (a fault the kernel
logged). An exit (a finalizer's ``os._exit(0)``), a stop at the output or file size limit, or an end the sandbox's
words do not name were each counted as "crashed": "not run: attention.py crashed 3 times already"."""

from __future__ import annotations

import signal

import pytest

from grading.proxy import LOST_CAUSES, _death_cause, gave_up_text
from grading.sandbox import Limits
from grading.sandbox.client import CLOSED_KILLED_TEXT, OUTPUT_LIMIT_TEXT, _describe_status

_LIMITS = Limits()

# How a jail can end without a fault: (the sandbox's words, the cause, words the gave-up text must hold in en and zh).
_NOT_CRASHES = {
    "os._exit(0) in a finalizer": (_describe_status({"status": "exited", "exit_code": 0}, _LIMITS), "exited",
                                   "exited 3 times", "已退出 3 次"),
    "exit code 3": (_describe_status({"status": "exited", "exit_code": 3}, _LIMITS), "exited", "exited", "退出"),
    "file size limit": (_describe_status({"signal": signal.SIGXFSZ, "status": "signalled", "cpu": 0.1}, _LIMITS),
                        "over_file_size", "file size limit", "大小上限"),
    "output limit": (OUTPUT_LIMIT_TEXT.format(mib=_LIMITS.output_limit / (1 << 20)), "over_output", "output limit",
                     "输出超出上限"),
    "no status": (_describe_status(None, _LIMITS), "ended", "ended 3 times", "已结束 3 次"),
    "an unnamed status": (_describe_status({"status": "odd"}, _LIMITS), "ended", "ended", "结束"),
    "closed by the grader": (CLOSED_KILLED_TEXT.format(grace=1.0), "ended", "ended", "结束"),
}


@pytest.mark.parametrize("case", sorted(_NOT_CRASHES))
def test_an_end_without_a_fault_is_not_counted_or_said_as_a_crash(case):
    said, cause, en, zh = _NOT_CRASHES[case]
    assert _death_cause(said) == cause, (said, _death_cause(said))
    text = gave_up_text("attention.py", 3, [_death_cause(said)])
    assert "crash" not in text["en"] and "崩溃" not in text["zh"], text
    assert en in text["en"] and zh in text["zh"], text


def test_no_signal_ends_a_jail_as_a_crash_unless_the_kernel_logged_a_fault():
    for sig in signal.valid_signals():
        status = {"signal": int(sig), "status": "signalled", "cpu": 0.1}
        assert _death_cause(_describe_status(status, _LIMITS)) != "crashed", sig
    for sig in (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE):
        said = _describe_status({"signal": int(sig), "status": "signalled", "cpu": 0.1, "kernel": "fault"}, _LIMITS)
        assert _death_cause(said) == "crashed", said


def test_every_cause_is_said_in_both_languages_with_full_width_zh():
    for cause, (en, zh) in LOST_CAUSES.items():
        assert en.isascii() and en and zh and not zh.isascii(), cause
        assert not any(c in zh for c in ",;:()"), (cause, zh)


@pytest.mark.slow  # a jail spends its 1 s CPU limit (seconds of wall on a loaded host)
def test_a_real_session_stopped_at_its_cpu_limit_is_counted_as_using_it_up_not_as_a_crash(executor):
    """Review RC MED 3: driven by what the sandbox says of a real stop, not by a grading whose stops depend on the
    host's load. Before round 47: "crashed" ('not run: attention.py crashed 3 times already')."""
    from grading.sandbox import SandboxDied

    limits = Limits(cpu=1, wall=20, call_timeout=3, import_timeout=10)
    with executor.session("while True:\n    pass\n", "attention.py", "attention", limits=limits) as session:
        with pytest.raises(SandboxDied) as died:
            session.load()
    cause = _death_cause(died.value.reason)
    text = gave_up_text("attention.py", 3, [cause])
    assert cause == "over_cpu" and "CPU time limit 3 times" in text["en"] and "CPU 时间上限" in text["zh"], (
        str(died.value), text)
