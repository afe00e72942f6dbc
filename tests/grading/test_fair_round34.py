"""Fairness round 34: correct code in 22 more public styles, and classes that the grader's import never defines.

- 22 correct styles (README's correct corpus): the Time-Series-Library's FullAttention ([B, L, H, E] einsums),
  StatQuest's row_dim/col_dim, ChatGLM's query_key_layer_scaling_coeff with baddbmm(beta=0), Qwen's
  ``torch.full([], ...)`` scale, OPT's clamp at finfo.min, torch.einsum's sublist format, a flax
  dot_product_attention port with ``precision``, xFormers' split-KV log-sum-exp merge, Longformer's window in
  its dense form, BigBird's "original_full", HF Perceiver's qk/v channels, timm's ``fused_attn: Final[bool]``,
  a max-length causal buffer left unused, ``F.linear(x, in_proj_weight, in_proj_bias).chunk(3)``, einops'
  pack/unpack, ``torch.func.functional_call`` projections, broadcast-and-sum scores, a Jittor ``execute`` port
  behind ``forward(*args, **kwargs)``, ``torch.masked.softmax``, PVT's kv Linear halves applied with F.linear,
  fairseq2's classes bound to the lab's names (``ScaledDotProductAttention = NaiveSDPA``) and Graphormer's
  time-first bmm core. Each got 85/85 with no review finding at once: the grader had no defect to fix for them,
  and faults put into five of them lose points in their category (the checks can fail on these styles).
- Both classes under ``if __name__ == "__main__":`` (so not defined when the grader imports the file): 3/85
  and no message, 31 failures each hinting one class, and "no fused attention (source)" passed because the
  source named a contract class in code that never runs. static.binds_contract_name now counts a binding only
  where the import binds a module name (not under the main guard or ``if TYPE_CHECKING:``, not inside a
  function or class unless declared ``global``): 0/85 and one message, in zh and en, naming both classes' lines.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, graded_mutant
from tests.grading.test_fair_round30 import _code_score, _failed

CORRECT = SUBMISSIONS / "correct"
# (the round's new styles get full marks and no review finding: test_fair_styles_round38)


# A fault put into a new style loses points in its category: the checks can fail on these styles.
MUTANTS = {
    # Qwen's own line: its keys and values have one size, the lab's may not
    "qwen_scale_by_value_dim": ("qwen_full_scale_tensor", "key.size(-1) ** 0.5", "value.size(-1) ** 0.5",
                                "formula_shape"),
    "fairseq2_scale_by_value_dim": ("fairseq2_sdpa_alias", "seqs * (seqs.size(-1) ** -0.5)",
                                    "seqs * (values.size(-1) ** -0.5)", "formula_shape"),
    "sublist_softmax_over_queries": ("einsum_sublist_format", "F.softmax(scores, dim=-1)", "F.softmax(scores, dim=-2)",
                                     "formula_shape"),
    # the blocked keys' scores were zeroed for the masked softmax: without its mask they are seen
    "masked_softmax_without_mask": ("torch_masked_softmax", "torch.masked.softmax(biased, dim=-1, mask=allowed)",
                                    "torch.masked.softmax(biased, dim=-1)", "mask_parity"),
    # an all-blocked chunk's lse is -inf: NaN gradients
    "lse_merge_unclamped": ("xformers_lse_merge", "(s + bias).clamp_min(torch.finfo(s.dtype).min)", "s + bias",
                            "implementation"),
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "old", "new", "category"), MUTANTS.values(), ids=MUTANTS.keys())
def test_a_fault_in_a_new_style_loses_points_in_its_category(executor, name, old, new, category):
    result = graded_mutant(executor, CORRECT / f"{name}.py", old, new)
    assert result["categories"][category]["score"] < result["categories"][category]["max"], _failed(result)


# ------------------------------------------------------------------ classes the grader's import never defines
HEADER = "import torch\nfrom torch import nn\n"
SDPA = "class ScaledDotProductAttention(nn.Module):\n    pass\n"


def _indented(code: str, by: str = "    ") -> str:
    return "".join(by + line if line.strip() else line for line in code.splitlines(keepends=True))


NOT_BOUND = {
    "under_the_main_guard": "if __name__ == '__main__':\n" + _indented(SDPA),
    "under_the_main_guard_reversed": "if '__main__' == __name__:\n" + _indented(SDPA),
    "under_type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                           "    from mylib import ScaledDotProductAttention, MultiHeadAttention\n",
    "inside_a_function": "def build():\n" + _indented(SDPA) + "    return ScaledDotProductAttention\n",
    "inside_a_class": "class Models:\n" + _indented(SDPA) + "    MultiHeadAttention = nn.Module\n",
    "a_lambda_default": "make = lambda ScaledDotProductAttention=nn.Module: ScaledDotProductAttention\n",
}


@pytest.mark.parametrize("code", NOT_BOUND.values(), ids=NOT_BOUND.keys())
def test_a_class_the_import_never_defines_binds_no_contract_name(code):
    assert static.binds_contract_name(HEADER + code) is False


BOUND = {
    "at_the_top_level": SDPA,
    "in_the_main_guards_else": "if __name__ == '__main__':\n    pass\nelse:\n" + _indented(SDPA),
    # a file that binds __name__ may run its guard
    "guard_after_name_rebound": "__name__ = '__main__'\nif __name__ == '__main__':\n" + _indented(SDPA),
    "declared_global_in_a_function": "def build():\n    global ScaledDotProductAttention\n" + _indented(SDPA)
                                     + "build()\n",
    "an_alias": "class Attn(nn.Module):\n    pass\nMultiHeadAttention = Attn\n",
    "a_guarded_import": "try:\n    from mylib import ScaledDotProductAttention\nexcept ImportError:\n" + _indented(SDPA),
    "a_star_import": "from mylib import *\n",
    "a_loop_target": "for MultiHeadAttention in [nn.Module]:\n    pass\n",
    "a_walrus": "if (MultiHeadAttention := nn.Module):\n    pass\n",
    "a_decorated_class": "import functools\n@functools.total_ordering\n" + SDPA,
    "a_walrus_in_a_default": "def build(cls=(MultiHeadAttention := nn.Module)):\n    return cls\n",
}


@pytest.mark.parametrize("code", BOUND.values(), ids=BOUND.keys())
def test_a_class_the_import_defines_still_binds_its_name(code):
    assert static.binds_contract_name(HEADER + code) is True


MAIN_GUARDED = (CORRECT / "reference.py").read_text(encoding="utf-8")


def _all_under(head: str, source: str) -> str:
    """``source`` with everything after its imports moved under ``head`` (a main guard, as a student keeping a
    notebook's cells together writes it, or a builder function)."""
    lines = source.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith(("class ", "def ", "@")))
    return "".join(lines[:first]) + head + _indented("".join(lines[first:]))


WRAPPED = {
    "main_guard": ("if __name__ == \"__main__\":\n", "is defined at line {}, under `if __name__ == \"__main__\":`",
                   "定义在第 {} 行，位于 `if __name__ == \"__main__\":` 之下"),
    "builder_function": ("def build():\n", "is defined at line {}, inside another function or class",
                         "定义在第 {} 行，位于另一个函数或类的内部"),
}


@pytest.mark.parametrize(("head", "en", "zh"), WRAPPED.values(), ids=WRAPPED.keys())
def test_both_classes_the_import_never_defines_are_told_once_with_both_lines(executor, head, en, zh):
    """3/85 before, no message, and 31 failures each naming one class's line."""
    source = _all_under(head, MAIN_GUARDED)
    lines = source.splitlines()
    sdpa = next(i for i, line in enumerate(lines, 1) if line.startswith("    class ScaledDotProductAttention"))
    mha = next(i for i, line in enumerate(lines, 1) if line.startswith("    class MultiHeadAttention"))
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    assert result["status"] == "graded" and _code_score(result) == 0
    message = result["message"]
    for lang, line_of in (("en", en), ("zh", zh)):
        assert f"ScaledDotProductAttention {line_of.format(sdpa)}" in message[lang], message[lang]
        assert f"MultiHeadAttention {line_of.format(mha)}" in message[lang], message[lang]
    assert message["en"].count("Hint: ") == 1 and message["zh"].count("提示：") == 1
    assert all(t["outcome"] == "failed" and t["feedback"]["en"].startswith("not run: ") for t in result["tests"])


# ------------------------------------------------------------------ methods ScriptModule.define() makes
# The pre-1.2 TorchScript style (round 33 runs its script_method classes eagerly) may also make a method from a
# string: in the jail nothing is compiled, so that method does not exist. 6/85 before and after (the grader runs
# no TorchScript from strings its review cannot read); before, the tests quoted only "has no attribute 'scale'",
# now they say where the method was made and why it is missing.
DEFINED_SCALE = (
    "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"
    "class ScaledDotProductAttention(torch.jit.ScriptModule):\n"
    "    def __init__(self):\n        super().__init__()\n"
    "        self.define('''\ndef scale(self, d: int) -> float:\n    return 1.0 / float(d) ** 0.5\n''')\n\n"
    "    @torch.jit.script_method\n"
    "    def forward(self, q, k, v, additive_mask=None, return_weights: bool = False):\n"
    "        s = q @ k.transpose(-2, -1) * self.scale(q.size(-1))\n"
    "        if additive_mask is not None:\n            s = s + additive_mask\n"
    "        w = F.softmax(s, dim=-1)\n        o = w @ v\n"
    "        if return_weights:\n            return o, w\n        return o\n"
)


def test_a_method_define_makes_is_said_to_be_missing_because_of_define():
    from grading.load_hints import script_define_note

    note = script_define_note(DEFINED_SCALE, 15, "'ScaledDotProductAttention' object has no attribute 'scale'")
    assert note["en"].startswith("scale is made at line 9 by ScriptModule.define(), which compiles TorchScript")
    assert note["en"].endswith("write scale as a def in the class body")
    assert note["zh"].startswith("scale 是第 9 行由 ScriptModule.define() 生成的") and "PYTORCH_JIT=0" in note["zh"]
    forward = DEFINED_SCALE.replace("def scale(self, d: int)", "def forward(self, d: int)")
    missing = 'Module [ScaledDotProductAttention] is missing the required "forward" function'
    assert script_define_note(forward, 15, missing)["en"].startswith("forward is made at line 9 by ScriptModule")


@pytest.mark.parametrize(("source", "message"), [
    (DEFINED_SCALE, "'ScaledDotProductAttention' object has no attribute 'temperature'"),   # another name
    (DEFINED_SCALE, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),             # another error
    (DEFINED_SCALE.replace("self.define(", "self.describe("), "object has no attribute 'scale'"),
    (DEFINED_SCALE.replace("def scale(self", "def scale(self,,"), "object has no attribute 'scale'"),  # unparsable
    (DEFINED_SCALE.replace("'''\ndef scale", "TEMPLATE.format('''\ndef scale").replace("''')\n", "'''))\n"),
     "object has no attribute 'scale'"),                                                  # not a constant string
], ids=["another_name", "another_error", "no_define", "string_not_python", "computed_string"])
def test_no_define_note_without_a_define_string_making_that_name(source, message):
    from grading.load_hints import script_define_note

    assert script_define_note(source, 15, message) is None


def test_a_script_module_method_made_by_define_is_told_in_both_languages(executor):
    result = grade(GradeInput(code=DEFINED_SCALE.replace(
        "        return o\n", "        return o\n\n\nclass MultiHeadAttention(nn.Module):\n    pass\n", 1).encode()),
        "attention", executor)
    told = [fb for fb in _failed(result).values() if "has no attribute 'scale'" in fb["en"]]
    assert told and all("scale is made at line 9 by ScriptModule.define()" in fb["en"]
                        and "scale 是第 9 行由 ScriptModule.define() 生成的" in fb["zh"] for fb in told), told
