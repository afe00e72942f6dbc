"""Calls of torch that correct files make at their top level and that torch serves by importing
its compiler stack on first use (torch._inductor, torch._dynamo, torch.distributed.tensor: up to
~820 modules and 1.5 s of CPU in each of a grading's jails). The zygote takes them without the import (grading/sandbox/zygote.py),
so they cost a student neither their import limit under load nor the service its CPU."""

from __future__ import annotations

import pytest

from tests.grading.helpers import SUBMISSIONS
from tests.grading.helpers import grade_stored as _grade

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()

# Each runs at the top of a correct file, timed by the jail's own CPU clock; the file refuses to
# load when the call took more than 0.08 s of CPU (0.17-1.5 s in the jail before the zygote settled
# it, 0.000-0.008 s after),
# or when it did not do what torch documents.
CALLS = {
    "use_deterministic_algorithms_warn_only": (
        "torch.use_deterministic_algorithms(True, warn_only=True)",
        "torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()",
    ),
    "use_deterministic_algorithms_off_again": (
        "torch.use_deterministic_algorithms(True); torch.use_deterministic_algorithms(False)",
        "not torch.are_deterministic_algorithms_enabled()",
    ),
    "an_optimizer_built_at_import": (
        "_opt = torch.optim.AdamW(torch.nn.Linear(4, 4).parameters(), lr=1e-3); _opt.zero_grad()",
        "len(_opt.param_groups) == 1",
    ),
    "a_self_check_with_assert_close": (
        "torch.testing.assert_close(torch.ones(2), torch.ones(2))\n"
        "try:\n    torch.testing.assert_close(torch.ones(2), torch.zeros(2))\n    _told = False\n"
        "except AssertionError:\n    _told = True",
        "_told",
    ),
}


def _timed(call: str, check: str) -> str:
    return f'''import time as _time
import torch
_t0 = _time.process_time()
{call}
_spent = _time.process_time() - _t0
if _spent > 0.08:
    raise RuntimeError(f"the call took {{_spent:.2f}} s of CPU")
if not ({check}):
    raise RuntimeError("the call did not do what torch documents")
''' + CORRECT


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_top_level_torch_call_that_lazily_imports_the_compiler_is_cheap_in_the_jail(executor, name):
    result = _grade(executor, _timed(*CALLS[name]))
    assert result["status"] == "graded"
    assert result["load_error"] is None, result["load_error"]
    code = sum(c["score"] for k, c in result["categories"].items() if k != "audit")
    assert code == 85
