"""Round 48: a file that lowers its own memory rlimits (RLIMIT_DATA, RLIMIT_STACK, RLIMIT_AS) is told what the grader
read of them when a call fails or its process ends. Round 47's file that cut RLIMIT_DATA to what it used at import was
graded 41-68 by when its allocations failed: "can't allocate memory: you tried to allocate 1536 bytes" and "the loop
that reads its requests and writes its replies failed (exit code 71)", with no word of the limit it set itself.
"""

from __future__ import annotations

import resource

import pytest

from grading.proxy import lowered_limits_note
from grading.sandbox.client import jail_memory_limits, lowered_memory_limits
from tests.sandbox.helpers import GOOD, assert_healthy

_CUT = """
import resource as _r
_r.setrlimit(_r.RLIMIT_DATA, (300 << 20, 300 << 20))
_r.setrlimit(_r.RLIMIT_STACK, (1 << 16, 1 << 16))
"""


def _lowered(executor, source: str) -> list[tuple[str, int, int]]:
    with executor.session(source, "m.py", "m") as s:
        s.load()
        return s.lowered_limits


def test_a_file_that_lowers_its_data_and_stack_limits_at_import_has_them_read_after_its_import(executor):
    lowered = dict((n, (v, g)) for n, v, g in _lowered(executor, GOOD + _CUT))
    assert lowered["RLIMIT_DATA"][0] == 300 << 20, lowered
    assert lowered["RLIMIT_STACK"][0] == 1 << 16, lowered
    assert "RLIMIT_AS" not in lowered
    assert_healthy(executor)


def test_an_honest_file_has_no_lowered_limit(executor):
    assert _lowered(executor, GOOD) == []


def test_the_limits_of_this_process_are_read_and_none_is_lowered():
    seen = jail_memory_limits(__import__("os").getpid())
    assert seen is not None and seen["RLIMIT_DATA"] == resource.getrlimit(resource.RLIMIT_DATA)[0]
    assert lowered_memory_limits(seen, seen["RLIMIT_AS"]) == []


@pytest.mark.parametrize("lowered, en, zh", [
    ([("RLIMIT_DATA", 300 << 20, resource.RLIM_INFINITY)],
     "code in your process had lowered its data-segment limit (RLIMIT_DATA) to 300 MiB (the sandbox's: unlimited)",
     "你的进程中的代码把数据段上限（`RLIMIT_DATA`）降到了 300 MiB（沙箱设定的是无上限）"),
    ([("RLIMIT_AS", 512 << 20, 1 << 30), ("RLIMIT_STACK", 1 << 16, 8 << 20)],
     "its address-space limit (RLIMIT_AS) to 512 MiB (the sandbox's: 1.0 GiB), its stack-size limit (RLIMIT_STACK) to "
     "64 KiB (the sandbox's: 8 MiB)", "栈大小上限（`RLIMIT_STACK`）降到了 64 KiB"),
], ids=["data", "address_space_and_stack"])
def test_the_note_says_each_lowered_limit_its_value_and_the_sandboxs_in_both_languages(lowered, en, zh):
    note = lowered_limits_note(lowered)
    assert en in note["en"] and zh in note["zh"], note


def test_no_note_without_a_lowered_limit():
    assert lowered_limits_note([]) is None
