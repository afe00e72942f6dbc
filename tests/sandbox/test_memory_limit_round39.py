"""Round 39: an allocation refused at the sandbox's address-space limit (RLIMIT_AS) says the limit and that the code
hit it, in English and Chinese; only when checked: the request's size is known (torch's allocator and NumPy name it),
it plus what was in use passes the limit, and the limit is the one the grader set. Else the error reads as before.
"""

from __future__ import annotations

import re

import pytest

from grading.proxy import student_error_text
from grading.sandbox import StudentError
from tests.sandbox.helpers import assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward

HIT_EN = ("does not fit in the sandbox's memory limit of 1.0 GiB (address space, RLIMIT_AS; {} of it already taken "
          "by the process, PyTorch included): your code hit that limit")
HIT_ZH = "超出了沙箱内存上限 1.0 GiB 的剩余空间（地址空间，`RLIMIT_AS`；其中 {} 已被进程占用，包括 PyTorch）：你的代码触及了这个上限"


def _raised(executor, statements: str, head: str = "") -> StudentError:
    with pytest.raises(StudentError) as raised:
        _call(executor, _in_forward(statements, head))
    return raised.value


@pytest.mark.parametrize("statements, asked", [("torch.empty(1 << 28, 4)", "4.0 GiB"),
                                               ("import numpy\nnumpy.zeros((1 << 27, 2))", "2.0 GiB"),
                                               ("torch.randn(20000, 20000)", "1.5 GiB")],
                         ids=["torch_empty", "numpy_zeros", "torch_randn"])
def test_an_allocation_past_the_address_space_limit_says_the_limit_and_that_the_code_hit_it(
        executor, statements, asked):
    assert executor.limits.memory == 1 << 30
    exc = _raised(executor, statements)
    told = student_error_text("forward", exc, "m.py")
    # the text first: before the note existed this fails on what the student reads, not on a missing attribute
    in_use = re.search(r"RLIMIT_AS; (\d+ MiB) of it", told["en"])
    assert in_use is not None, told["en"]
    assert f"the request for {asked} " + HIT_EN.format(in_use[1]) in told["en"], told["en"]
    assert f"申请的 {asked} " + HIT_ZH.format(in_use[1]) in told["zh"], told["zh"]
    assert exc.memory["limit"] == 1 << 30 and in_use[1] == f"{round(exc.memory['in_use'] / (1 << 20))} MiB", exc.memory
    assert_healthy(executor)


# Python's own MemoryError with no size (bytearray(1 << 31)) says the limit without a claim on the request:
# test_memory_limit_mend_round39.py
@pytest.mark.parametrize("statements", ["raise MemoryError('mine')",
                                        "raise RuntimeError(\"DefaultCPUAllocator: can't allocate memory: you tried to "
                                        "allocate 4096 bytes\")"],
                         ids=["own_memory_error", "small_request_in_torchs_words"])
def test_a_memory_error_of_the_codes_own_words_or_a_small_request_names_no_limit(executor, statements):
    exc = _raised(executor, statements)
    assert getattr(exc, "memory", None) is None
    told = student_error_text("forward", exc, "m.py")
    assert "RLIMIT_AS" not in told["en"] and "RLIMIT_AS" not in told["zh"], told


def test_a_limit_the_code_lowered_itself_is_not_said_as_the_sandboxs(executor):
    exc = _raised(executor, "torch.empty(1 << 26, 4)",
                  head="import resource\nresource.setrlimit(resource.RLIMIT_AS, (900 << 20, 900 << 20))")
    assert "can't allocate memory" in exc.message
    assert getattr(exc, "memory", None) is None
