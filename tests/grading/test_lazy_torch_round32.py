"""Round 32: ``@torch.compiler.disable`` imported torch._dynamo in each jail (1.4-1.6 s of CPU; a correct
file so decorated took 10 s to grade and once met its import limit). The zygote settles it
(grading/sandbox/lazy_torch.py) without lying to a file that loads dynamo itself. Each call runs at a
correct file's top level, timed by the jail's CPU clock as in test_lazy_torch_paths (more than 0.08 s
refuses the file: the import of dynamo is 1.4 s); sys.modules is not read there (a review finding)."""

from __future__ import annotations

import pytest

from tests.grading.helpers import grade_stored as _grade
from tests.grading.test_lazy_torch_paths import _timed, assert_cheap_with_full_marks

CALLS = {
    "a_decorated_helper": (
        "@torch.compiler.disable\ndef _helper(x):\n    return x * 2\n_y = _helper(torch.ones(2))",
        "torch.equal(_y, torch.full((2,), 2.0)) and _helper.__name__ == '_helper'",
    ),
    "a_decorator_with_arguments_on_a_method": (
        "class _M(torch.nn.Module):\n"
        "    @torch.compiler.disable(recursive=False, reason='debug')\n"
        "    def forward(self, x):\n        return x + 1\n"
        "_y = _M()(torch.zeros(2))",
        "torch.equal(_y, torch.ones(2))",
    ),
    "is_compiling_outside_compilation": (
        "_c = torch.compiler.is_compiling() or torch.compiler.is_dynamo_compiling()",
        "_c is False",
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_cheap_compiler_decorator_does_not_import_dynamo_in_the_jail(executor, name):
    assert_cheap_with_full_marks(executor, *CALLS[name])


@pytest.mark.slow   # the file imports torch._dynamo itself (1.5 s of CPU)
def test_a_function_disabled_before_the_file_loads_dynamo_is_torchs_disabled_function_after(executor):
    # Made before the import, called after: torch's own disabled function runs (dynamo's skip marker is
    # on the code it runs), and disable made after the import is torch's own.
    call = ("@torch.compiler.disable\ndef _early(x):\n    import torch._dynamo.eval_frame as _ef\n"
            "    return x + 1\nimport torch._dynamo\n_y = _early(torch.zeros(2))\n"
            "_late = torch.compiler.disable(lambda x: x)")
    check = ("torch.equal(_y, torch.ones(2)) and getattr(_late, '_torchdynamo_disable', False) is True")
    result = _grade(executor, _timed(call, check, 30.0))
    assert result["load_error"] is None, result["load_error"]
