"""Red-team round 21 on hints for faulty code: a cause is named only when the grader has checked it.

1. Numbers from one random draw (dropout on the scores, active in eval) read as a finding: a scale
   "of about 0.3665" fitted to them, "each query must be computed independently". The formula tests
   now call the student twice before reading anything into the weights, and a fitted scale is stated
   only when softmax(c * QK^T) gives the weights back.
"""

from __future__ import annotations

import ast
import inspect
import math

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention import test_formula_shape as formula
from grading.load_hints import load_hint
from grading.proxy import Feedback
from tests.grading.helpers import english_in_zh


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
def _syntax(source: str) -> tuple[str, int, str]:
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return type(exc).__name__, exc.lineno, exc.msg
    raise AssertionError("the source parses")


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
    kind, lineno, message = _syntax(source)
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
    hint = load_hint(source, *_syntax(source))
    assert "line 3 is indented by 4 spaces, no more than line 2 (4 spaces), whose block it should hold" in hint["en"]
