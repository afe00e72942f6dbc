"""Fairness round 31: points taken from correct code.

- ``from torch import compile`` then ``@compile`` or ``compile(model)`` (and ``from torch.compiler import compile``)
  was flagged as the builtin ``compile`` by its spelling: 13 points pending review. A name is now the builtin only
  when nothing the file shows binds it to something else first (static._imported_over_builtins).
- ``import torch._dynamo`` / ``import torch.compiler`` and ``@torch._dynamo.disable``,
  ``torch._dynamo.config.suppress_errors = True``: flagged, 13 points pending review. The import binds only
  ``torch``; each use is judged where it stands (DYNAMO_HARMLESS, _dynamo_setting).
- ``self.attention = torch.jit.script(ScaledDotProductAttention())``: 53/85, every test that built the wrapper
  failing on "Can't get source" (the grader's call counter had replaced the forward TorchScript compiles). In the
  jail ``torch.jit.script`` and ``torch.jit.trace`` now give back what they are given, as torch.compile does."""

from __future__ import annotations

import builtins
import importlib

import pytest

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS, graded_corpus_file

CODE_CATEGORIES = ("formula_shape", "implementation", "mask_parity")
CORRECT = SUBMISSIONS / "correct"
HEADER = "import math\nimport torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


def _code_score(result: dict) -> float:
    return sum(result["categories"][c]["score"] for c in CODE_CATEGORIES)


def _failed(result: dict) -> dict[str, dict]:
    return {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}


@pytest.mark.parametrize(("module", "name"), [(m, n) for m, names in static.SHADOWING_IMPORTS.items() for n in names])
def test_what_the_review_takes_for_an_import_over_a_builtin_is_not_that_builtin(module, name):
    imported = getattr(importlib.import_module(module), name)
    assert imported is not getattr(builtins, name)


BOUND_BY_AN_IMPORT = {
    "decorator": "from torch import compile\n@compile\ndef f(x):\n    return x\n",
    "called_on_a_module": "from torch import compile\nm = compile(nn.Linear(2, 2), dynamic=True)\n",
    "read_in_a_method": "from torch import compile\nclass M(nn.Module):\n    def __init__(self):\n"
                        "        super().__init__()\n        self.lin = compile(nn.Linear(2, 2))\n",
    "from_torch_compiler": "from torch.compiler import compile\n@compile(fullgraph=True)\ndef f(x):\n    return x\n",
    "among_other_names": "from torch import Tensor, compile, nn\n@compile\ndef f(x: Tensor):\n    return x\n",
    "after_a_docstring_def_and_optional_import": '"""doc."""\nEPS = -1e9\ndef g(x: int = 1) -> int:\n'
                                                 '    return compile(x)\ntry:\n    import numpy\nexcept ImportError:\n'
                                                 '    pass\nfrom torch import compile\ny = g(3)\n',
}


@pytest.mark.parametrize("code", BOUND_BY_AN_IMPORT.values(), ids=BOUND_BY_AN_IMPORT.keys())
def test_a_name_an_import_binds_over_a_builtin_is_no_finding(code):
    # HEADER's imports come first: the import is still before anything that could run
    assert static.hidden_name_uses(HEADER + code) == ()


STILL_THE_BUILTIN = {
    "read_before_the_import": "x = compile('1', 'f', 'eval')\nfrom torch import compile\n",
    "a_decorated_function_before_the_import": "@print\ndef h():\n    return compile('1', 'f', 'eval')\n"
                                              "from torch import compile\n",
    "the_import_may_fail": "try:\n    from torch import compile\nexcept ImportError:\n    pass\n"
                           "x = compile('1', 'f', 'eval')\n",
    "the_import_deleted": "from torch import compile\ndel compile\nx = compile('1', 'f', 'eval')\n",
    "rebound_through_global": "from torch import compile\ndef g(c):\n    global compile\n    compile = c\n"
                              "x = compile('1', 'f', 'eval')\n",
    "bound_twice": "from torch import compile\nfrom torch.compiler import compile\nx = compile('1', 'f', 'eval')\n",
    "imported_in_a_branch": "if True:\n    from torch import compile\nx = compile('1', 'f', 'eval')\n",
    "an_import_of_another_name": "from torch import compile as c\nx = compile('1', 'f', 'eval')\n",
}


@pytest.mark.parametrize("code", STILL_THE_BUILTIN.values(), ids=STILL_THE_BUILTIN.keys())
def test_a_read_that_may_be_the_builtin_is_still_found(code):
    assert any(f.endswith(": compile") for f in static.hidden_name_uses(HEADER + code)), \
        static.hidden_name_uses(HEADER + code)


def test_a_fused_module_compiled_through_the_imported_name_is_still_found():
    code = HEADER + "from torch import compile\nm = compile(nn.MultiheadAttention(8, 2))\n"
    assert static.hidden_name_uses(code) == ()
    assert any("nn.MultiheadAttention" in f for f in static.fused_attention_uses(code))


DYNAMO_HONEST = {
    "import_dynamo": "import torch._dynamo\n",
    "import_compiler": "import torch.compiler\n",
    "dynamo_disable_decorator": "import torch._dynamo\n@torch._dynamo.disable\ndef f(x):\n    return x\n",
    "dynamo_disable_from": "from torch._dynamo import disable\n@disable(recursive=False)\ndef f(x):\n    return x\n",
    "dynamo_settings": "import torch._dynamo\ntorch._dynamo.config.suppress_errors = True\n"
                       "torch._dynamo.config.cache_size_limit = 64\n",
    "dynamo_reset_and_marks": "import torch._dynamo\ntorch._dynamo.reset()\nx = torch.ones(2)\n"
                              "torch._dynamo.mark_dynamic(x, 0)\n",
    "compiler_disable": "import torch.compiler\n@torch.compiler.disable\ndef f(x):\n    return x\n",
}


@pytest.mark.parametrize("code", DYNAMO_HONEST.values(), ids=DYNAMO_HONEST.keys())
def test_dynamo_guards_and_settings_are_no_finding(code):
    assert static.hidden_name_uses(HEADER + code) == ()


DYNAMO_STILL = {
    "optimize": ("import torch._dynamo\nf = torch._dynamo.optimize('eager')\n", "torch._dynamo"),
    "config_as_a_value": ("import torch._dynamo\nc = torch._dynamo.config\n", "torch._dynamo"),
    "config_loader": ("import torch._dynamo\ntorch._dynamo.config.load_config(b'')\n", "torch._dynamo"),
    "a_setting_given_a_function": ("import torch._dynamo\ntorch._dynamo.config.x = print\n", "torch._dynamo"),
    "a_private_setting": ("import torch._dynamo\ntorch._dynamo.config._x = 1\n", "torch._dynamo"),
    "config_imported": ("from torch._dynamo import config\n", "torch._dynamo"),
    "dynamo_under_a_name": ("import torch._dynamo as dynamo\n", "imports torch._dynamo"),
    "compiler_under_a_name": ("import torch.compiler as tc\n", "imports torch.compiler"),
    "a_dynamo_module": ("import torch._dynamo.eval_frame\n", "imports torch._dynamo.eval_frame"),
    "allow_in_graph": ("import torch.compiler\ng = torch.compiler.allow_in_graph(print)\n", "torch.compiler"),
}


@pytest.mark.parametrize(("code", "reason"), DYNAMO_STILL.values(), ids=DYNAMO_STILL.keys())
def test_the_rest_of_dynamo_is_still_found(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


@pytest.mark.parametrize("name", ["from_torch_import_compile", "torchscript_kernel_module"])
def test_compiled_and_scripted_correct_files_get_full_marks_and_no_review(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert _failed(result) == {} and result["review"] == [], (_failed(result), result["review"])
    assert _code_score(result) == 85


@pytest.mark.slow
def test_a_fused_kernel_in_a_scripted_function_is_caught_at_run_time(executor):
    """The jail's torch.jit.script gives the function back, so the watch counts the fused call inside it
    (scripted, TorchScript would call aten directly, past every Python-level counter)."""
    from grading.runner import GradeInput, grade

    source = (CORRECT / "torchscript_kernel_module.py").read_text(encoding="utf-8")
    old = "        weights = torch.softmax(scores, dim=-1)\n        output = torch.matmul(weights, v)\n"
    new = ("        weights = torch.softmax(scores, dim=-1)\n"
           "        output = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask)\n")
    assert source.count(old) == 1
    result = grade(GradeInput(code=source.replace(old, new).encode()), "attention", executor)
    failed = _failed(result)
    assert {"test_no_fused_attention_static", "test_no_fused_attention_runtime"} <= set(failed), failed
    assert "scaled_dot_product_attention" in failed["test_no_fused_attention_runtime"]["en"]
