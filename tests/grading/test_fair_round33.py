"""Fairness round 33: points taken from correct code.

- The pre-1.2 TorchScript style, classes deriving from ``torch.jit.ScriptModule`` with methods under
  ``@torch.jit.script_method``: 0/85 (every test failed on "Can't redefine method" or on TorchScript's
  message about the counted ``F.softmax``; the review flagged the base and the decorator). In the jail such a
  class is a plain module and script_method gives back the function, as ``PYTORCH_JIT=0`` makes torch run
  them (grading.sandbox.lazy_torch._scripting_runs_eagerly); the review reads both as harmless.
- One ``torch.jit.fork`` per head and ``torch.jit.wait`` on each future (the tutorial "Dynamic Parallelism in
  TorchScript"): 68/85, the 13 points pending review and 4 more resting on the jail's reports. In the jail fork
  calls the function in Python and hands back a completed future; the review reads fork, wait and Future as
  harmless, and ``torch.jit.isinstance`` (a type check) and torch.jit's exception and warning classes too.
- gpt-fast's Attention with ``torch._dynamo.graph_break()`` and ``torch.compiler.reset()``: 68/85 (both review
  findings; test_lazy_torch_round33 has the jail's side)."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS

CORRECT = SUBMISSIONS / "correct"
HEADER = "import math\nimport torch\nfrom torch import nn\nimport torch.nn.functional as F\n"

# ------------------------------------------------------------------ torch.jit.ScriptModule + script_method
SCRIPT_MODULE_HONEST = {
    "dotted_base_and_decorator": "class K(torch.jit.ScriptModule):\n    __constants__ = ['h']\n"
                                 "    def __init__(self):\n        super().__init__()\n        self.h = 2\n"
                                 "    @torch.jit.script_method\n    def forward(self, x):\n        return x\n",
    "imported_names": "from torch.jit import ScriptModule, script_method\nclass K(ScriptModule):\n"
                      "    @script_method\n    def forward(self, x):\n        return x\n",
    "jit_imported_from_torch": "from torch import jit\nclass K(jit.ScriptModule):\n    @jit.script_method\n"
                               "    def forward(self, x):\n        return x\n",
    "an_attribute_declared": "class K(torch.jit.ScriptModule):\n    def __init__(self):\n        super().__init__()\n"
                             "        self.scale = torch.jit.Attribute(0.5, float)\n",
    "fork_and_wait": "def f(x):\n    return x\nfuts: list[torch.jit.Future[torch.Tensor]] = [torch.jit.fork(f, torch.ones(1))]\n"
                     "ys = [torch.jit.wait(fut) for fut in futs]\n",
    "fork_imported_by_name": "from torch.jit import fork, wait\ny = wait(fork(torch.relu, torch.ones(1)))\n",
    "container_check": "from typing import List\nok = torch.jit.isinstance([torch.ones(1)], List[torch.Tensor])\n",
    "tracer_warnings_silenced": "import warnings\nwarnings.filterwarnings('ignore', category=torch.jit.TracerWarning)\n"
                                "warnings.simplefilter('ignore', torch.jit.ScriptWarning)\n",
    "jit_error_caught": "try:\n    y = torch.ones(1)\nexcept torch.jit.Error:\n    y = None\n",
}


@pytest.mark.parametrize("code", SCRIPT_MODULE_HONEST.values(), ids=SCRIPT_MODULE_HONEST.keys())
def test_the_pre_1_2_script_module_style_is_no_review_finding(code):
    assert static.hidden_name_uses(HEADER + code) == ()


SCRIPT_MODULE_STILL = {
    "a_compilation_unit": ("cu = torch.jit.CompilationUnit('def f(x):\\n    return x')\n", "torch.jit"),
    "a_loaded_module": ("m = torch.jit.load('m.pt')\n", "torch.jit.load"),
}


@pytest.mark.parametrize(("code", "reason"), SCRIPT_MODULE_STILL.values(), ids=SCRIPT_MODULE_STILL.keys())
def test_the_rest_of_torch_jit_is_still_found(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


def test_a_fused_kernel_handed_to_fork_is_still_found():
    code = HEADER + "fut = torch.jit.fork(F.scaled_dot_product_attention, torch.ones(1, 1, 2, 2), " \
                    "torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2))\n"
    assert static.hidden_name_uses(code) == ()
    assert any("scaled_dot_product_attention" in f for f in static.fused_attention_uses(code))


# gpt_fast_dynamo_hints: torch._dynamo settings, @torch._dynamo.disable, graph_break() and torch.compiler.reset()
# (68/85 before: graph_break and reset were review findings; test_lazy_torch_round33 times them in the jail)
# (jit_scriptmodule_script_method, jit_fork_wait_heads, gpt_fast_dynamo_hints: full marks in test_fair_styles_round38)


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_in_the_jail_a_script_module_subclass_is_a_plain_module_and_script_method_the_function():
    """What the jail's torch does with the style, run here in a child with the zygote's preparation."""
    import subprocess
    import sys

    probe = (
        "import torch\nfrom grading.sandbox import lazy_torch\nlazy_torch._scripting_runs_eagerly()\n"
        "def f(self, x):\n    return x * self.k\n"
        "assert torch.jit.script_method(f) is f\n"
        "class K(torch.jit.ScriptModule):\n    __constants__ = ['k']\n"
        "    def __init__(self):\n        super().__init__()\n        self.k = torch.jit.Attribute(2.0, float)\n"
        "        self.lin = torch.nn.Linear(2, 2)\n"
        "    forward = torch.jit.script_method(f)\n"
        "a, b = K(), K()\n"
        "assert '_actual_script_module' not in vars(a) and a.k == 2.0 and a.forward.__func__ is f\n"
        "assert [n for n, _ in b.named_parameters()] == ['lin.weight', 'lin.bias']\n"
        "assert torch.equal(a(torch.ones(2)), torch.full((2,), 2.0))\n"
        # fork calls the function in Python (a scripted one would run its graph past the counters)
        "seen = []\n"
        "def g(x, *, k):\n    seen.append(x)\n    return x * k\n"
        "fut = torch.jit.fork(g, torch.ones(1), k=3)\n"
        "assert seen and isinstance(fut, torch.jit.Future) and fut.done()\n"
        "assert torch.equal(torch.jit.wait(fut), torch.full((1,), 3.0))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
