"""Red-team round 21 on hints for faulty code: a cause is named only when the grader has checked it.

1. Numbers from one random draw (dropout on the scores, active in eval) read as a finding: a scale
   "of about 0.3665" fitted to them, "each query must be computed independently". The formula tests
   now call the student twice before reading anything into the weights, and a fitted scale is stated
   only when softmax(c * QK^T) gives the weights back.
"""

from __future__ import annotations

import inspect
import math
import re

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, drivers
from grader_tests.attention import test_formula_shape as formula
from grading.load_hints import load_hint, name_note
from grading.proxy import Feedback
from tests.grading.helpers import SUBMISSIONS, english_in_zh, graded_corpus_file, syntax_error_of

FAULTY = SUBMISSIONS / "faulty"


class Student:
    """A stand-in for the student's code: ``sdpa`` computes ``weights(q, k, call_number)``."""

    source = None

    def __init__(self, weights):
        self.weights, self.calls = weights, 0

    def sdpa(self, q, k, v, mask=None, *, return_weights=False, **_):
        self.calls += 1
        w = self.weights(q.double(), k.double(), self.calls).to(q.dtype)
        out = (w.double() @ v.double()).to(q.dtype)
        return (out, w) if return_weights else out


def _dropout_on_scores(q, k, call):
    """F.dropout(scores, 0.1) before the softmax: a new draw at every call."""
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    keep = torch.rand(s.shape, generator=torch.Generator().manual_seed(call)) > 0.1
    return torch.softmax(s * keep / 0.9, -1)


def _by_query_count(q, k, call):
    """Scores divided by sqrt(Nq): a real, stable scale of another size."""
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-2]), -1)


def _said(test, student) -> dict:
    """The feedback ``test`` raises for ``student`` (recorders that record nothing for its other fixtures)."""
    recorders = [lambda *a: None] * (len(inspect.signature(test).parameters) - 1)
    with pytest.raises(Feedback) as exc:
        test(student, *recorders)
    return exc.value.message


@pytest.mark.parametrize("test", [formula.test_scale_experiment_a, formula.test_weights_are_probabilities,
                                  formula.test_query_count_experiment_c, formula.test_hand_example],
                         ids=lambda t: t.__name__)
def test_weights_that_change_between_calls_are_told_as_randomness_and_nothing_is_read_into_them(test):
    said = _said(test, Student(_dropout_on_scores))
    assert diagnose.FAULTS["dropout"]["en"] in said["en"] and diagnose.FAULTS["dropout"]["zh"] in said["zh"], said
    assert "scaled by about" not in said["en"] and "大约被乘以" not in said["zh"], said
    assert "independently" not in said["en"] and "无关" not in said["zh"], said


def test_randomness_is_seen_even_when_a_small_case_draws_the_same_dropout_mask_twice():
    """The hand example has 6 weights: F.dropout(p=0.1) keeps all of them about one time in two, twice in a
    row one time in four; the check calls the student again on a case of 504 weights too."""
    def same_draw_when_small(q, k, call):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        seed = call if s.numel() > 50 else 0
        keep = torch.rand(s.shape, generator=torch.Generator().manual_seed(seed)) > 0.1
        return torch.softmax(s * keep / 0.9, -1)

    said = _said(formula.test_hand_example, Student(same_draw_when_small))
    assert diagnose.FAULTS["dropout"]["en"] in said["en"] and diagnose.FAULTS["dropout"]["zh"] in said["zh"], said


def test_a_fitted_scale_is_stated_only_when_it_gives_the_weights_back():
    said = _said(formula.test_scale_experiment_a, Student(_by_query_count))       # Nq = 6 there
    assert f"the scores are scaled by about {1 / math.sqrt(6):.4g} instead of 1/sqrt(dk)" in said["en"], said
    assert f"score 大约被乘以 {1 / math.sqrt(6):.4g}" in said["zh"], said

    def per_row(q, k, call):      # every query row its own scale: no single c fits
        s = q @ k.transpose(-2, -1)
        rows = torch.linspace(0.2, 0.6, s.shape[-2], dtype=s.dtype)[:, None]
        return torch.softmax(s * rows, -1)

    said = _said(formula.test_scale_experiment_a, Student(per_row))
    assert "scaled by about" not in said["en"] and "大约被乘以" not in said["zh"], said
    assert diagnose.FAULTS["dropout"]["en"] not in said["en"]


def test_a_stable_result_that_depends_on_the_query_count_is_still_told_so():
    said = _said(formula.test_query_count_experiment_c, Student(_by_query_count))
    assert said["en"].endswith(": each query must be computed independently of the others"), said
    assert said["zh"].endswith("：每个 query 的计算应与其他 query 无关"), said


def test_the_stand_in_weights_are_what_they_claim():
    q, k, _ = C.qkv(1, 1, 2, 6, 10, 8, 4)
    assert not torch.equal(_dropout_on_scores(q.double(), k.double(), 1), _dropout_on_scores(q.double(), k.double(), 2))
    assert torch.allclose(_by_query_count(q.double(), k.double(), 1), C.ref_weights(q, k, scale=6 ** -0.5))


# ----------------------------------------------------------------------------- 2. a block with no code
# "expected an indented block" at a line that starts the next definition or clause: the block above is
# empty (a method left as a TODO comment). The hint said that line "should" be in the block and to indent
# it, which would nest the next method inside the empty one.
EMPTY_BLOCKS = [   # (source, the opener's line, the line Python stops at, the word it starts with, comment lines)
    ("class M:\n    def split(self, t):\n        # TODO: split the heads\n\n    def merge(self, t):\n"
     "        return t\n", 2, 5, "def", "line 3 holds only a comment"),
    ("class M:\n    def split(self, t):\n        # TODO\n        # later\n    @property\n    def h(self):\n"
     "        return 1\n", 2, 5, "@", "lines 3, 4 hold only comments"),
    ("if True:\n    # nothing yet\nelse:\n    x = 1\n", 1, 3, "else", "line 2 holds only a comment"),
    ("try:\nexcept ImportError:\n    pass\n", 1, 2, "except", None),
    ("def forward(x):\nclass Model:\n    pass\n", 1, 2, "class", None),
]


@pytest.mark.parametrize("source, opener, line, word, comments", EMPTY_BLOCKS,
                         ids=[f"{w}-{i}" for i, (_, _, _, w, _) in enumerate(EMPTY_BLOCKS)])
def test_a_block_left_without_code_is_told_so_and_the_next_definition_is_not_moved_into_it(
        source, opener, line, word, comments):
    kind, lineno, message = syntax_error_of(source)
    assert (kind, lineno) == ("IndentationError", line)
    hint = load_hint(source, kind, lineno, message)
    assert hint is not None and hint["en"] and hint["zh"]
    assert f"line {opener} ends with ':' and opens a block, but no code follows it" in hint["en"], hint
    assert f"line {line}, the next line of code, starts with `{word}`" in hint["en"], hint
    assert "whose block it should hold" not in hint["en"] and "应属于" not in hint["zh"], hint
    assert f"第 {opener} 行以“:”结尾" in hint["zh"] and f"第 {line} 行以 `{word}` 开始" in hint["zh"], hint
    assert "`pass`" in hint["en"] and "`pass`" in hint["zh"]
    assert (comments in hint["en"]) if comments else "comment" not in hint["en"], hint
    assert english_in_zh(hint["zh"]) == [], hint["zh"]


def test_a_body_line_that_lost_its_indentation_keeps_the_indent_hint():
    source = "class M:\n    def f(self):\n    return 1\n"
    hint = load_hint(source, *syntax_error_of(source))
    assert "line 3 is indented by 4 spaces, no more than line 2 (4 spaces), whose block it should hold" in hint["en"]


# ----------------------------------------------------------------------------- 3. a name never imported
# `nn.Module` with only `import torch`, `F.softmax` without `import torch.nn.functional as F`: Python's
# English "name 'nn' is not defined" alone, at import or in every test. Said only when nothing in the file
# binds the name anywhere; a name bound somewhere (a scope or order mistake) or without a usual import gets nothing.
NEVER_BOUND = [
    ("import torch\n\n\nclass M(nn.Module):\n    pass\n", 4, "nn", "from torch import nn"),
    ("import torch\n\n\ndef f(s):\n    return F.softmax(s, dim=-1)\n", 5, "F", "import torch.nn.functional as F"),
    ("import torch\n\n\ndef f(s):\n    return s / math.sqrt(s.shape[-1])\n", 5, "math", "import math"),
    ("import torch\n\n\ndef f(x: Optional[int] = None):\n    pass\n", 4, "Optional", "from typing import Optional"),
]
BOUND_SOMEWHERE = [   # or a name with no usual import (round 18: a constant of the student's own, `H`)
    ("import torch\n\n\ndef f(s):\n    return s * scale\n", 5),
    ("import torch\n\n\ndef f(s):\n    return s * scale\n\n\ndef g():\n    scale = 2\n", 5),      # another scope
    ("import torch\nprint(nn)\nfrom torch import nn\n", 2),                                     # bound later
    ("import torch\n\n\ndef f(s, F=None):\n    return s\n\n\ndef g(s):\n    return F.relu(s)\n", 9),
    ("import torch\nfrom torch.nn import *\n\n\ndef f(s):\n    return functional.relu(s)\n", 6),  # star import
    ("import torch\nglobals()['nn'] = torch.nn\nclass M(nn.Module):\n    pass\n", 3),              # made at run time
]


@pytest.mark.parametrize("source, line, name, usual", NEVER_BOUND, ids=[n for _, _, n, _ in NEVER_BOUND])
def test_a_name_nothing_imports_or_defines_is_told_with_its_usual_import(source, line, name, usual):
    message = f"name '{name}' is not defined"
    for note in (name_note(source, line, message), load_hint(source, "NameError", line, message)):
        assert note is not None and english_in_zh(note["zh"], frozenset({name})) == [], note
        assert f"line {line} uses `{name}`, which nothing in attention.py imports, assigns or defines" in note["en"]
        assert f"第 {line} 行用到了 `{name}`，而 attention.py 中没有任何地方导入、赋值或定义它" in note["zh"]
        assert f"add `{usual}` at the top of the file" in note["en"] and f"加上 `{usual}`" in note["zh"], note


@pytest.mark.parametrize("source, line", BOUND_SOMEWHERE, ids=range(len(BOUND_SOMEWHERE)))
def test_a_name_the_file_binds_somewhere_gets_no_never_defined_note(source, line):
    name = re.search(r"(scale|nn|F|functional)\b", source.splitlines()[line - 1]).group(1)
    note = name_note(source, line, f"name '{name}' is not defined")
    # round 38: a name only another function binds is told where (tests/grading/test_feedback_round38.py)
    assert note is None or "which the file gives a value only inside" in note["en"] and "nothing" not in note["en"]
    assert name_note(NEVER_BOUND[0][0], 4, "'NoneType' object is not callable") is None   # another error


def test_a_runtime_name_error_in_forward_gets_the_note_after_pythons_words():
    from grading.proxy import student_error_text
    from grading.sandbox import StudentError

    source = NEVER_BOUND[1][0]
    text = student_error_text("ScaledDotProductAttention.forward", StudentError("NameError", "name 'F' is not defined", 5),
                              source=source)
    assert text["en"] == ("ScaledDotProductAttention.forward raised NameError at attention.py line 5: name 'F' is not "
                          "defined; line 5 uses `F`, which nothing in attention.py imports, assigns or defines: add "
                          "`import torch.nn.functional as F` at the top of the file"), text
    assert "第 5 行用到了 `F`" in text["zh"] and "`import torch.nn.functional as F`" in text["zh"], text


# ----------------------------------------------------------------------------- 4. no gradient: which input, and what cuts it
# "no gradient reached input 0" numbered the arguments; the inputs have names (q, k, v), and the weights
# detached for a heatmap leave v's gradient intact: every input without one is named, and the class's
# calls that autograd does not follow are quoted as what its code shows.
def test_the_inputs_without_a_gradient_are_named_with_the_calls_autograd_does_not_follow():
    source = ("import torch\n\n\nclass ScaledDotProductAttention(torch.nn.Module):\n    def forward(self, q, k, v):\n"
              "        w = torch.softmax(q @ k.mT, -1).detach()\n        self.seen = w.detach().numpy()\n"
              "        return w @ v\n\n\nclass Other:\n    def f(self, x):\n        return x.item()\n")
    assert diagnose.graph_cuts(source) == [(6, "torch.softmax(q @ k.mT, -1).detach()", "ScaledDotProductAttention"),
                                           (7, "w.detach().numpy()", "ScaledDotProductAttention")]
    said = diagnose.no_gradient(["q", "k"], source)
    assert said["en"].startswith("no gradient reached q and k: the output does not depend on them differentiably; ")
    assert "(line 6: torch.softmax(q @ k.mT, -1).detach(), line 7: w.detach().numpy())" in said["en"], said
    assert said["zh"].startswith("梯度没有传到 q、k：") and "第 6 行：" in said["zh"], said
    assert english_in_zh(said["zh"], frozenset({"mT", "seen"})) == [], said["zh"]
    # nothing of the kind in the class: only what was seen
    assert diagnose.no_gradient(["q", "k", "v"], "import torch\n") == {
        "en": "no gradient reached q, k and v: the output does not depend on them differentiably",
        "zh": "梯度没有传到 q、k、v：输出对它们不可微（与之断开了）"}


# ----------------------------------------------------------------------------- 5. the round's faulty files, graded
GRADIENT_FILES = {   # file -> the inputs named, the line of the call quoted
    "weights_detached": ("no gradient reached q and k:", "line 21: weights.detach()"),
    "numpy_softmax_roundtrip": ("no gradient reached q and k:", "line 21: scores.detach().numpy()"),
    "forward_under_no_grad": ("no gradient reached q, k and v:", "line 16: torch.no_grad()"),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_FILES))
def test_a_round21_file_that_cuts_the_gradient_is_told_which_inputs_and_which_line(executor, name):
    failed = {t["id"]: t["feedback"] for t in graded_corpus_file(executor, FAULTY / f"{name}.py")["tests"]
              if t["outcome"] != "passed"}
    assert set(failed) == {"test_gradients_match_reference"}, failed
    fb = failed["test_gradients_match_reference"]
    inputs, line = GRADIENT_FILES[name]
    assert fb["en"].startswith(inputs) and line in fb["en"] and "input 0" not in fb["en"], fb


def test_dropout_on_the_scores_is_told_as_randomness_and_no_scale_is_read_into_it(executor):
    result = graded_corpus_file(executor, FAULTY / "dropout_on_scores.py")
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    for tid in ("test_scale_experiment_a", "test_query_count_experiment_c", "test_hand_example"):
        assert diagnose.FAULTS["dropout"]["en"] in failed[tid]["en"], (tid, failed[tid])
        assert "line 21 calls F.dropout(scores, p=0.1)" in failed[tid]["en"], (tid, failed[tid])
    assert not [tid for tid, fb in failed.items() if "scaled by about" in fb["en"] or "independently" in fb["en"]]


# ----------------------------------------------------------------------------- 6. a shape with its size-1 axes dropped
SQUEEZED = [([2, 3], [1, 1, 2, 3], "0, 1"), ([2, 2, 5], [2, 2, 1, 5], "2"), ([2, 6, 10], [1, 2, 6, 10], "0")]


@pytest.mark.parametrize("got, want, axes", SQUEEZED, ids=[str(w) for _, w, _ in SQUEEZED])
def test_weights_returned_without_their_size_one_axes_are_told_so(got, want, axes):
    with pytest.raises(Feedback) as exc:
        drivers.validate(torch.zeros(got), want, "ScaledDotProductAttention", "weights")
    said = exc.value.message
    assert f"that is the expected shape with its axes of size 1 (dim {axes}) removed, as .squeeze() does" in said["en"]
    assert f"这是去掉大小为 1 的轴（dim {axes}）后的 shape" in said["zh"], said
    assert english_in_zh(said["zh"]) == [], said["zh"]


def test_a_shape_that_is_not_the_expected_one_squeezed_gets_no_squeeze_note():
    for got, want in (([2, 3], [1, 2, 2, 3]), ([3, 2], [1, 1, 2, 3]), ([2, 2, 3, 5], [2, 2, 1, 5])):
        with pytest.raises(Feedback) as exc:
            drivers.validate(torch.zeros(got), want, "ScaledDotProductAttention", "weights")
        assert "squeeze" not in exc.value.message["en"], exc.value.message


def test_the_squeezed_weights_file_is_told_so_in_every_shape_test(executor):
    failed = {t["id"]: t["feedback"] for t in graded_corpus_file(executor, FAULTY / "weights_squeezed.py")["tests"]
              if t["outcome"] != "passed"}
    sdpa = {tid: fb for tid, fb in failed.items() if "of ScaledDotProductAttention" in fb["en"]}
    assert len(sdpa) == 4 and all("as .squeeze() does" in fb["en"] for fb in sdpa.values()), failed


# ----------------------------------------------------------------------------- 7. a causal mask always applied
# A decoder's habit (the course text names the causal mask): `scores.masked_fill(triu(ones(Nq, Nk), 1), -inf)` in
# ScaledDotProductAttention whatever it is given. Described only ("off by up to 0.599") before; now a fault
# model, confirmed on the probe case like the others.
def test_a_causal_mask_applied_on_top_of_the_given_one_is_named_and_only_on_its_own_numbers():
    q, k, v = C.qkv(11, 2, 4, 7, 9, 16, 12)
    mask = C.random_block_mask(5, (2, 4, 7, 9))
    for m in (None, mask):
        w = C.sdpa_fault_weights("causal", q, k, v, m)
        assert bool(torch.isfinite(w).all())
        assert diagnose.sdpa_weights(w.float(), q, k, v, m) == diagnose.FAULTS["causal"]
        assert diagnose.sdpa_weights(C.ref_weights(q, k, m).float(), q, k, v, m) is None
    zh = diagnose.FAULTS["causal"]["zh"]
    assert english_in_zh(zh, frozenset({"additive_mask"})) == [], zh
    assert C.sdpa_fault_weights("causal", *C.qkv(1, 1, 1, 3, 1, 4, 4)) is None    # one key: nothing to tell


def test_the_causal_mask_file_is_named_in_its_weight_tests(executor):
    failed = {t["id"]: t["feedback"] for t in graded_corpus_file(executor, FAULTY / "causal_mask_always.py")["tests"]
              if t["outcome"] != "passed"}
    for tid in ("test_hand_example", "test_weights_parity_reference", "test_additive_mask_parity"):
        assert diagnose.FAULTS["causal"]["en"] in failed[tid]["en"], (tid, failed[tid])
        assert diagnose.FAULTS["causal"]["zh"] in failed[tid]["zh"], (tid, failed[tid])


# ----------------------------------------------------------------------------- 8. (weights, output) returned
# return_weights=True returning (weights, output): "the output has shape [1,1,2,3], expected [1,1,2,2]" in 14 tests,
# the shapes each the other's never said. Told from the shapes alone, only where the two expected shapes differ.
def test_a_pair_returned_in_reverse_order_is_told_so_in_every_test_it_fails(executor):
    failed = {t["id"]: t["feedback"] for t in graded_corpus_file(executor, FAULTY / "returns_weights_first.py")["tests"]
              if t["outcome"] != "passed"}
    sdpa = [tid for tid in failed if not tid.startswith("test_mha")]
    assert len(sdpa) >= 10, failed
    for tid in sdpa:
        fb = failed[tid]
        assert "the first tensor returned has the weights' shape" in fb["en"], (tid, fb)
        assert "return (output, weights), in this order" in fb["en"] and "应按 (output, weights) 的顺序返回" in fb["zh"]
    said = drivers.reversed_pair([1, 1, 2, 2], [1, 1, 2, 3])
    assert said["en"].startswith("with return_weights=True the first tensor returned has the weights' shape [1,1,2,3] "
                                 "and the second the output's shape [1,1,2,2]"), said
    assert english_in_zh(said["zh"]) == [], said["zh"]
