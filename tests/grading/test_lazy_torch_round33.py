"""Round 33: ``import torch._dynamo`` with ``@torch._dynamo.disable``, ``torch._dynamo.config.suppress_errors =
True``, ``reset()`` or ``mark_dynamic`` (code written for torch.compile before torch.compiler existed) loaded
torch._dynamo in each jail: 0.67-0.68 s of the jail's CPU at the file's top level on this host (1.4-1.6 s on an
idle one, round 32). Until dynamo is loaded, ``torch._dynamo`` read off torch is a stand-in answering those parts
as torch does outside a compilation (grading/sandbox/lazy_torch.py, _dynamo_stand_in); anything else loads dynamo.
Each call runs at a correct file's top level, timed by the jail's CPU clock as in test_lazy_torch_paths (more
than 0.08 s refuses the file)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grader_tests.attention import static
from tests.grading.helpers import grade_stored as _grade
from tests.grading.test_lazy_torch_paths import _timed, assert_cheap_with_full_marks

CALLS = {
    "a_decorated_helper": (
        "import torch._dynamo\n@torch._dynamo.disable\ndef _helper(x):\n    return x * 2\n_y = _helper(torch.ones(2))",
        "torch.equal(_y, torch.full((2,), 2.0)) and _helper.__name__ == '_helper'",
    ),
    "a_decorator_with_arguments_imported_by_name": (
        "from torch._dynamo import disable\nclass _M(torch.nn.Module):\n"
        "    @disable(recursive=False)\n    def forward(self, x):\n        return x + 1\n"
        "_y = _M()(torch.zeros(2))",
        "torch.equal(_y, torch.ones(2))",
    ),
    "settings_reset_and_marks": (
        "import torch._dynamo\ntorch._dynamo.config.suppress_errors = True\n"
        "torch._dynamo.config.cache_size_limit = 64\ntorch._dynamo.reset()\n_x = torch.ones(2, 3)\n"
        "torch._dynamo.mark_dynamic(_x, 0)\ntorch._dynamo.mark_static(_x, 1)\ntorch._dynamo.maybe_mark_dynamic(_x, 1)\n"
        "_c = torch._dynamo.is_compiling()",
        "_c is False",
    ),
    "a_graph_break_in_a_forward_and_the_compiler_reset": (
        "import torch._dynamo\nclass _M(torch.nn.Module):\n    def forward(self, x):\n"
        "        torch._dynamo.graph_break()\n        return x * 3\n"
        "torch.compiler.reset()\n_y = _M()(torch.ones(2))\ntorch.compiler.reset()",
        "torch.equal(_y, torch.full((2,), 3.0))",
    ),
    "dynamo_imported_from_torch": (
        "from torch import _dynamo\n_dynamo.reset()\n_f = _dynamo.disable(lambda x: x)",
        "_f(3) == 3",
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_parts_of_dynamo_that_need_no_compiler_do_not_load_it_in_the_jail(executor, name):
    assert_cheap_with_full_marks(executor, *CALLS[name])


@pytest.mark.slow   # the file loads torch._dynamo (0.7-1.6 s of CPU)
def test_a_setting_kept_before_dynamo_loads_is_torchs_setting_after(executor):
    # reading a setting loads dynamo (torch's own config answers), and the kept setting is there
    call = ("import torch._dynamo\ntorch._dynamo.config.cache_size_limit = 17\n"
            "@torch._dynamo.disable\ndef _early(x):\n    return x + 1\n"
            "_v = torch._dynamo.config.cache_size_limit\n_y = _early(torch.zeros(2))\n"
            "_late = torch._dynamo.disable(lambda x: x)")
    check = ("_v == 17 and type(torch._dynamo) is type(torch) and torch.equal(_y, torch.ones(2))"
             " and getattr(_late, '_torchdynamo_disable', False) is True")
    result = _grade(executor, _timed(call, check, 30.0))
    assert result["load_error"] is None, result["load_error"]


def _run(probe: str) -> None:
    """``probe`` in a child with the zygote's preparation of torch (the stand-in must not leak into this
    process, whose torch the other tests use)."""
    head = "import sys\nimport torch\nfrom grading.sandbox import lazy_torch\nlazy_torch._dynamo_stand_in()\n"
    done = subprocess.run([sys.executable, "-c", head + probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow   # loads torch._dynamo in the child (10-13 s on a busy host)
def test_the_stand_in_answers_without_loading_dynamo_and_hands_anything_else_to_torch():
    _run("d = torch._dynamo\n"
         "assert isinstance(d, lazy_torch.DynamoStandIn) and 'torch._dynamo' not in sys.modules\n"
         "d.config.suppress_errors = True\n"
         "f = d.disable(lambda x: x + 1)\n"
         "assert f(1) == 2 and d.is_compiling() is False and 'torch._dynamo' not in sys.modules\n"
         "g = d.optimize\n"                      # not a part it answers: torch's dynamo is loaded
         "import torch._dynamo as real\n"
         "assert 'torch._dynamo' in sys.modules and g is real.optimize and torch._dynamo is real\n"
         "assert real.config.suppress_errors is True\n"
         "assert f(1) == 2 and f.__wrapped__ is not None\n")


@pytest.mark.slow   # loads torch._dynamo in the child
def test_a_name_torchs_config_does_not_define_is_refused_as_torch_refuses_it():
    _run("try:\n    torch._dynamo.config.no_such_setting = 1\nexcept AttributeError:\n    pass\n"
         "else:\n    raise AssertionError('accepted')\n")


def test_the_settings_the_stand_in_keeps_are_read_off_torchs_config_source():
    from grading.sandbox import lazy_torch

    names = lazy_torch._dynamo_setting_names()
    assert {"suppress_errors", "cache_size_limit", "verbose"} <= names


def test_every_part_of_dynamo_the_review_passes_is_answered_by_the_stand_in():
    """The review's DYNAMO_HARMLESS (grader_tests) and the jail's stand-in (grading) are kept apart by the
    layering: each name the review lets through must be one the jail answers without loading dynamo."""
    from grading.sandbox import lazy_torch, runtime

    assert static.DYNAMO_HARMLESS <= runtime.DYNAMO_STAND_IN_NAMES
    assert all(name in vars(lazy_torch.DynamoStandIn) for name in static.DYNAMO_HARMLESS)


@pytest.mark.parametrize("code", ["import torch._dynamo\ndef f(x):\n    torch._dynamo.graph_break()\n    return x\n",
                                  "from torch._dynamo import graph_break\n", "torch.compiler.reset()\n",
                                  "from torch import compiler\ncompiler.reset()\n"],
                         ids=["graph_break", "graph_break_imported", "compiler_reset", "compiler_imported_reset"])
def test_a_graph_break_and_the_compiler_reset_are_no_review_finding(code):
    assert static.hidden_name_uses("import torch\n" + code) == ()
