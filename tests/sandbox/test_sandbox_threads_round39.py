"""Round 39 of the sandbox: a fault in a thread other than the jail's main thread is named.

The kernel's fault record names the faulting thread's id, which is the pid only for the main thread: a thread's fault
was said as a signal of unknown origin. The zygote now keeps the ids of the jail's threads it sees (Jail.note_threads)
and counts a record naming one of them; never an id read off the record's free text.
"""

from __future__ import annotations

import time

import pytest

from grading.proxy import death_text
from grading.sandbox import SandboxDied
from grading.sandbox.zygote import kernel_end
from tests.sandbox.helpers import assert_healthy, jail_faults_logged
from tests.sandbox.test_sandbox_mend_round38 import TAIL
from tests.sandbox.test_sandbox_round35 import _call, _in_forward

# A thread that lives well past the zygote's CPU check (0.1 s), then faults; the main thread waits for it.
THREAD_FAULT = ("import ctypes, threading, time\n"
                "def _crash():\n"
                "    time.sleep(0.6)\n"
                "    ctypes.string_at(0)\n"
                "t = threading.Thread(target=_crash)\n"
                "t.start()\n"
                "t.join()")


def _log(tmp_path, text: bytes) -> str:
    since = time.monotonic()
    log = tmp_path / "kmsg"
    log.write_bytes(b"3,100,%d,-;" % (int(since * 1e6) + 1000) + text + b"\n")
    return str(log), since


def test_a_fault_record_naming_a_thread_the_caller_saw_counts_as_the_processs(tmp_path):
    log, since = _log(tmp_path, b"ag-jail[501]: segfault at 0" + TAIL)
    assert kernel_end(500, since, kmsg=log) is None                               # not the pid, no threads known
    assert kernel_end(500, since, kmsg=log, threads=frozenset({501})) == "fault"
    assert kernel_end(500, since, kmsg=log, threads=frozenset({502})) is None


def test_a_thread_id_written_in_a_records_free_text_does_not_count(tmp_path):
    """The file name at the line's end is the student's: "x[501]: segfault at" there names nothing."""
    log, since = _log(tmp_path, b"ag-jail[900]: segfault at 0" + TAIL + b" in x[501]: segfault at [0,7f+1000]")
    assert kernel_end(500, since, kmsg=log, threads=frozenset({501})) is None


def test_an_oom_record_is_never_matched_by_a_thread_id(tmp_path):
    log, since = _log(tmp_path, b"Out of memory: Killed process 501 (ag-jail) total-vm:1kB")
    assert kernel_end(500, since, kmsg=log, threads=frozenset({501})) is None
    assert kernel_end(501, since, kmsg=log) == "oom"


def test_a_fault_in_a_thread_of_the_jail_is_said_as_a_crash_the_kernel_logged(executor):
    since = time.monotonic()
    with pytest.raises(SandboxDied) as died:
        _call(executor, _in_forward(THREAD_FAULT))
    said = str(died.value.reason)
    if not jail_faults_logged(since):
        # printk's host-wide rate limit dropped the line: the cause is not named
        assert said == "the sandboxed process was ended by SIGSEGV, the signal's default action", said
        return
    assert said == "the sandboxed process crashed (SIGSEGV): the kernel logged a fault of its code", said
    assert "段错误" in death_text(said)["zh"]
    assert_healthy(executor)
