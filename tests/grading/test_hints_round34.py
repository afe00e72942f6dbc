"""Round 34: multi-head hints that match the code (the round's corpus files, r34_*.py in
tests/fixtures/submissions/faulty/, carry their `# diagnosis:` headers, which test_fair_corpus.py checks; the lines
they quote are checked by test_quoted_lines_round31.py, the whole round by test_hints_round34_corpus.py, slow).

1. A projection in another role quoted a guessed snippet: "V projected with k_proj (v = self.k_proj(...))" for
   code that projected every role right and called ``self.attention(q, k, k, mask)``. The line is now read from
   the source (``source_lines.projection_role_note``): the assignment that uses the other projection, or the call
   that passes a tensor in another role's place, or nothing.
2. Three multi-head mistakes no model named, each now a fault model checked on the numbers (``cases.mha_variant``):
   heads split as view(B, N, H, head_dim) (or unflatten, reshape) and given to the kernel without transpose
   (``heads_as_sequence``), split and merged with view(B, N, head_dim, H) (``split_merge_dim_first``), and the
   projections never split into heads (``heads_not_split``).
3. A dropout module built and called in one expression (``nn.Dropout(0.1)(weights)``) is in training mode in
   eval(): the determinism hint now quotes it, where it said only "e.g. F.dropout ...; use nn.Dropout".
"""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, source_lines
from grading.i18n import is_msg
from tests.grading.helpers import (
    SUBMISSIONS,
    code_names,
    english_in_zh,
    grade_stored,
    graded_corpus_file,
    named_faults,
)

FAULTY = SUBMISSIONS / "faulty"

HEAD = "import torch\nfrom torch import nn\n\n\n"
MHA = ("class MultiHeadAttention(nn.Module):\n"
       "    def __init__(self, d_model, num_heads, head_dim=None):\n        super().__init__()\n"
       "        self.q_proj = nn.Linear(d_model, d_model)\n        self.k_proj = nn.Linear(d_model, d_model)\n"
       "        self.v_proj = nn.Linear(d_model, d_model)\n        self.attention = None\n\n"
       "    def forward(self, x, context=None):\n        kv = x if context is None else context\n")


def _mha(body: str) -> str:
    return HEAD + MHA + "".join(f"        {line}\n" for line in body.splitlines())


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


# ----------------------------------------------------------------------------- 1. the projection's own line
def test_no_projection_hint_writes_code_of_its_own():
    """Before: every roles_* text held "(v = self.k_proj(...))", a line the student's code may not have."""
    for fault in (*C.PROJECTION_ROLE_FAULTS, "kv_swapped", "shared_q"):
        for text in (diagnose.FAULTS[fault]["en"], diagnose.FAULTS[fault]["zh"]):
            assert "= self." not in text, (fault, text)


def test_the_assignment_that_uses_another_projection_is_quoted():
    source = _mha("q = self.q_proj(x)\nk = self.k_proj(kv)\nv = self.k_proj(kv)\nreturn self.attention(q, k, v)")
    note = source_lines.projection_role_note(source, "MultiHeadAttention", "qkk")
    line = _line(source, "v = self.k_proj(kv)")
    assert note["en"] == f"line {line} computes V with k_proj: v = self.k_proj(kv)", note
    assert note["zh"] == f"第 {line} 行用 k_proj 计算了 V：v = self.k_proj(kv)", note
    assert english_in_zh(note["zh"], code_names(source)) == [], note


def test_the_call_that_passes_a_tensor_in_another_roles_place_is_quoted():
    """r34_proj_k_used_as_value_in_call.py: every projection right, the keys passed as the values. Before: "(v =
    self.k_proj(...))"."""
    source = _mha("q = self.q_proj(x)\nk = self.k_proj(kv)\nv = self.v_proj(kv)\nreturn self.attention(q, k, k)")
    note = source_lines.projection_role_note(source, "MultiHeadAttention", "qkk")
    line = _line(source, "self.attention(q, k, k)")
    assert note["en"] == f"line {line} passes k as the values: self.attention(q, k, k)", note
    assert note["zh"] == f"第 {line} 行把 k 作为 value 传入：self.attention(q, k, k)", note
    swapped = source.replace("(q, k, k)", "(q, v, k)")
    assert source_lines.projection_role_note(swapped, "MultiHeadAttention", "qvk")["en"] == \
        f"line {line} passes v as the keys, k as the values: self.attention(q, v, k)"


@pytest.mark.parametrize("body", [
    # a tuple unpacked in another order: no single assignment shows it
    "q, v, k = [p(t) for p, t in zip((self.q_proj, self.k_proj, self.v_proj), (x, kv, kv))]\n"
    "return self.attention(q, k, v)",
    # two assignments of v from k_proj: which one ran is not read from the source
    "q = self.q_proj(x)\nk = self.k_proj(kv)\nif context is None:\n    v = self.k_proj(kv)\nelse:\n"
    "    v = self.k_proj(context)\nreturn self.attention(q, k, v)",
    # names that say no role ("kv" is neither k nor v)
    "a = self.q_proj(x)\nkv = self.k_proj(kv)\nreturn self.attention(a, kv, kv)",
])
def test_no_line_is_quoted_when_the_source_does_not_show_one(body):
    assert source_lines.projection_role_note(_mha(body), "MultiHeadAttention", "qkk") is None


def test_the_graded_role_hint_quotes_the_files_own_call(executor):
    """The other role files (an unpacked tuple: no line) are graded in test_hints_round34_corpus.py (slow)."""
    path = FAULTY / "r34_proj_k_used_as_value_in_call.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "self.attention(q, k, k" in text and not text.startswith("#"))
    said = [t["feedback"] for t in graded_corpus_file(executor, path)["tests"]
            if t["outcome"] != "passed" and is_msg(t["feedback"]) and named_faults(t["feedback"])]
    assert len(said) >= 5, said
    for fb in said:
        assert "v = self.k_proj" not in fb["en"], fb
        assert f"line {line} passes k as the values: self.attention(q, k, k, mask, return_weights=True)" in fb["en"]
        assert f"第 {line} 行把 k 作为 value 传入：" in fb["zh"], fb


# ----------------------------------------------------------------------------- 2. three new fault models
NEW_MODELS = ("heads_as_sequence", "split_merge_dim_first", "heads_not_split")
SETUP = dict(params=C.mha_params(30, 16, 2, 8), num_heads=2, head_dim=8)


@pytest.mark.parametrize("fault", NEW_MODELS)
def test_each_new_model_is_named_as_itself_and_said_in_both_languages(fault):
    x = C.tokens(42, 2, 5, 16)
    out, w = C.mha_variant(fault=fault, x=x, **SETUP)
    assert diagnose.mha(out.float(), w.float(), x=x, **SETUP) == diagnose.FAULTS[fault]
    assert fault in C.MHA_FAULTS
    zh = diagnose.FAULTS[fault]["zh"]
    assert english_in_zh(zh, frozenset({"num_heads", "head_dim"})) == [], zh


@pytest.mark.parametrize("fault", NEW_MODELS)
def test_a_new_model_cannot_happen_with_one_head(fault):
    """With one head each of them splits and merges as a correct module does (or, heads_as_sequence, gives
    weights of another shape, which drivers.validate says): no model, so nothing named."""
    assert C.mha_variant(C.mha_params(30, 16, 1, 16), 1, 16, C.tokens(42, 2, 5, 16), fault=fault) is None


def test_heads_as_sequence_is_no_model_where_the_code_raises():
    x, ctx = C.tokens(43, 2, 3, 16), C.tokens(44, 2, 7, 16)
    assert C.mha_variant(fault="heads_as_sequence", x=x, context=ctx, **SETUP) is None       # Nk != Nq
    kpm = torch.zeros(2, 3, dtype=torch.bool)
    assert C.mha_variant(fault="heads_as_sequence", x=x, key_padding_mask=kpm, **SETUP) is None
    same = C.tokens(45, 2, 3, 16)                                                              # Nk == Nq
    assert C.mha_variant(fault="heads_as_sequence", x=x, context=same, **SETUP) is not None


def test_the_models_differ_from_the_mistakes_they_resemble():
    x = C.tokens(42, 2, 5, 16)
    outs = {f: C.mha_variant(fault=f, x=x, **SETUP)[0] for f in (*NEW_MODELS, "split_no_transpose",
                                                                  "split_dim_first", "merge_dim_first", None)}
    for a in outs:
        for b in outs:
            if a != b:
                assert (outs[a] - outs[b]).abs().max() > 1e-3, (a, b)


def test_a_graded_file_of_a_new_model_is_named_in_both_languages(executor):
    """Before: only "output: up to 2.52 away from the reference" (r33_mha_split_unflatten_no_transpose.py and
    faulty/described/split_stack_heads_dim2.py, declared `none` before, now declare the model too; the other
    files of the new models are graded in the slow lane)."""
    result = graded_corpus_file(executor, FAULTY / "r34_split_unflatten_no_transpose_merge_flatten.py")
    named = [t["id"] for t in result["tests"] if t["outcome"] != "passed" and is_msg(t["feedback"])
             and named_faults(t["feedback"]) == {"heads_as_sequence"}]
    assert {"test_mha_self_attention_parity", "test_mha_custom_head_dim"} <= set(named), named


# ----------------------------------------------------------------------------- 3. a dropout built per call
@pytest.mark.parametrize("code, found", [
    ("w = nn.Dropout(0.1)(w)", True), ("w = torch.nn.Dropout(p=0.2)(w)", True), ("w = nn.Dropout()(w)", True),
    ("w = nn.Dropout(0.0)(w)", False), ("w = nn.Dropout(p=0)(w)", False), ("w = self.dropout(w)", False),
])
def test_a_dropout_module_built_and_called_in_one_expression_is_found(code, found):
    source = HEAD + f"def f(w):\n    {code}\n    return w\n"
    assert diagnose.dropout_built_per_call(source) == ([(6, code.removeprefix("w = "))] if found else [])


def test_the_determinism_hint_quotes_the_dropout_built_in_forward(executor):
    """Before: only "e.g. F.dropout without training=self.training; use nn.Dropout", to code that used nn.Dropout."""
    path = FAULTY / "r34_dropout_module_built_in_forward.py"
    line = _line(path.read_text(encoding="utf-8"), "nn.Dropout(0.1)(weights)")
    det = next(t["feedback"] for t in graded_corpus_file(executor, path)["tests"] if t["id"] == "test_deterministic")
    assert f"line {line} builds and calls nn.Dropout(0.1)(weights) in one go" in det["en"], det
    assert f"第 {line} 行在同一处构建并调用了 nn.Dropout(0.1)(weights)" in det["zh"], det


# ----------------------------------------------------------------------------- correct, however odd it looks
BASE = FAULTY / "r34_merge_cat_unbind_seq.py"     # the round's template; its merge is the one mistake
ODD = {
    # heads split with chunk + stack and merged with cat(unbind(1), dim=-1): the contract's layout
    "chunk_stack_cat_unbind": [
        ("        return t.view(B, N, self.num_heads, self.head_dim).transpose(1, 2)\n",
         "        return torch.stack(t.chunk(self.num_heads, dim=-1), dim=1)\n"),
        ("        return t.transpose(1, 2).reshape(B, N, H * D)\n", "        return torch.cat(t.unbind(1), dim=-1)\n")],
    # the additive mask read back as a bool (-inf -> True) and filled, the padding mask as keys to keep
    "masked_fill_from_bool_masks": [
        ("            scores = scores + additive_mask\n",
         '            scores = scores.masked_fill(additive_mask.bool(), float("-inf"))\n'),
        ('            pad = pad.masked_fill(key_padding_mask, float("-inf"))[:, None, None, :]\n',
         '            pad = torch.where(~key_padding_mask, pad, pad - float("inf"))[:, None, None, :]\n')],
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_correct_code_that_looks_like_a_round_34_mistake_gets_full_marks_and_no_name(executor, name):
    source = BASE.read_text(encoding="utf-8").split("\n", 3)[3]        # the header lines dropped
    source = source.replace("        return torch.cat(t.unbind(1), dim=1).reshape(B, N, H * D)\n",
                            "        return t.transpose(1, 2).reshape(B, N, H * D)\n")   # the template's own merge
    for old, new in ODD[name]:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    result = grade_stored(executor, source)
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    assert failed == {}, failed
