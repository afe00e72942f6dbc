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
import torch

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS

# the reference's return lines and the two second mistakes round 30 graded with weights transposed
from tests.grading.test_fair_round30 import (
    KERNEL_RETURN,
    KERNEL_T,
    NO_OUT_PROJ,
    NO_SCALE,
    WRAPPER_RETURN,
    WRAPPER_T,
    _failed,
    _graded,
)

CORRECT = SUBMISSIONS / "correct"
HEADER = "import math\nimport torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


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
    "a_regular_expression": "from re import compile\nWORD = compile(r'[a-z]+')\n",
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
    # (read otherwise than harmlessly: never read, a package bound by name is no finding, as ``import torch.compiler``
    # is none; review D round 43, MED 1)
    "dynamo_under_a_name": ("import torch._dynamo as dynamo\nf = dynamo.optimize\n", "imports torch._dynamo"),
    "compiler_under_a_name": ("import torch.compiler as tc\nf = tc.allow_in_graph\n", "imports torch.compiler"),
    "a_dynamo_module": ("import torch._dynamo.eval_frame\n", "imports torch._dynamo.eval_frame"),
    "allow_in_graph": ("import torch.compiler\ng = torch.compiler.allow_in_graph(print)\n", "torch.compiler"),
}


@pytest.mark.parametrize(("code", "reason"), DYNAMO_STILL.values(), ids=DYNAMO_STILL.keys())
def test_the_rest_of_dynamo_is_still_found(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


PACKAGE_UNDER_A_NAME_HONEST = {
    "from_torch_import_jit": "from torch import jit\n@jit.script\ndef f(x):\n    return x\n",
    "from_torch_import_compiler": "from torch import compiler\n@compiler.disable\ndef f(x):\n    return x\n"
                                  "y = compiler.is_compiling()\n",
    "compiler_as": "import torch.compiler as tc\n@tc.disable(recursive=False)\ndef f(x):\n    return x\n",
    "jit_as_a_private_name": "from torch import jit as _jit\nm = _jit.script(nn.Linear(2, 2))\n",
    "onnx_guard": "from torch import onnx\nexporting = onnx.is_in_onnx_export()\n",
    "dynamo_from_torch": "from torch import _dynamo\n_dynamo.reset()\n",
}


@pytest.mark.parametrize("code", PACKAGE_UNDER_A_NAME_HONEST.values(), ids=PACKAGE_UNDER_A_NAME_HONEST.keys())
def test_a_torch_package_under_a_name_of_the_file_is_judged_by_what_is_read_off_it(code):
    assert static.hidden_name_uses(HEADER + code) == ()


PACKAGE_UNDER_A_NAME_STILL = {
    "passed_around": ("from torch import jit\nj = jit\n", "from torch import jit"),
    "a_loader_read_off_it": ("from torch import jit\nm = jit.load('m.pt')\n", "jit.load"),
    "compiling_a_string": ("from torch import jit\ncu = jit.CompilationUnit('def f(x):\\n    return x')\n",
                           "jit.CompilationUnit"),
    "the_name_rebound": ("from torch import jit\ndef g(jit):\n    return jit.script\n", "from torch import jit"),
    "dynamo_optimize": ("import torch._dynamo as dy\nf = dy.optimize('eager')\n", "imports torch._dynamo"),
    "compiler_allow_in_graph": ("from torch import compiler\ng = compiler.allow_in_graph(print)\n",
                                "from torch import compiler"),
}


@pytest.mark.parametrize(("code", "reason"), PACKAGE_UNDER_A_NAME_STILL.values(), ids=PACKAGE_UNDER_A_NAME_STILL.keys())
def test_a_torch_package_under_a_name_is_still_flagged_when_more_than_a_harmless_part_is_read(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


# (from_torch_import_compile, torchscript_kernel_module, torchscript_function_kernel: full marks in
# test_fair_styles_round38)
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


# ------------------------------------------------------------------ square weights: a second probe of the layout
def _square_case() -> tuple[torch.Tensor, torch.Tensor]:
    from grader_tests.attention import cases as C

    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(2, 3, 4, 4, generator=g), torch.randn(2, 3, 4, 4, generator=g)
    return C.ref_weights(q, k).float(), C.ref_weights(q, k)


def _never() -> bool:
    raise AssertionError("the probe was asked where the values tell the layout")


def test_square_weights_the_values_cannot_place_are_read_back_when_a_rectangular_probe_shows_key_by_query():
    from grader_tests.attention.drivers import read_back

    w, ref = _square_case()
    unscaled = torch.softmax(torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(9)), dim=-1)
    shown = unscaled.transpose(-2, -1)           # another mistake's weights, returned key x query
    assert torch.equal(read_back(shown, [2, 3, 4, 4], lambda: ref, lambda: True), unscaled)
    assert torch.equal(read_back(shown, [2, 3, 4, 4], lambda: None, lambda: True), unscaled)
    for told in (False, None):                    # query x key, or the probe could not tell: as returned
        assert read_back(shown, [2, 3, 4, 4], lambda: ref, lambda t=told: t) is shown
    # where the values decide, the probe is never asked (no extra call for code that is right)
    assert read_back(w, [2, 3, 4, 4], lambda: ref, _never) is w
    assert torch.equal(read_back(w.transpose(-2, -1), [2, 3, 4, 4], lambda: ref, _never), w)


class _Kernel:
    """A stand-in of the jail's kernel for layout_probe: returns weights of the given layout."""

    def __init__(self, transposed: bool | None):
        self.transposed, self.calls = transposed, 0

    def __call__(self, handle, method, q, k, v, return_weights=False):
        self.calls += 1
        if self.transposed is None:
            return q                                   # no weights at all
        w = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
        return q, (w.transpose(-2, -1) if self.transposed else w)


@pytest.mark.parametrize("transposed", [True, False, None])
def test_the_layout_probe_reads_the_layout_off_a_rectangular_call_once_per_session(transposed):
    from grader_tests.attention.drivers import AttentionStudent
    from grading.proxy import Handle

    student = AttentionStudent.__new__(AttentionStudent)
    student._layouts, student.generation, student._session = {}, 1, None   # no session: no source to quote
    student.call = _Kernel(transposed)
    handle = Handle(student, "ScaledDotProductAttention", (), {}, None, "ScaledDotProductAttention()", True)
    assert student.layout_probe(handle, [2, 3], 4, torch.float32) is transposed
    assert student.layout_probe(handle, [2, 3], 4, torch.float32) is transposed
    assert student.call.calls == 1
    student.generation = 2                             # a new session asks again
    student.layout_probe(handle, [2, 3], 4, torch.float32)
    assert student.call.calls == 2


@pytest.mark.slow
@pytest.mark.parametrize(("both", "alone", "layout"), [
    ([(KERNEL_RETURN, KERNEL_T), NO_SCALE], [NO_SCALE],
     {"test_hand_example", "test_cross_attention_shapes", "test_weights_parity_reference", "test_mha_weights_per_head"}),
    ([(WRAPPER_RETURN, WRAPPER_T), NO_OUT_PROJ], [NO_OUT_PROJ], {"test_mha_weights_per_head"}),
], ids=["kernel_without_the_scale", "wrapper_without_out_proj"])
def test_transposed_weights_with_a_second_mistake_cost_the_layout_tests_and_that_mistake_only(executor, both, alone,
                                                                                                layout):
    """Round 30 left the square weights of a second mistake as returned: the row sums' Nq == Nk case failed them
    (3 points) on the layout alone. The rectangular probe proves the layout; what fails is the mistake's and the
    layout's tests."""
    with_layout, without = _graded(executor, both), _graded(executor, alone)
    assert set(_failed(with_layout)) == set(_failed(without)) | layout, (_failed(without), _failed(with_layout))
