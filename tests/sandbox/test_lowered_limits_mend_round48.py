"""Mend of round 48 (review RC HIGH-1): the lowered-rlimit note is said only where a memory failure was seen, and only
of a limit that could have stopped it. Before, every failed call and every process end of a jail whose code had lowered
any of RLIMIT_AS/DATA/STACK was told its limits and "the kernel refuses memory past such a limit": a file's own
``raise ValueError('masks are not supported yet')`` under an 8 GiB RLIMIT_DATA (which a 1 GiB address space never
lets bind) or a 4 MiB RLIMIT_STACK read as if the limit were the cause.
"""

from __future__ import annotations

import pytest
import torch

from grading.proxy import Feedback, InheritedSession, StudentProxy
from grading.sandbox import SandboxDied, StudentError
from grading.sandbox.client import SERVE_FAILED_TEXT, lowered_memory_limits

GIB, MIB = 1 << 30, 1 << 20
_DATA = ("RLIMIT_DATA", 8 * MIB, -1)
_STACK = ("RLIMIT_STACK", 4 * MIB, 8 * MIB)
_SOURCE = ("import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x, additive_mask=None):\n"
           "        if additive_mask is not None:\n            raise ValueError('masks are not supported yet')\n"
           "        return x\n")


class _Session:
    """A session whose jail lowered RLIMIT_DATA and RLIMIT_STACK and whose call fails with ``error``."""

    alive = True
    source = _SOURCE

    def __init__(self, error: BaseException):
        self.error = error
        self.lowered_limits = [_DATA, _STACK]

    def load(self):
        return None

    def note_memory_limits(self):
        return self.lowered_limits

    def build(self, name, args=(), kwargs=None, **_):
        return 1

    def call(self, handle, method, *args, **kwargs):
        raise self.error

    def close(self):
        return None


def _feedback(error: BaseException) -> dict:
    p = StudentProxy(InheritedSession(_Session(error)))
    assert p.load()
    with pytest.raises(Feedback) as seen:
        p.call(p.new("M"), "__call__", torch.ones(2, 3))
    return seen.value.message


@pytest.mark.parametrize("error", [
    StudentError("ValueError", "masks are not supported yet", 6),
    StudentError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", 7),
    SandboxDied("CPU time limit exceeded (5.1 s CPU, limit 5 s)"),
    SandboxDied("the sandboxed process exited with code 3"),
    SandboxDied(SERVE_FAILED_TEXT),     # the loop's end, not marked as a refused allocation
], ids=["own_raise", "shape_error", "cpu_limit", "exit", "loop_failed_not_out_of_memory"])
def test_a_failure_that_is_no_memory_failure_is_not_told_the_limits_its_code_lowered(error):
    said = _feedback(error)
    assert "RLIMIT" not in said["en"] and "RLIMIT" not in said["zh"], said
    assert "kernel refuses" not in said["en"], said


@pytest.mark.parametrize("error", [
    StudentError("RuntimeError", "DefaultCPUAllocator: can't allocate memory: you tried to allocate 1536 bytes. "
                 "Error code 12 (Cannot allocate memory)", 7),
    StudentError("MemoryError", "", 7),
    StudentError("OSError", "[Errno 12] Cannot allocate memory", 7),
    SandboxDied(SERVE_FAILED_TEXT, out_of_memory=True),
], ids=["torch_allocator", "memory_error", "enomem", "loop_out_of_memory"])
def test_a_refused_allocation_is_told_the_data_limit_not_the_stack_limit(error):
    said = _feedback(error)
    assert "its data-segment limit (RLIMIT_DATA) to 8 MiB (the sandbox's: unlimited)" in said["en"], said
    assert "把数据段上限（`RLIMIT_DATA`）降到了 8 MiB（沙箱设定的是无上限）" in said["zh"], said
    assert "RLIMIT_STACK" not in said["en"] and "RLIMIT_STACK" not in said["zh"], said
    assert "kernel refuses" not in said["en"] and "内核拒绝" not in said["zh"], said   # no cause measured


@pytest.mark.parametrize("reason", [
    "the sandboxed process crashed (SIGSEGV): the kernel logged a fault of its code",
    "the sandboxed process was ended by SIGSEGV, the signal's default action",
], ids=["fault_logged", "signal"])
def test_a_stack_fault_is_told_the_stack_limit_not_the_data_limit(reason):
    said = _feedback(SandboxDied(reason))
    assert "its stack-size limit (RLIMIT_STACK) to 4 MiB (the sandbox's: 8 MiB)" in said["en"], said
    assert "RLIMIT_DATA" not in said["en"], said


def test_a_memory_error_the_failing_line_raises_in_its_own_words_is_not_told_the_limits():
    source = _SOURCE.replace("ValueError('masks are not supported yet')", "MemoryError('no masks')")
    session = _Session(StudentError("MemoryError", "no masks", 6))
    session.source = source
    p = StudentProxy(InheritedSession(session))
    assert p.load()
    with pytest.raises(Feedback) as seen:
        p.call(p.new("M"), "__call__", torch.ones(2, 3))
    assert "RLIMIT" not in seen.value.message["en"], seen.value.message


def test_a_data_limit_at_or_over_the_address_space_is_not_counted_as_lowered():
    seen = {"RLIMIT_AS": GIB, "RLIMIT_DATA": 8 * GIB, "RLIMIT_STACK": -1}
    assert [n for n, _, _ in lowered_memory_limits(seen, GIB)] == []
    seen["RLIMIT_DATA"] = 512 * MIB
    assert [n for n, _, _ in lowered_memory_limits(seen, GIB)] == ["RLIMIT_DATA"]
