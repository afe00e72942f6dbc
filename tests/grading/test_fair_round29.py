"""Fairness round 29: public styles that cost correct code points, each fixed for its whole class, and the new
correct files (tests/fixtures/submissions/correct/, graded whole by test_grading.test_correct_styles_get_full_code_marks
and test_fair_corpus.test_no_hint_fires_on_a_correct_style).

- Weight normalisation on the projections (``torch.nn.utils.parametrizations.weight_norm``, the legacy
  ``torch.nn.utils.weight_norm`` and any ``torch.nn.utils.parametrize`` parametrization, e.g. minLoRA's LoRA):
  the reference weights were copied into the tensor the module computes on each access (or that its forward
  pre-hook recomputes), so the module kept its own random weights: 20 of 85 points lost, and test_deterministic
  guessed at "a random value drawn when the module is imported or built" (runtime._load_reparametrized). A
  parametrization that cannot hold them (spectral_norm) or a pruned weight is said so, in both languages.
  torch.nn.utils.prune's ``weight_orig * weight_mask`` (``amount=0.0``, ready for pruning later) is the same class.
- ``@torch.compile`` and ``Module.compile`` in the jail (lazy_torch._compile_runs_eagerly).
- A type-annotation package the grader lacks (jaxtyping unguarded): the hint guessed it was the student's own file
  (load_hints._annotation_only_hint, KNOWN_PACKAGES)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.utils.parametrize
import torch.nn.utils.prune
from torch import nn

from grading.sandbox import runtime
from tests.grading.helpers import SUBMISSIONS, graded_mutant

CODE_CATEGORIES = ("formula_shape", "implementation", "mask_parity")
CORRECT = SUBMISSIONS / "correct"


def _code_score(result: dict) -> float:
    return sum(result["categories"][c]["score"] for c in CODE_CATEGORIES)


def _failed(result: dict) -> dict[str, dict]:
    return {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}


# ------------------------------------------------------------------ reparametrized projections
def _loaded(module: nn.Module, name: str = "weight") -> tuple[torch.Tensor, torch.Tensor]:
    """The weight ``module`` computes with after the runtime loads fixed values into it, and those values."""
    value = torch.arange(12.0).reshape(3, 4) / 7 - 0.5
    with torch.no_grad():
        if not runtime._load_reparametrized(module, name, value):
            getattr(module, name).copy_(value)
        module(torch.zeros(1, 4))                       # a legacy pre-hook recomputes the weight here
    return getattr(module, name).detach(), value


def _said_in_both(fail: runtime._Fail) -> dict[str, str]:
    """What a test's feedback says of a load the runtime refused: the grader's words, translated (never introduced
    as PyTorch's original English)."""
    from grading.proxy import ORIGINAL_MESSAGE_ZH, student_error_text
    from grading.sandbox.client import StudentError

    text = student_error_text("creating MultiHeadAttention(16, 4)", StudentError(fail.kind, fail.message, None))
    assert ORIGINAL_MESSAGE_ZH not in text["zh"], text
    return text


class _Lora(nn.Module):
    """minLoRA's parametrization: no right_inverse, and the identity while its update is zero."""

    def __init__(self) -> None:
        super().__init__()
        self.lora_a, self.lora_b = nn.Parameter(torch.randn(2, 4)), nn.Parameter(torch.zeros(3, 2))

    def forward(self, w: torch.Tensor) -> torch.Tensor:
        return w + self.lora_b @ self.lora_a


@pytest.mark.parametrize("wrap", [
    torch.nn.utils.parametrizations.weight_norm,
    lambda m: torch.nn.utils.weight_norm(m),
    lambda m: torch.nn.utils.parametrize.register_parametrization(m, "weight", _Lora()),
    lambda m: torch.nn.utils.prune.l1_unstructured(m, "weight", amount=0.0),
    lambda m: torch.nn.utils.prune.identity(m, "weight"),
], ids=["parametrizations.weight_norm", "legacy weight_norm", "parametrize without right_inverse",
        "prune, nothing pruned yet", "prune.identity"])
@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated:FutureWarning")
def test_values_load_into_a_weight_the_module_computes(wrap):
    module = wrap(nn.Linear(4, 3))
    used, value = _loaded(module)
    torch.testing.assert_close(used, value, rtol=1e-6, atol=1e-6)


def test_a_parametrization_that_cannot_hold_the_values_is_reported_not_ignored():
    """spectral_norm divides by the largest singular value: no setting of its parameters gives the values back."""
    module = torch.nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3))
    with pytest.raises(runtime._Fail) as failed:
        runtime._load_reparametrized(nn.ModuleDict({"q_proj": module}), "q_proj.weight", torch.ones(3, 4))
    text = _said_in_both(failed.value)
    assert "cannot be loaded into q_proj.weight: the parametrization (_SpectralNorm)" in text["en"], text
    assert "参考权重无法载入 q_proj.weight：计算它的参数化（_SpectralNorm）" in text["zh"], text


def test_a_pruned_weight_is_reported_not_ignored():
    module = torch.nn.utils.prune.l1_unstructured(nn.Linear(4, 3), "weight", amount=3)
    with pytest.raises(runtime._Fail) as failed:
        runtime._load_reparametrized(module, "weight", torch.ones(3, 4))
    text = _said_in_both(failed.value)
    assert text["en"].endswith("cannot be loaded into weight: it is pruned (3 of 12 entries masked to zero)"), text
    assert text["zh"].endswith("参考权重无法载入 weight：它已被剪枝（12 个元素中有 3 个被置零）"), text


def test_a_plain_weight_is_left_to_the_copy():
    assert runtime._load_reparametrized(nn.Linear(4, 3), "weight", torch.ones(3, 4)) is False


# (weight_norm_parametrizations and minlora_parametrize: full marks in test_fair_styles_round38)
def test_legacy_weight_norm_hooks_get_full_marks(executor):
    result = graded_mutant(executor, CORRECT / "weight_norm_parametrizations.py",
                           "from torch.nn.utils.parametrizations import weight_norm",
                           "from torch.nn.utils import weight_norm")
    assert _code_score(result) == 85 and _failed(result) == {}, _failed(result)


# ------------------------------------------------------------------ torch.compile in the jail
def test_compiled_code_runs_eagerly_and_gets_full_marks(executor):
    """``@torch.compile`` bare and with arguments, ``torch.compile(module)`` and ``Module.compile()``: each call of
    compiled code raised InductorError (the jail cannot run a C++ compiler) after seconds of tracing, and one
    compiled helper used up the grading's 40 s, every test failing on PyTorch's internal message
    (lazy_torch._compile_runs_eagerly). Since round 30 the use is no review finding either
    (tests/grading/test_fair_round30.py)."""
    from grading.runner import GradeInput, grade

    source = (CORRECT / "reference.py").read_text(encoding="utf-8")
    source = source.replace("class ScaledDotProductAttention(nn.Module):", '''@torch.compile
def _scores(q: Tensor, k: Tensor) -> Tensor:
    return torch.matmul(q, k.transpose(-2, -1))


@torch.compile(dynamic=True, fullgraph=True)
def _mix(weights: Tensor, v: Tensor) -> Tensor:
    return torch.matmul(weights, v)


class ScaledDotProductAttention(nn.Module):''', 1)
    source = source.replace("torch.matmul(q, k.transpose(-2, -1)) / math", "_scores(q, k) / math")
    source = source.replace("output = torch.matmul(weights, v)", "output = _mix(weights, v)")
    source = source.replace("self.attention = ScaledDotProductAttention()",
                            "self.attention = torch.compile(ScaledDotProductAttention(), mode='reduce-overhead')\n"
                            "        self.out_proj.compile()")
    assert source.count("_scores(") == 2 and source.count("_mix(") == 2 and ".compile()" in source
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    assert _failed(result) == {} and result["review"] == [], (_failed(result), result["review"])
    assert _code_score(result) == 85


# ------------------------------------------------------------------ a type-annotation package the grader lacks
JAXTYPING = CORRECT / "jaxtyping_guarded.py"
GUARD = ("try:\n    from jaxtyping import Float\nexcept ImportError:  # jaxtyping is only for the type checker\n"
         "    from typing import Annotated as Float\n")


def _hint(source: str) -> dict[str, str] | None:
    from grading.load_hints import load_hint

    return load_hint(source, "ModuleNotFoundError", 9, "No module named 'jaxtyping' in the grader")


def test_a_package_used_only_in_annotations_gets_a_hint_that_says_so():
    """jaxtyping imported without the guard: the hint guessed "if `jaxtyping` is a file of your own (jaxtyping.py),
    paste the code you use from it"; it is a public package, and the file only annotates with it."""
    source = JAXTYPING.read_text(encoding="utf-8").replace(GUARD, "from jaxtyping import Float\n")
    assert GUARD not in source and "from jaxtyping import Float\n" in source
    hint = _hint(source)
    assert hint is not None and "only for type annotations (lines " in hint["en"], hint
    assert "只在类型标注中用到 `jaxtyping`" in hint["zh"] and "except ImportError:" in hint["zh"], hint
    assert "file of your own" not in hint["en"]
    from tests.grading.helpers import code_names, english_in_zh

    assert english_in_zh(hint["zh"], code_names(source)) == [], hint["zh"]


@pytest.mark.parametrize("use", ["@jaxtyped(typechecker=None)\ndef f(x: Float) -> None:\n    pass\n",
                                 "def f(x):\n    return isinstance(x, Float)\n"])
def test_a_package_also_used_at_run_time_gets_no_annotation_hint_and_no_guess(use):
    source = "import torch\nfrom jaxtyping import Float, jaxtyped\n\n\n" + use
    assert _hint(source) is None
