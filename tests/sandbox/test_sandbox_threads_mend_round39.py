"""Round 39 mend: the fallback for a thread of the jail that faults before any CPU check of the zygote saw it.

The zygote names a thread's fault only for a thread id the kernel said was the jail's: seen in /proc at a CPU check
(Jail.note_threads, every CPU_CHECK_S = 0.1 s) or, since round 40, in the kernel's fork event of the thread
(zygote.ThreadWatch), so a thread that starts and faults within a millisecond is named when its fault was logged; when
printk's rate limit dropped the line, its end reads as the signal's default action, which is as true.
"""

from __future__ import annotations

import time

import pytest

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from grading.sandbox.client import FAULT_TEXT
from tests.sandbox.helpers import assert_healthy, jail_faults_logged
from tests.sandbox.test_sandbox_round35 import _call, _in_forward

# No sleep: the thread faults as soon as it runs; the main thread waits for it.
THREAD_FAULTS_AT_ONCE = ("import ctypes, threading\n"
                         "t = threading.Thread(target=ctypes.string_at, args=(0,))\n"
                         "t.start()\n"
                         "t.join()")


def test_a_thread_that_faults_before_any_check_saw_it_is_named_when_logged_else_said_as_the_default_action(executor):
    since = time.monotonic()
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(THREAD_FAULTS_AT_ONCE))
    said = str(died.value.reason)
    # the kernel may not have logged the thread's fault (jail_faults_logged: printk's rate limit may drop it)
    logged = jail_faults_logged(since)
    if logged:
        assert said == FAULT_TEXT.format(name="SIGSEGV"), said
    else:
        assert said == "the sandboxed process was ended by SIGSEGV, the signal's default action", (said, logged)
        assert "默认动作" in death_text(said)["zh"]
    assert_healthy(executor)
