"""Round 31: hints that never contradict the code (see also the round's corpus files, whose `# diagnosis:` headers
test_fair_corpus.py checks).

1. The line finder (grading/family.py) follows what reaches a class's code under another name: a module-level
   alias (``ScaledDotProductAttention = MyAttention``), a local one, ``functools.partial(helper, ...)`` and a
   helper the file imports from itself. Before, these gave no line at all; and a contract name rebound after its
   class (``ScaledDotProductAttention = ScaledDotProductAttentionV2``) had the first class's line quoted, code
   the tests never ran. A name the file does not bind for sure (a block, ``global``, a parameter or local variable
   of the same name) is not followed: no line rather than a wrong one.
(2. what the names say from an output alone: test_output_names_round31.py)
"""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, source_lines
from grading.load_hints import inplace_backward_note
from tests.grading.helpers import code_names, english_in_zh

SDPA = "ScaledDotProductAttention"
HEAD = ("import functools\nimport torch\nfrom torch import nn\n\n\n")
FORWARD = "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _axis(source: str, cls_name: str = SDPA) -> str | None:
    note = source_lines.softmax_axis_note(source, cls_name)
    return None if note is None else note["en"]


# ----------------------------------------------------------------------------- 1. names that reach the code
ALIASED = (HEAD + "class MyAttention(nn.Module):\n" + FORWARD +
           "        w = torch.softmax(q @ k.mT, dim=-2)\n"
           "        return (w @ v, w) if return_weights else w @ v\n\n\n"
           "ScaledDotProductAttention = MyAttention\n")


def test_a_contract_name_that_aliases_a_class_quotes_that_class_with_its_name():
    said = _axis(ALIASED)
    assert said is not None and said.startswith("line 8 (in MyAttention): torch.softmax(q @ k.mT, dim=-2)"), said
    zh = source_lines.softmax_axis_note(ALIASED, SDPA)["zh"]
    assert zh.startswith("第 8 行（在 MyAttention 中）：") and english_in_zh(zh, code_names(ALIASED)) == [], zh


def test_a_contract_name_rebound_to_another_class_quotes_the_class_the_tests_run():
    """Before: the first class's softmax (dim=-2) was quoted, though the tests ran the V2 class bound last."""
    source = (HEAD + "class ScaledDotProductAttention(nn.Module):\n" + FORWARD +
              "        w = torch.softmax(q @ k.mT, dim=-2)\n        return w @ v\n\n\n"
              "class AttentionV2(nn.Module):\n" + FORWARD +
              "        s = torch.einsum('bhqd,bhkd->bhkq', q, k)\n"
              "        w = torch.softmax(s, dim=-1).transpose(-2, -1)\n        return w @ v\n\n\n"
              "ScaledDotProductAttention = AttentionV2\n")
    said = _axis(source)
    assert said is not None and said.startswith(f"line {_line(source, 'dim=-1')} (in AttentionV2): "), said
    assert f"line {_line(source, 'einsum')} (in AttentionV2) computes the scores keys first" in said, said


@pytest.mark.parametrize("rebound", ["ScaledDotProductAttention = torch.compile(ScaledDotProductAttention)",
                                     "if True:\n    ScaledDotProductAttention = Other",
                                     "for ScaledDotProductAttention in [Other]:\n    pass"])
def test_a_contract_name_rebound_to_what_the_source_cannot_read_quotes_no_line(rebound):
    source = (HEAD + "class Other(nn.Module):\n" + FORWARD + "        return torch.softmax(q, dim=-1)\n\n\n"
              "class ScaledDotProductAttention(nn.Module):\n" + FORWARD +
              "        w = torch.softmax(q @ k.mT, dim=-2)\n        return w @ v\n\n\n" + rebound + "\n")
    assert _axis(source) is None


def _mha(init: str, forward: str, between: str = "") -> str:
    """A MultiHeadAttention after a Core(nn.Module) whose forward builds a causal mask, then ``between``."""
    return (HEAD + "class Core(nn.Module):\n    def forward(self, s):\n"
            "        n = s.shape[-1]\n"
            "        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float('-inf'))\n"
            "        return torch.softmax(s, dim=-1)\n\n\n" + between + "\n\n"
            "class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, num_heads, head_dim=None):\n"
            "        super().__init__()\n" + "".join(f"        {x}\n" for x in init.splitlines()) +
            "\n    def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None, "
            "return_weights=False):\n" + "".join(f"        {x}\n" for x in forward.splitlines()))


@pytest.mark.parametrize("init, forward, between", [
    ("self.heads = nn.ModuleList([Attn() for _ in range(num_heads)])", "return self.heads[0](x)", "Attn = Core\n"),
    ("make = Core\nself.core = make()", "return self.core(x)", ""),
    ("self.core = None", "core = Core\nreturn core()(x)", ""),
    ("self.core = functools.partial(Core)", "return self.core()(x)", ""),
    ("self.core = partial(Core)", "return self.core()(x)", "from functools import partial\n"),
    ("self.core = ft.partial(Core)", "return self.core()(x)", "import functools as ft\n"),
    ("self.core = Piece()", "return self.core(x)", "from attention import Core as Piece\n"),
])
def test_a_causal_mask_reached_through_an_alias_partial_or_own_import_is_quoted_in_its_class(init, forward, between):
    """Before: no line (the class was reached through a name the line finder did not follow)."""
    source = _mha(init, forward, between)
    note = source_lines.causal_note(source, "MultiHeadAttention")
    line = _line(source, "torch.triu")
    assert note is not None and note["en"] == f"line {line} (in Core) builds a triangular mask: " \
                                              "torch.triu(torch.ones(n, n, dtype=torch.bool), 1)", (note, source)


def test_a_helper_reached_by_functools_partial_is_searched():
    source = (HEAD + "def attend(q, k, v, scale):\n    w = torch.softmax(q @ k.mT * scale, dim=-2)\n"
              "    return w @ v, w\n\n\n"
              "class ScaledDotProductAttention(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.attend = functools.partial(attend, scale=0.5)\n\n" + FORWARD +
              "        out, w = self.attend(q, k, v)\n        return (out, w) if return_weights else out\n")
    said = _axis(source)
    assert said is not None and said.startswith("line 7 (in attend): torch.softmax(q @ k.mT * scale, dim=-2)"), said


@pytest.mark.parametrize("forward", [
    # a parameter of the helper's name: whatever the caller passes runs, not the file's helper
    "def forward(self, q, k, v, additive_mask=None, *, return_weights=False, normalise=None):\n"
    "        w = normalise(q @ k.mT)\n",
    # a local variable of that name
    "def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"
    "        normalise = self.normaliser\n        w = normalise(q @ k.mT)\n",
    # a local variable bound twice: which one runs is not written down
    "def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"
    "        normalise = normalise_v2\n        if self.old:\n            normalise = self.normaliser\n"
    "        w = normalise(q @ k.mT)\n",
])
def test_a_name_that_shadows_a_helper_is_not_followed(forward):
    source = (HEAD + "def normalise(s):\n    return torch.softmax(s, dim=-2)\n\n\n"
              "class ScaledDotProductAttention(nn.Module):\n    " + forward +
              "        return (w @ v, w) if return_weights else w @ v\n")
    assert [owner for owner, _ in source_lines.family(source, SDPA)] == [SDPA]
    assert _axis(source) is None


@pytest.mark.parametrize("rebinding", ["try:\n    import fast_norm\nexcept ImportError:\n    normalise = None\n",
                                       "def setup():\n    global normalise\n    normalise = None\n"])
def test_a_helper_the_module_may_rebind_is_not_followed(rebinding):
    source = (HEAD + "def normalise(s):\n    return torch.softmax(s, dim=-2)\n\n\n" + rebinding + "\n\n"
              "class ScaledDotProductAttention(nn.Module):\n" + FORWARD +
              "        w = normalise(q @ k.mT)\n        return (w @ v, w) if return_weights else w @ v\n")
    assert _axis(source) is None


def test_a_base_class_is_the_one_bound_where_the_class_statement_runs():
    """Two classes named Base: the subclass derives from the one defined above it, whatever comes after."""
    base = "class Base(nn.Module):\n    def normalise(self, s):\n        return torch.softmax(s, dim={})\n\n\n"
    source = (HEAD + base.format(-2) + "class ScaledDotProductAttention(Base):\n" + FORWARD +
              "        w = self.normalise(q @ k.mT)\n        return (w @ v, w) if return_weights else w @ v\n\n\n"
              + base.format(0))
    said = _axis(source)
    assert said is not None and said.startswith("line 8 (in Base): torch.softmax(s, dim=-2)"), said


def test_the_in_place_lines_of_an_aliased_class_are_found():
    """load_hints' own user of the family: the in-place change is in the class the alias holds."""
    source = (HEAD + "class MyAttention(nn.Module):\n" + FORWARD + "        s = q @ k.mT\n"
              "        w = torch.softmax(s, dim=-1)\n        w *= 2\n        return w @ v\n\n\n"
              "ScaledDotProductAttention = MyAttention\n")
    note = inplace_backward_note(source, SDPA, "one of the variables needed for gradient computation has been "
                                               "modified by an inplace operation")
    assert note is not None and "line 10 (w, in MyAttention)" in note["en"], note


# ----------------------------------------------------------------------------- 3. only the base members that run
BASE_WITH_HELPER = ("class AttentionBase(nn.Module):\n    def causal_mask(self, n):\n"
                    "        return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)\n\n"
                    "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"
                    "        return torch.softmax(q @ k.mT, dim=-2) @ v\n\n\n")


def _subclass(body: str) -> str:
    return (HEAD + BASE_WITH_HELPER + "class ScaledDotProductAttention(AttentionBase):\n" + FORWARD +
            "".join(f"        {line}\n" for line in body.splitlines()) +
            "        w = torch.softmax(s, dim=-1)\n        return (w @ v, w) if return_weights else w @ v\n")


def test_a_base_helper_nothing_calls_and_an_overridden_forward_are_not_quoted():
    """Before: the base's uncalled causal_mask was quoted as the line that builds the causal mask (a kernel that
    built its own by comparing positions, tests/fixtures/.../r31_causal_base_helper_unused.py)."""
    source = _subclass("n = q.shape[-2]\ns = (q @ k.mT).masked_fill(torch.arange(n)[None] > torch.arange(n)[:, None], "
                       "float('-inf'))")
    assert source_lines.causal_note(source, SDPA) is None
    # (since round 33 a class is read member by member: the class's own forward alone)
    assert [(o, getattr(n, "name", None)) for o, n in source_lines.family(source, SDPA)] == [(SDPA, "forward")]


@pytest.mark.parametrize("call", ["self.causal_mask(q.shape[-2])", "getattr(self, 'causal_mask')(q.shape[-2])",
                                  "AttentionBase.causal_mask(self, q.shape[-2])"])
def test_a_base_helper_the_class_calls_is_quoted(call):
    source = _subclass(f"s = (q @ k.mT).masked_fill({call}, float('-inf'))")
    note = source_lines.causal_note(source, SDPA)
    assert note is not None and note["en"].startswith("line 8 (in AttentionBase) builds a triangular mask"), note


def test_an_overridden_base_method_runs_when_called_through_super():
    source = (HEAD + BASE_WITH_HELPER + "class ScaledDotProductAttention(AttentionBase):\n" + FORWARD +
              "        return super().forward(q, k, v)\n")
    note = source_lines.softmax_axis_note(source, SDPA)
    assert note is not None and note["en"].startswith("line 11 (in AttentionBase): torch.softmax(q @ k.mT, dim=-2)")


# ----------------------------------------------------------------------------- 4. the module's own softmax attribute
def test_an_nn_softmax_kept_as_an_attribute_is_quoted_where_it_is_built():
    """Before: self.softmax(scores) was read as a tensor's softmax with a dim that cannot be read: two softmax calls,
    no line (tests/fixtures/.../r31_softmax_module_attr_dim_minus2.py)."""
    source = (HEAD + "class ScaledDotProductAttention(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.softmax = nn.Softmax(dim=-2)\n\n" + FORWARD +
              "        w = self.softmax(q @ k.mT)\n        return (w @ v, w) if return_weights else w @ v\n")
    assert _axis(source) == "line 9: nn.Softmax(dim=-2) normalises over dim=-2, the queries of [B, H, Nq, Nk]"


def test_a_long_method_chain_is_shortened_to_its_method():
    """Before: ``torch.ones(n, m, dtype=torch.bool, device=q.device).triu()`` was quoted as "torch.ones(...)"."""
    source = (HEAD + "class ScaledDotProductAttention(nn.Module):\n" + FORWARD +
              "        blocked = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).triu()\n"
              "        w = torch.softmax((q @ k.mT).masked_fill(blocked, float('-inf')), dim=-1)\n"
              "        return (w @ v, w) if return_weights else w @ v\n")
    note = source_lines.causal_note(source, SDPA)
    assert note is not None and note["en"] == "line 8 builds a triangular mask: torch.ones(...).triu()", note


# ----------------------------------------------------------------------------- 5. a wrapper's causal mask off by one
@pytest.mark.parametrize("fault", ["mha_causal_diagonal", "mha_causal_ahead"])
def test_a_wrappers_causal_mask_off_by_one_is_named(fault):
    """Before: only the non-finite count (triu(0): query 0 reads nothing) or the distance was said
    (tests/fixtures/.../r31_mha_causal_diagonal_in_wrapper.py, r31_mha_causal_ahead_in_wrapper.py)."""
    params, x = C.mha_params(30, 16, 4, 4), C.tokens(42, 2, 5, 16)
    out, w = C.mha_variant(params, 4, 4, x, fault=fault)
    assert diagnose.mha(out.float(), w.float(), params, 4, 4, x) == diagnose.FAULTS[fault]
    assert diagnose.SOURCE_NOTES[fault] is source_lines.causal_note
    assert C.mha_variant(params, 4, 4, x, C.tokens(43, 2, 7, 16), fault=fault) is None     # cross-attention


@pytest.mark.parametrize("imports, bound", [("import functools\n", "functools.partial(F.softmax, dim=-2)"),
                                            ("from functools import partial\n", "partial(torch.softmax, dim=-2)")])
def test_a_softmax_bound_with_functools_partial_is_quoted_with_its_dim(imports, bound):
    """Before: no line (the partial was no softmax, self.normalise(s) one of unreadable dim;
    tests/fixtures/.../r31_softmax_partial_dim_minus2.py)."""
    source = ("import torch\nimport torch.nn.functional as F\n" + imports + "\n\n"
              "class ScaledDotProductAttention(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              f"        self.normalise = {bound}\n\n" + FORWARD +
              "        w = self.normalise(q @ k.mT)\n        return (w @ v, w) if return_weights else w @ v\n")
    assert _axis(source) == f"line 9: {bound} normalises over dim=-2, the queries of [B, H, Nq, Nk]"


def test_a_partial_of_something_else_is_no_softmax():
    source = ("import functools\nimport torch\n\n\ndef softmax(x, dim):\n    return x\n\n\n"
              "class ScaledDotProductAttention(torch.nn.Module):\n" + FORWARD +
              "        w = functools.partial(softmax, dim=-2)(q @ k.mT)\n        return w @ v\n")
    assert source_lines.softmax_calls(source, SDPA) == []
