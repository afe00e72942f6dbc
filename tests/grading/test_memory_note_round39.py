"""Round 39 (integration): the sandbox's address-space note for Python's own MemoryError (no size named) is a
fallback. Python's parser raises a sizeless MemoryError on an expression nested thousands deep, which is no matter of
the address space: the checked "nested too deeply" hint is said, not the limit (the slow lane's
test_tamper_hostile parser_out_of_memory case found it). A refused request of known size is checked, so its note
still comes first."""

from __future__ import annotations

from grading.proxy import load_error_text, student_error_text
from grading.sandbox.client import StudentError

GIB = 1 << 30
SIZELESS = {"limit": GIB, "in_use": 629 << 20}
SIZED = {"limit": GIB, "in_use": 629 << 20, "asked": 4 * GIB}
DEEP = "X = " + "-" * 20000 + "1\n"   # test_tamper_hostile's parser_out_of_memory case
PLAIN = "import torch\nhoard = [0] * (1 << 30)\n"


def test_an_expression_too_deep_for_the_parser_is_said_so_not_the_address_space():
    said = load_error_text(StudentError("MemoryError", "", None, memory=SIZELESS), source=DEEP)
    assert "nested too deeply" in said["en"] and "嵌套太深" in said["zh"], said
    assert "RLIMIT_AS" not in said["en"] and "RLIMIT_AS" not in said["zh"], said


def test_a_sizeless_memory_error_with_no_other_hint_still_says_the_limit():
    said = load_error_text(StudentError("MemoryError", "", 2, memory=SIZELESS), source=PLAIN)
    assert "limits the address space to 1.0 GiB" in said["en"] and "`RLIMIT_AS`" in said["zh"], said


def test_a_refused_request_of_known_size_is_said_first_in_a_call():
    said = student_error_text("ScaledDotProductAttention.forward", StudentError("RuntimeError", "DefaultCPUAllocator: "
                              "can't allocate memory", 2, memory=SIZED), source=PLAIN)
    assert "the request for 4.0 GiB does not fit" in said["en"], said


def test_a_sizeless_memory_error_in_a_call_says_the_limit_when_no_checked_note_applies():
    said = student_error_text("ScaledDotProductAttention.forward", StudentError("MemoryError", "", 2,
                                                                                memory=SIZELESS), source=PLAIN)
    assert "limits the address space to 1.0 GiB" in said["en"], said


def test_a_refused_request_at_import_keeps_the_hint_that_the_line_runs_at_import():
    source = "import torch\n\nbig = torch.randn(60000, 60000)\n"
    said = load_error_text(StudentError("RuntimeError", "[enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: "
                                        "not enough memory: you tried to allocate 14400000000 bytes.", 3,
                                        memory={**SIZED, "asked": 14_400_000_000}), source=source)
    assert "does not fit in the sandbox's memory limit" in said["en"], said
    assert "line 3 runs when the grader imports your file" in said["en"], said
    assert "第 3 行在评分器导入你的文件时就会运行" in said["zh"], said
