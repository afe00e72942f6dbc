"""Round 33: multi-head hints that never contradict the code (the round's corpus files, r33_*.py in
tests/fixtures/submissions/faulty/, carry their `# diagnosis:` headers, which test_fair_corpus.py checks; the
lines they quote are checked by test_quoted_lines_round31.py).

1. The line finder (grading/family.py) reads a class member by member: a method nothing calls is not code the
   tests ran. Before, a class the code builds (``self.core = Core()``) and the class itself were read whole, so
   an uncalled method's ``torch.softmax(s, dim=-1)`` was quoted as the softmax over the queries, while the
   hand-written softmax that ran normalised over dim=-2.
2. It follows a module-level instance (``_core = Core()`` used as ``_core(x)`` or ``_core.attend(x)``) and a
   class whose attribute the code reads (``Ops.normalise(s)``). Before, these gave no line.
"""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, source_lines
from tests.grading.helpers import code_names, english_in_zh

SDPA = "ScaledDotProductAttention"
HEAD = "import torch\nfrom torch import nn\n\n\n"
FORWARD = "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"
RETURN = "        return (w @ v, w) if return_weights else w @ v\n"
HAND_SOFTMAX = ("e = torch.exp(s - s.amax(dim=-2, keepdim=True))\n"
                "return e / e.sum(dim=-2, keepdim=True)\n")


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _axis(source: str, cls_name: str = SDPA) -> str | None:
    note = source_lines.softmax_axis_note(source, cls_name)
    return None if note is None else note["en"]


def _indented(body: str, depth: int = 2) -> str:
    return "".join(f"{'    ' * depth}{line}\n" for line in body.splitlines())


def _core(forward_body: str, uncalled: str = "return torch.softmax(s, dim=-1)") -> str:
    """A class Core whose forward runs ``forward_body`` and whose ``reference`` nothing calls."""
    return ("class Core(nn.Module):\n    def reference(self, s):\n" + _indented(uncalled) +
            "\n    def forward(self, s):\n" + _indented(forward_body) + "\n\n")


# ----------------------------------------------------------------------------- 1. only the members that run
def test_an_uncalled_method_of_a_class_the_kernel_builds_is_not_quoted():
    """Before: 'line 6 (in Core): torch.softmax(s, dim=-1) normalises over dim=-1, which holds the queries', a
    method nothing calls, while Core.forward's own softmax normalised over dim=-2 (r33_core_subobject_hand_
    softmax_query_axis.py)."""
    source = (HEAD + _core(HAND_SOFTMAX) + "class ScaledDotProductAttention(nn.Module):\n"
              "    def __init__(self):\n        super().__init__()\n        self.core = Core()\n\n" + FORWARD +
              "        w = self.core(q @ k.mT)\n" + RETURN)
    assert _axis(source) is None
    assert [(owner, node.name) for owner, node in source_lines.family(source, SDPA)] == [
        (SDPA, "__init__"), (SDPA, "forward"), ("Core", "forward")]


def test_an_uncalled_method_of_the_class_itself_is_not_quoted():
    source = (HEAD + "class ScaledDotProductAttention(nn.Module):\n    def reference(self, s):\n"
              "        return torch.softmax(s, dim=-1)\n\n" + FORWARD + "        s = q @ k.mT\n" +
              _indented(HAND_SOFTMAX.replace("return ", "w = ")) + RETURN)
    assert _axis(source) is None


def test_the_called_method_of_a_built_class_is_quoted_and_its_uncalled_sibling_is_not():
    """Before: no line (two softmaxes found in Core, the called one and the uncalled one)."""
    source = (HEAD + _core("return self.attend(s)") .replace(
        "    def forward", "    def attend(self, s):\n        return torch.softmax(s, dim=-2)\n\n    def forward") +
        "class ScaledDotProductAttention(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.core = Core()\n\n" + FORWARD + "        w = self.core(q @ k.mT)\n" + RETURN)
    said = _axis(source)
    line = _line(source, "dim=-2")
    assert said == f"line {line} (in Core): torch.softmax(s, dim=-2) normalises over dim=-2, the queries of " \
                   "[B, H, Nq, Nk]", said
    zh = source_lines.softmax_axis_note(source, SDPA)["zh"]
    assert zh.startswith(f"第 {line} 行（在 Core 中）：") and english_in_zh(zh, code_names(source)) == [], zh


@pytest.mark.parametrize("read", ["self.reference", "getattr(self, 'reference')", "getattr(self, name)"])
def test_a_method_read_by_name_or_by_a_computed_name_counts_as_run(read):
    """A method the code reads (a hook, getattr) may run: the class then has two softmaxes and no line is quoted."""
    source = (HEAD + "class ScaledDotProductAttention(nn.Module):\n    def reference(self, s):\n"
              "        return torch.softmax(s, dim=-1)\n\n" + FORWARD + f"        name, keep = 'x', {read}\n"
              "        w = torch.softmax(q @ k.mT, dim=-2)\n" + RETURN)
    assert _axis(source) is None


def test_a_forward_defined_in_a_block_of_the_class_body_is_still_read():
    source = (HEAD + "FAST = True\n\n\nclass ScaledDotProductAttention(nn.Module):\n    if FAST:\n    " +
              FORWARD + "            w = torch.softmax(q @ k.mT, dim=-2)\n    " + RETURN)
    said = _axis(source)
    assert said is not None and said.startswith(f"line {_line(source, 'dim=-2')}: torch.softmax"), said


# ----------------------------------------------------------------------------- 2. instances and class attributes
_ROWNORM = "class RowNorm(nn.Module):\n    def forward(self, s):\n        return torch.softmax(s, dim=-2)\n\n" \
           "    def rows(self, s):\n        return torch.softmax(s, dim=-1)\n\n\n"


@pytest.mark.parametrize("binding, use", [
    ("_norm = RowNorm()", "_norm(q @ k.mT)"),
    ("_norm = RowNorm()", "_norm.forward(q @ k.mT)"),
    ("Norm = RowNorm\n_norm = Norm()", "_norm(q @ k.mT)"),
    ("_norm: nn.Module = RowNorm()", "_norm(q @ k.mT)"),
])
def test_a_module_level_instance_is_followed_to_the_method_that_runs(binding, use):
    """Before: no line (a module-level instance was not followed)."""
    source = HEAD + _ROWNORM + binding + "\n\n\nclass ScaledDotProductAttention(nn.Module):\n" + FORWARD + \
        f"        w = {use}\n" + RETURN
    said = _axis(source)
    assert said is not None and said.startswith(f"line {_line(source, 'dim=-2')} (in RowNorm): "
                                                "torch.softmax(s, dim=-2) normalises over dim=-2"), said


def test_a_class_whose_static_method_the_code_calls_is_followed():
    source = (HEAD + "class Ops:\n    @staticmethod\n    def normalise(s):\n        return s.softmax(dim=-2)\n\n"
              "    @staticmethod\n    def unused(s):\n        return s.softmax(dim=-1)\n\n\n"
              "class ScaledDotProductAttention(nn.Module):\n" + FORWARD + "        w = Ops.normalise(q @ k.mT)\n" + RETURN)
    said = _axis(source)
    assert said is not None and said.startswith(f"line {_line(source, 'dim=-2')} (in Ops): s.softmax(dim=-2)"), said


@pytest.mark.parametrize("binding, use", [
    ("_norm = make()", "_norm(q @ k.mT)"),                                  # a function's result: not followed
    ("_norm = RowNorm() if FAST else None", "_norm(q @ k.mT)"),             # which one is not written down
    ("_norm = RowNorm()\nif FAST:\n    _norm = None", "_norm(q @ k.mT)"),   # rebound in a block
    ("_norm = None", "torch.softmax(q @ k.mT, dim=-1) if isinstance(q, RowNorm) else None"),  # a class named
])
def test_a_name_that_may_hold_something_else_or_only_names_a_class_is_not_followed(binding, use):
    source = (HEAD + "FAST = True\n\n\ndef make():\n    return RowNorm()\n\n\n" + _ROWNORM + binding +
              "\n\n\nclass ScaledDotProductAttention(nn.Module):\n" + FORWARD + f"        w = {use}\n" + RETURN)
    owners = [owner for owner, _ in source_lines.family(source, SDPA)]
    assert "RowNorm" not in owners, owners


def test_a_causal_mask_built_in_a_sub_object_is_quoted_beside_its_uncalled_helper():
    """Before: no line (the Masker's uncalled tril helper made two triangles)."""
    source = (HEAD + "class Masker(nn.Module):\n    def keep_lower(self, n):\n        return torch.tril(torch.ones(n, n))\n\n"
              "    def forward(self, n):\n        return torch.ones(n, n, dtype=torch.bool).triu(0)\n\n\n"
              "class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, num_heads, head_dim=None):\n"
              "        super().__init__()\n        self.masker = Masker()\n\n"
              "    def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):\n"
              "        return self.masker(x.shape[1])\n")
    note = source_lines.causal_note(source, "MultiHeadAttention")
    assert note is not None and note["en"] == f"line {_line(source, '.triu(0)')} (in Masker) builds a triangular " \
                                              "mask: torch.ones(n, n, dtype=torch.bool).triu(0)", note


# ----------------------------------------------------------------------------- 3. what the numbers cannot tell apart
@pytest.mark.parametrize("key", ["kv_swapped", "shared_q", *C.PROJECTION_ROLE_FAULTS])
def test_a_projection_hint_also_says_the_tensors_may_be_passed_in_each_others_place(key):
    """The same numbers come from ``self.attention(q, v, k)`` with every projection right
    (r33_mha_kernel_called_kv_swapped.py): before, the hint said only 'keys projected with v_proj ...: K = k_proj(context)',
    which the student's code already did."""
    said = diagnose.FAULTS[key]
    assert "ScaledDotProductAttention" in said["en"] and said["en"].endswith("passed in the order (q, k, v)"), said
    assert "ScaledDotProductAttention" in said["zh"] and said["zh"].endswith("并按 (q, k, v) 的顺序传入"), said
    assert english_in_zh(said["zh"], set()) == [], said["zh"]


def test_the_mask_after_the_softmax_is_said_as_added_or_filled_in():
    """``w.masked_fill(mask.isinf(), -inf)`` after the softmax gives these numbers too
    (r33_neg_inf_filled_after_softmax.py): before, the hint said the mask 'is added'."""
    said = diagnose.FAULTS["mask_added_after_softmax"]
    assert "added or filled in after the softmax" in said["en"] and "加上或填入" in said["zh"], said


# ----------------------------------------------------------------------------- 4. the other hints that read the class
_UNCALLED_BESIDE = ("class ScaledDotProductAttention(nn.Module):\n    def debug(self, w):\n        {uncalled}\n"
                    "        return w\n\n" + FORWARD + "        w = torch.softmax(q @ k.mT, dim=-1)\n        {used}\n" + RETURN)


def test_an_in_place_change_in_a_method_nothing_calls_is_not_quoted():
    """Before: 'changes a tensor in place on line 7 (w.exp_())', in a method nothing calls."""
    from grading.load_hints import inplace_backward_note

    message = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
               "[torch.FloatTensor [2, 3, 4, 4]] is at version 1")
    source = HEAD + _UNCALLED_BESIDE.format(uncalled="w.exp_()", used="w = w * 1.0")
    assert inplace_backward_note(source, SDPA, message) is None
    source = HEAD + _UNCALLED_BESIDE.format(uncalled="w = w * 1.0", used="w.mul_(1.0)")
    note = inplace_backward_note(source, SDPA, message)
    assert note is not None and f"on line {_line(source, 'w.mul_(1.0)')} (w)" in note["en"], note


def test_a_dropout_in_a_method_nothing_calls_is_not_quoted_as_the_randomness():
    """Before: 'line 7 calls F.dropout(w, 0.1), which drops values whatever the mode', in a method nothing calls,
    while forward's own randomness was hand-written (r33_bernoulli_dropout_always.py's style)."""
    source = ("import torch.nn.functional as F\n" + HEAD + _UNCALLED_BESIDE.format(
        uncalled="w = F.dropout(w, 0.1)", used="w = w * torch.bernoulli(torch.full_like(w, 0.9)) / 0.9"))

    class Student:
        pass

    student = Student()
    student.source = source
    assert diagnose.randomness(student, SDPA) == diagnose.FAULTS["dropout"]
    student.source = source.replace("    def forward", "    def forward_old(self, w):\n        return F.dropout(w, 0.1)"
                                    "\n\n    def forward", 1).replace("w = w * torch.bernoulli", "w = self.forward_old(w) * torch.bernoulli")
    said = diagnose.randomness(student, SDPA)["en"]
    assert f"line {_line(student.source, 'return F.dropout')} calls F.dropout(w, 0.1)" in said, said


@pytest.mark.parametrize("method", ["eval(self)", "train(self, mode=True)"])
def test_a_method_torch_or_the_tests_call_without_the_file_naming_it_counts_as_run(method):
    """The tests call eval() (which calls train(False)): an override of either runs, though the file never names it."""
    source = (HEAD + "class ScaledDotProductAttention(nn.Module):\n" + f"    def {method}:\n"
              "        self.w = torch.softmax(self.s, dim=-2)\n        return self\n\n" + FORWARD +
              "        w = q @ k.mT\n" + RETURN)
    said = _axis(source)
    assert said is not None and said.startswith(f"line {_line(source, 'dim=-2')}: torch.softmax"), said


def test_a_multi_head_qk_swap_in_self_attention_also_names_the_wrappers_swapped_queries_and_keys():
    """r33_mha_fused_weights_chunk_kqv.py unpacks ``k, q, v = F.linear(x, w, b).chunk(3, -1)`` and its kernel computes
    Q @ K^T: before, the hint said only 'Q and K are swapped; the scores are Q @ K^T', which the kernel does."""
    from tests.grading.test_diagnoses import Faulty

    class WrapperSwap(Faulty):
        def sdpa(self, q, k, v, mask=None, *, return_weights=False):   # the kernel is right
            out, w = C.ref_output(q, k, v, mask), C.ref_weights(q, k, mask)
            return (out, w.to(q.dtype)) if return_weights else out

    params, x = C.mha_params(30, 16, 2, 8), C.tokens(42, 2, 5, 16)
    out, _ = C.mha_variant(params, 2, 8, x, None, None, None, fault="qk_swapped")
    said = diagnose.mha(out.float(), None, params, 2, 8, x, student=WrapperSwap("qk_swapped"))
    assert said is not None and said["en"].startswith(diagnose.fault_name("qk_swapped", True)["en"]), said
    assert diagnose.QK_SWAPPED_IN_WRAPPER["en"] in said["en"] and diagnose.QK_SWAPPED_IN_WRAPPER["zh"] in said["zh"]
    assert english_in_zh(said["zh"], set()) == [], said["zh"]


def test_a_kernel_that_differs_between_sessions_quotes_no_dropout_line_of_the_wrapper():
    """r33_kernel_bernoulli_wrapper_dropout.py: the kernel's own randomness is torch.bernoulli; before, the kernel's
    determinism feedback quoted the wrapper's 'F.dropout(..., 0.1)', a class that test never ran."""
    from grader_tests.attention.test_implementation import _why_sessions_differ

    source = ("import torch.nn.functional as F\n" + HEAD + "class ScaledDotProductAttention(nn.Module):\n" + FORWARD +
              "        w = torch.softmax(q @ k.mT, dim=-1)\n        w = w * torch.bernoulli(torch.full_like(w, 0.9))\n"
              + RETURN + "\n\nclass MultiHeadAttention(nn.Module):\n    def forward(self, x):\n"
              "        return F.dropout(x, 0.1)\n")

    class Student:
        pass

    student = Student()
    student.source = source
    a, b = torch.zeros(2), torch.ones(2)
    assert _why_sessions_differ((a, b), (b, a), student, SDPA) == diagnose.FAULTS["dropout"]
    said = _why_sessions_differ((a, b), (b, a), student, "MultiHeadAttention")["en"]
    assert f"line {_line(source, 'F.dropout(x, 0.1)')} calls F.dropout(x, 0.1)" in said, said
