"""Round 37 (A2): the jail's pid 1 is a small program, not a fork of the zygote.

Round 37 moved the student's code to pid 2 of the jail's pid namespace, under a pid 1 that was a fork of the
torch-sized zygote forking the student's process in turn: that second fork's page-table copy and teardown cost
~15 ms of CPU per grading. Pid 1 is now ``cat`` (posix_spawn, a vfork: no copy) reading a pipe only the zygote
writes; the zygote forks the student's process into that namespace itself and waits for it as its own child.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from grading.sandbox import Executor
from tests.sandbox.helpers import GOOD, TEST_LIMITS, leftovers


def _status(pid: int) -> dict[str, str]:
    return {line.split(":")[0]: line.split(":", 1)[1].strip()
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()}


def _running(pid: int) -> bool:
    try:
        return _status(pid)["State"][0] != "Z"
    except OSError:
        return False


def _init_of(executor) -> int:
    inits = [p["pid"] for p in leftovers(executor)
             if p["ppid"] == executor.zygote_pid and _status(p["pid"])["Name"] == "ag-jail-init"]
    assert len(inits) == 1, leftovers(executor)
    return inits[0]


def test_the_jails_pid_1_is_a_small_program_not_a_copy_of_the_zygote(executor):
    with executor.session(GOOD, "good.py", "good") as s:
        s.load()
        init = _init_of(executor)
        st = _status(init)
        zygote_kib = int(_status(executor.zygote_pid)["VmRSS"].split()[0])
        # pid 1 of its own namespace, root, and a few MiB where the zygote (torch) holds hundreds
        assert st["NSpid"].split()[-1] == "1" and st["Uid"].split()[0] == "0"
        assert int(st["VmRSS"].split()[0]) < 8 << 10 < zygote_kib // 4, (st["VmRSS"], zygote_kib)
        assert os.path.basename(os.readlink(f"/proc/{init}/exe")) == "cat"


@pytest.mark.slow  # an executor of its own: a torch import in a fresh zygote
def test_a_jails_init_ends_with_the_zygote_and_takes_the_namespace_with_it():
    """The init holds the namespace; nothing else ends it when the zygote dies (its pipe's end does)."""
    ex = Executor(TEST_LIMITS)
    try:
        s = ex.session(GOOD, "good.py", "good")
        s.load()
        init = _init_of(ex)
        os.kill(ex.zygote_pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _running(init) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(init)
        s.close()
    finally:
        ex.close()
