"""Round 39, feedback on faulty code (brief C): a softmax over an axis of size 1 on the hand example (one sample, one
head) said only "hand-example weights are [[1.0000, ...]], expected ...": the fault models of the softmax's axis say
nothing where that axis has size 1. Now the feedback says what was seen (the rows do not sum to 1 over the keys, the
axes the weights do sum to 1 over), and the axis the softmax ran over, with its line, only when a second case with every
size >= 3 has checked it. The corpus of these spellings is tests/grading/feedback_corpus_round39.py."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

from grader_tests.attention import test_formula_shape as formula
from grader_tests.attention.diagnose import rows_off
from grading.proxy import Feedback
from tests.grading.feedback_corpus_round39 import CASES
from tests.grading.helpers import english_in_zh


class _Student:
    """The student's source, and ``sdpa`` computing ``weights(scores)`` (the scores as the reference makes them)."""

    def __init__(self, source: str | None, weights):
        self.source, self.weights = source, weights

    def sdpa(self, q, k, v, mask=None, *, return_weights=False, **_):
        s = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            s = s + mask.double()
        w = self.weights(s).to(q.dtype)
        out = (w.double() @ v.double()).to(q.dtype)
        return (out, w) if return_weights else out


def _hand(student) -> dict:
    recorders = [lambda *a: None] * (len(inspect.signature(formula.test_hand_example).parameters) - 1)
    with pytest.raises(Feedback) as exc:
        formula.test_hand_example(student, *recorders)
    said = exc.value.message
    code = frozenset({"dim", "softmax", "scores", "key", "query", "batch", "head", "F", "nn", "torch", "Softmax", "q",
                      "k", "sqrt", "Implicit", "dimension", "choice", "for", "has", "been", "deprecated", "B", "H",
                      "Nq", "Nk"})
    assert english_in_zh(said["zh"], code) == [], said["zh"]
    return said


SEEN = "the rows do not sum to 1 over the 3 keys (row sums [3, 3]): the weights sum to 1 over the batch axis (dim=0, " \
       "of size 1) and the head axis (dim=1, of size 1), so every weight is 1.0"
SEEN_ZH = "各行在 3 个 key 上的和不为 1（行和为 [3, 3]）：权重的和为 1 的是沿 batch 轴（dim=0，大小为 1）和 head 轴（dim=1，" \
          "大小为 1）的方向，因此每个权重都是 1.0"


def test_a_softmax_without_dim_on_the_hand_example_says_the_row_sums_the_axis_checked_and_its_line():
    src = CASES["softmax_no_dim_on_x"]
    said = _hand(_Student(src, lambda s: torch.softmax(s, 1)))
    assert SEEN in said["en"] and SEEN_ZH in said["zh"]
    assert "on a second case of [B, H, Nq, Nk] = [3, 5, 7, 17], the weights are normalised across heads" in said["en"]
    assert "line 22 calls F.softmax(scores) without dim" in said["en"]
    assert "第 22 行调用 F.softmax(scores) 时没有给出 dim" in said["zh"]


@pytest.mark.parametrize("name, axis, line_en, line_zh", [
    ("softmax_method_dim0", 0, "line 22: scores.softmax(0) normalises over dim=0, the batch axis of [B, H, Nq, Nk]",
     "第 22 行：scores.softmax(0) 沿 dim=0 归一化，即 [B, H, Nq, Nk] 中的 batch 轴"),
    ("softmax_torch_dim_minus3", 1, "line 22: torch.softmax(scores, -3) normalises over dim=-3, the head axis",
     "第 22 行：torch.softmax(scores, -3) 沿 dim=-3 归一化，即 [B, H, Nq, Nk] 中的 head 轴"),
    ("softmax_module_dim1", 1, "line 22: nn.Softmax(dim=1) normalises over dim=1, the head axis",
     "第 22 行：nn.Softmax(dim=1) 沿 dim=1 归一化"),
])
def test_a_softmax_over_a_written_axis_of_size_one_is_quoted_with_that_axis(name, axis, line_en, line_zh):
    said = _hand(_Student(CASES[name], lambda s: torch.softmax(s, axis)))
    assert SEEN in said["en"] and line_en in said["en"] and line_zh in said["zh"]
    assert ("across heads" if axis == 1 else "across the samples of the batch") in said["en"]


def test_a_dim_in_a_variable_names_the_axis_checked_and_quotes_no_line():
    said = _hand(_Student(CASES["softmax_dim_in_variable_1"], lambda s: torch.softmax(s, 1)))
    assert SEEN in said["en"] and "the weights are normalised across heads" in said["en"]
    assert "line 22" not in said["en"] and "第 22 行" not in said["zh"]


def test_a_softmax_line_is_not_quoted_when_the_numbers_show_another_axis():
    # the source's softmax has no dim (dim=1 on 4-D), but the numbers are a softmax over the batch axis: the line
    # is not what made them (the tensor was reshaped elsewhere, say), so it is not quoted
    said = _hand(_Student(CASES["softmax_no_dim_on_x"], lambda s: torch.softmax(s, 0)))
    assert SEEN in said["en"] and "across the samples of the batch" in said["en"]
    assert "without dim" not in said["en"] and "没有给出 dim" not in said["zh"]


def test_weights_of_one_no_softmax_explains_say_what_was_seen_and_no_axis():
    said = _hand(_Student(CASES["softmax_no_dim_on_x"], lambda s: torch.ones_like(s)))
    assert SEEN in said["en"]
    assert "second case" not in said["en"] and "without dim" not in said["en"] and "第二个例子" not in said["zh"]


def test_no_note_when_the_rows_sum_to_one_or_no_other_axis_does():
    q, k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6, 5), torch.randn(2, 3, 6, 5)
    s = q @ k.transpose(-2, -1)
    assert rows_off(torch.softmax(s, -1), q, k, v) is None
    assert rows_off(torch.softmax(s, -1) * 2, q, k, v) is None
    assert rows_off(torch.softmax(s, 1), q, k, v) is not None       # over the heads: said, without a student


# ------------------------------------------------------------------ a layer built per call, in an inherited method
class _Source:
    def __init__(self, source: str):
        self.source = source


def _layer_said(src: str) -> dict:
    from grader_tests.attention.diagnose import randomness
    return randomness(_Source(src), "MultiHeadAttention")


def test_a_layer_built_in_an_inherited_method_is_followed_to_the_base_that_defines_it():
    src = CASES["linear_built_in_inherited_method"]
    line = next(n for n, text in enumerate(src.splitlines(), 1) if "return nn.Linear(x.size(-1)" in text)
    said = _layer_said(src)
    assert f"line {line} (in ProjectMixin) builds nn.Linear(x.size(-1), x.size(-1)) in a method that runs at every " \
           "call" in said["en"]
    assert f"第 {line} 行（在 ProjectMixin 中）在每次调用都会执行的方法中" in said["zh"]


def test_an_inherited_method_overridden_below_or_of_a_base_the_file_does_not_define_is_not_followed():
    src = CASES["linear_built_in_inherited_method"]
    overridden = src.replace("    def _split(self, x):", "    def _project(self, x):\n        return x\n\n"
                             "    def _split(self, x):", 1)
    unknown = src.replace("class MultiHeadAttention(ProjectMixin, nn.Module):",
                          "class MultiHeadAttention(Helper, ProjectMixin, nn.Module):", 1) \
        .replace("import math\n", "import math\nfrom helpers import Helper\n", 1)
    for changed in (overridden, unknown):
        assert changed != src
        assert "builds" not in _layer_said(changed)["en"]
