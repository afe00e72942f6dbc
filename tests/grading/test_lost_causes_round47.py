"""Round 47: a session the sandbox stopped at its CPU limit is counted as stopped there, not as a crash ("not run:
attention.py crashed 3 times already" was said after three stops each reported as "CPU time limit exceeded")."""

from __future__ import annotations

import signal

from grading.proxy import _death_cause, gave_up_text
from grading.sandbox import Limits
from grading.sandbox.client import _describe_status


def test_a_stop_at_the_sessions_cpu_limit_is_said_as_using_up_the_limit_in_both_languages():
    limits = Limits()
    for status in ({"signal": signal.SIGKILL, "status": "cpu", "cpu": limits.cpu + 0.02},
                   {"signal": signal.SIGXCPU, "status": "signalled", "cpu": limits.cpu}):
        cause = _death_cause(_describe_status(status, limits))
        assert cause == "over_cpu", (status, cause)
        said = gave_up_text("attention.py", 3, [cause])
        assert "crashed" not in said["en"] and "崩溃" not in said["zh"], said
        assert "used up its CPU time limit 3 times" in said["en"] and "CPU 时间上限" in said["zh"], said


def test_a_fault_signal_is_still_said_as_a_crash():
    cause = _death_cause(_describe_status({"signal": signal.SIGSEGV, "status": "signalled", "cpu": 0.1,
                                           "kernel": "fault"}, Limits()))
    assert cause == "crashed"
