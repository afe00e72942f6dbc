"""Round 39 mend of the memory-limit note (runtime._past_memory_limit, proxy.memory_limit_note).

The runtime's account of a refused allocation runs on every error the code raises: code that patches what it reads
(resource.getrlimit, builtins.open) or a MemoryError subclass whose ``_total_size`` raises must not turn the code's
own error into a false end of the loop. Python's own MemoryError (no size named) gets the limit and what the process
took of it, no claim on the request. An error the failing line raised with its own words gets no note.
"""

from __future__ import annotations

import types

import pytest

from grading.proxy import load_error_text, student_error_text
from grading.sandbox import StudentError
from grading.sandbox.client import Session
from tests.sandbox.helpers import GOOD, assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward

HEDGED_EN = "the sandbox limits the address space to 1.0 GiB (RLIMIT_AS), about "
HEDGED_ZH = "沙箱把地址空间限制为 1.0 GiB（`RLIMIT_AS`），其中约 "


def _raised(executor, source: str) -> StudentError:
    with pytest.raises(StudentError) as raised:
        _call(executor, source)
    return raised.value


def test_a_memory_error_subclass_whose_total_size_raises_keyboardinterrupt_is_reported_as_raised(executor):
    source = _in_forward("class _M(MemoryError):\n    @property\n    def _total_size(self):\n"
                         "        raise KeyboardInterrupt\nraise _M('mine')")
    exc = _raised(executor, source)
    assert (exc.kind, exc.message, exc.memory) == ("_M", "mine", None), (exc.kind, exc.message, exc.memory)
    told = student_error_text("forward", exc, "m.py", source=source)
    assert "raised _M at m.py line" in told["en"] and "SIGINT" not in told["en"], told
    assert_healthy(executor)


@pytest.mark.parametrize("head", ["import resource\nresource.getrlimit = lambda r: 1 / 0",
                                  "import builtins\nbuiltins.open = lambda *a, **k: (_ for _ in ()).throw("
                                  "KeyboardInterrupt())",
                                  "import os\nos.read = lambda *a: (_ for _ in ()).throw(KeyboardInterrupt())"],
                         ids=["getrlimit_raises", "open_raises_keyboardinterrupt", "os_read_raises_keyboardinterrupt"])
def test_code_that_patches_what_the_limit_check_reads_still_gets_its_refused_allocation_reported(executor, head):
    exc = _raised(executor, _in_forward("torch.empty(1 << 28, 4)", head))
    assert exc.kind == "RuntimeError" and "can't allocate memory" in exc.message, (exc.kind, exc.message)
    # read through what the runtime bound before the fork: the real limit, not the patched module's
    assert exc.memory is not None and exc.memory["limit"] == 1 << 30, exc.memory
    assert_healthy(executor)


@pytest.mark.parametrize("statements", ["[0] * (1 << 30)", "'a' * (3 << 30)", "bytearray(1 << 31)"],
                         ids=["list", "str", "bytearray"])
def test_pythons_own_memory_error_says_the_limit_and_what_the_process_took_without_a_size(executor, statements):
    exc = _raised(executor, _in_forward(statements))
    assert exc.kind == "MemoryError" and exc.memory is not None and set(exc.memory) == {"limit", "in_use"}, exc.memory
    told = student_error_text("forward", exc, "m.py")
    assert HEDGED_EN in told["en"] and "of it already taken by the process, PyTorch included" in told["en"], told
    assert HEDGED_ZH in told["zh"] and "已被进程占用（包括 PyTorch）" in told["zh"], told
    assert "your code hit" not in told["en"] and "触及" not in told["zh"], told
    assert_healthy(executor)


def test_pythons_own_memory_error_at_load_says_the_limit(executor):
    source = GOOD + "\n_blob = b'x' * (900 << 20)\n"
    with executor.session(source, "m.py", "m") as s, pytest.raises(StudentError) as raised:
        s.load()
    told = load_error_text(raised.value, "m.py", source=source)
    assert raised.value.kind == "MemoryError" and HEDGED_EN in told["en"] and HEDGED_ZH in told["zh"], told


def test_a_memory_error_subclass_without_arguments_gets_no_note(executor):
    exc = _raised(executor, _in_forward("class _M(MemoryError):\n    pass\nraise _M"))
    assert exc.memory is None


def _session(memory: int) -> Session:
    return types.SimpleNamespace(limits=types.SimpleNamespace(memory=memory))  # type: ignore[return-value]


@pytest.mark.parametrize("said, kept", [
    ({"limit": 1 << 30, "in_use": 600 << 20}, True),
    ({"limit": 900 << 20, "in_use": 600 << 20}, False),            # a limit the code lowered
    ({"limit": 1 << 30, "in_use": 2 << 30}, False),                # more in use than the limit allows
    ({"limit": 1 << 30, "in_use": 600 << 20, "extra": 1}, False),
    ({"limit": 1 << 30}, False),
], ids=["sizeless", "lowered_limit", "in_use_past_limit", "extra_key", "no_in_use"])
def test_the_trusted_side_keeps_a_sizeless_account_only_of_its_own_limit(said, kept):
    assert (Session._memory_limit_hit(_session(1 << 30), said) is not None) is kept


def test_a_forged_allocator_message_the_line_raised_itself_gets_no_limit_note(executor):
    source = _in_forward("raise RuntimeError(\"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                         "999999999999 bytes\")")
    exc = _raised(executor, source)
    told = student_error_text("forward", exc, "m.py", source=source)
    assert "RLIMIT_AS" not in told["en"] and "RLIMIT_AS" not in told["zh"], told
    assert "触及" not in told["zh"], told
