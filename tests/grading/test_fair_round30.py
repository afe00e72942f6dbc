"""Fairness round 30: points taken from correct or nearly-correct code.

- ``torch.compile`` (a decorator, bare or with arguments, ``torch.compile(module)``, ``Module.compile()``,
  ``torch.compiler.compile``): the jail makes it give back what it is given (lazy_torch._compile_runs_eagerly),
  so compiled code runs as written and the run-time counters see every call in it; the review still flagged the
  use and 13 points waited for the instructor. Now no finding; a fused kernel inside compiled code is still
  caught, by the review and by the counters.
- Weights returned transposed ([B,H,Nk,Nq]) with the output right cost 51 points (34/85): every test that asks
  for the weights failed on their shape, whatever its subject (determinism, float16, masks, padding, the
  multi-head output's length). The layout is now graded by the tests whose subject it is (the shapes, the hand
  example, the weights' parity, the per-head weights: 11 points for the kernel, 2 for the wrapper); the others
  read the weights back (drivers.read_back: by their shape where Nq != Nk, by their values where Nq == Nk)."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS
from tests.grading.helpers import code_score as _code_score
from tests.grading.helpers import failed_tests as _failed

CORRECT = SUBMISSIONS / "correct"
HEADER = "import math\nimport torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


# ------------------------------------------------------------------ torch.compile
COMPILED_HONEST = {
    "decorator": "@torch.compile\ndef f(x):\n    return x\n",
    "decorator_with_arguments": "@torch.compile(dynamic=True, fullgraph=True, mode='max-autotune')\n"
                                "def f(x):\n    return x\n",
    "on_a_module": "m = torch.compile(nn.Linear(2, 2), backend='inductor')\n",
    "module_compile_in_place": "m = nn.Linear(2, 2)\nm.compile()\n",
    "on_self_in_init": "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                       "        self.lin = nn.Linear(2, 2)\n        self.lin.compile(mode='reduce-overhead')\n",
    "by_a_literal_getattr": "c = getattr(torch, 'compile', None)\nm = c(nn.Linear(2, 2))\n",
    "torch_compiler_compile": "m = torch.compiler.compile(nn.Linear(2, 2))\n",
    "imported_from_torch_compiler": "from torch.compiler import compile, is_compiling\n",
}


@pytest.mark.parametrize("code", COMPILED_HONEST.values(), ids=COMPILED_HONEST.keys())
def test_torch_compile_is_no_finding(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


COMPILED_STILL = {
    "the_builtin_compile": ("x = compile('1', 'f', 'eval')\n", "hidden", "line 5: compile"),
    "dynamo_directly": ("f = torch._dynamo.optimize('eager')\n", "hidden", "torch._dynamo"),
    "the_rest_of_torch_compiler": ("g = torch.compiler.allow_in_graph(print)\n", "hidden", "torch.compiler"),
    "a_compiled_fused_kernel": ("@torch.compile\ndef f(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)\n",
                                "fused", "F.scaled_dot_product_attention"),
    "the_fused_kernel_compiled": ("f = torch.compile(F.scaled_dot_product_attention)\n", "fused",
                                  "F.scaled_dot_product_attention"),
    "a_compiled_multihead_module": ("m = torch.compile(nn.MultiheadAttention(8, 2))\n", "fused",
                                    "nn.MultiheadAttention"),
}


@pytest.mark.parametrize(("code", "check", "reason"), COMPILED_STILL.values(), ids=COMPILED_STILL.keys())
def test_what_compiling_does_not_excuse_is_still_found(code, check, reason):
    found = (static.fused_attention_uses if check == "fused" else static.hidden_name_uses)(HEADER + code)
    assert any(reason in f for f in found), found


# (torch_compile_decorated and module_compile_in_place: full marks in test_fair_styles_round38)
FUSED_IN_COMPILED = {
    # a compiled helper that calls the fused function for the output
    "sdpa_in_a_compiled_helper": (('''@torch.compile(dynamic=True, fullgraph=True)
def weighted_sum(weights: Tensor, v: Tensor) -> Tensor:
    return torch.matmul(weights, v)''', '''@torch.compile(dynamic=True, fullgraph=True)
def fused(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)'''),
                                  ("output = weighted_sum(weights, v)", "output = fused(q, k, v, additive_mask)"),
                                  "scaled_dot_product_attention"),
    # PyTorch's multi-head module, compiled, computing the wrapper's output
    "multihead_module_compiled": (("self.attention = torch.compile(ScaledDotProductAttention(), mode=\"reduce-overhead\")",
                                   "self.attention = torch.compile(ScaledDotProductAttention(), mode=\"reduce-overhead\")\n"
                                   "        self.fused = torch.compile(nn.MultiheadAttention(d_model, num_heads, "
                                   "batch_first=True))"),
                                  ("out, weights = self.attention(q, k, v, mask, return_weights=True)",
                                   "out, weights = self.attention(q, k, v, mask, return_weights=True)\n"
                                   "        self.fused(x, context, context)"),
                                  "multi_head_attention_forward"),
}


@pytest.mark.slow
@pytest.mark.parametrize(("first", "second", "counted"), FUSED_IN_COMPILED.values(), ids=FUSED_IN_COMPILED.keys())
def test_a_fused_kernel_in_compiled_code_is_still_caught_by_the_review_and_at_run_time(executor, first, second,
                                                                                      counted):
    """The jail's torch.compile runs the function as written, so the counters see the fused call inside it."""
    from grading.runner import GradeInput, grade

    source = (CORRECT / "torch_compile_decorated.py").read_text(encoding="utf-8")
    for old, new in (first, second):
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    failed = _failed(result)
    assert {"test_no_fused_attention_static", "test_no_fused_attention_runtime"} <= set(failed), failed
    assert counted in failed["test_no_fused_attention_runtime"]["en"], failed["test_no_fused_attention_runtime"]


# ------------------------------------------------------------------ weights returned transposed
KERNEL_RETURN = "return (output, weights) if return_weights else output"
WRAPPER_RETURN = "return (out, weights) if return_weights else out"
KERNEL_T = ("return (output, weights.transpose(-2, -1)) if return_weights else output")
WRAPPER_T = ("return (out, weights.transpose(-2, -1)) if return_weights else out")
NO_SCALE = ("torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])", "torch.matmul(q, k.transpose(-2, -1))")
NO_OUT_PROJ = ("        out = self.out_proj(out)\n", "")
LAYOUT_TESTS = {"test_hand_example", "test_cross_attention_shapes", "test_weights_parity_reference"}
# variant: (replacements, the tests that fail, the code score)
TRANSPOSED = {
    "kernel": ([(KERNEL_RETURN, KERNEL_T)], LAYOUT_TESTS | {"test_mha_weights_per_head"}, 85 - 11),
    "wrapper": ([(WRAPPER_RETURN, WRAPPER_T)], {"test_mha_weights_per_head"}, 85 - 2),
    # the wrapper transposes the kernel's transposed weights back: its own are right
    "kernel_and_wrapper": ([(KERNEL_RETURN, KERNEL_T), (WRAPPER_RETURN, WRAPPER_T)], LAYOUT_TESTS, 85 - 9),
}


def _graded(executor, replacements: list[tuple[str, str]]) -> dict:
    from grading.runner import GradeInput, grade

    source = (CORRECT / "reference.py").read_text(encoding="utf-8")
    for old, new in replacements:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    assert result["status"] == "graded", result["message"]
    return result


@pytest.mark.slow
@pytest.mark.parametrize(("replacements", "failing", "score"), TRANSPOSED.values(), ids=TRANSPOSED.keys())
def test_weights_returned_transposed_cost_the_tests_of_their_layout(executor, replacements, failing, score):
    result = _graded(executor, replacements)
    failed = _failed(result)
    assert set(failed) == failing, failed
    assert _code_score(result) == score
    for fb in failed.values():   # what was seen: the shape returned and the one expected, or the values
        assert "one row per key" in fb["en"] and "每个 key 一行" in fb["zh"] or "transposed" in fb["en"], fb


@pytest.mark.slow
def test_feedback_of_transposed_weights_says_the_shape_returned_and_expected(executor):
    failed = _failed(_graded(executor, [(KERNEL_RETURN, KERNEL_T)]))
    assert "shape [2,2,7,3], expected [2,2,3,7]" in failed["test_cross_attention_shapes"]["en"], failed
    assert "shape 为 [2,2,7,3]，应为 [2,2,3,7]" in failed["test_cross_attention_shapes"]["zh"], failed


# A second mistake is not excused by the read-back weights: what it fails alone still fails, and the layout's tests
# too. (Square weights of other values are read back on a rectangular probe: test_fair_round31.py.)
SECOND_MISTAKE = {
    "kernel_without_the_scale": ([(KERNEL_RETURN, KERNEL_T), NO_SCALE], [NO_SCALE],
                                 LAYOUT_TESTS | {"test_mha_weights_per_head"}),
    "wrapper_without_out_proj": ([(WRAPPER_RETURN, WRAPPER_T), NO_OUT_PROJ], [NO_OUT_PROJ],
                                 {"test_mha_weights_per_head"}),
}


@pytest.mark.slow
@pytest.mark.parametrize(("both", "alone", "layout"), SECOND_MISTAKE.values(), ids=SECOND_MISTAKE.keys())
def test_a_wrong_output_with_transposed_weights_still_fails_its_tests(executor, both, alone, layout):
    with_layout, without = _graded(executor, both), _graded(executor, alone)
    assert set(_failed(without)) | layout <= set(_failed(with_layout)), (_failed(without), _failed(with_layout))
    assert _code_score(with_layout) < _code_score(without)


# drivers.read_back, unit by unit
def _case(nq: int, nk: int) -> tuple[torch.Tensor, torch.Tensor]:
    from grader_tests.attention import cases as C

    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(2, 3, nq, 4, generator=g), torch.randn(2, 3, nk, 4, generator=g)
    return C.ref_weights(q, k).float(), C.ref_weights(q, k)


def test_read_back_reads_swapped_weights_by_their_shape_where_nq_differs_from_nk():
    from grader_tests.attention.drivers import read_back

    w, ref = _case(3, 5)
    got = read_back(w.transpose(-2, -1), [2, 3, 3, 5], lambda: None)
    assert list(got.shape) == [2, 3, 3, 5] and torch.equal(got, w)
    assert read_back(w, [2, 3, 3, 5], lambda: ref) is w                    # right already
    assert read_back(w[..., :4], [2, 3, 3, 5], lambda: ref).shape[-1] == 4  # other shapes: left to validate


def test_read_back_reads_square_weights_only_when_their_transpose_is_the_reference():
    from grader_tests.attention.drivers import read_back

    w, ref = _case(4, 4)
    assert torch.equal(read_back(w.transpose(-2, -1), [2, 3, 4, 4], lambda: ref), w)
    assert read_back(w.transpose(-2, -1), [2, 3, 4, 4], lambda: None) is not w   # no reference: as returned
    wrong = torch.full_like(w, 0.25)
    assert read_back(wrong, [2, 3, 4, 4], lambda: ref) is wrong
    assert read_back(w, [2, 3, 4, 4], lambda: ref) is w
