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


SEEN = "the rows do not sum to 1 over the 3 keys (row sums each 3): the weights sum to 1 over the batch axis (dim=0, " \
       "of size 1) and the head axis (dim=1, of size 1), so every weight is 1.0"
SEEN_ZH = "各行在 3 个 key 上的和不为 1（行和均为 3）：权重的和为 1 的是沿 batch 轴（dim=0，大小为 1）和 head 轴（dim=1，" \
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


# ------------------------------------------------------------------ a padding mask not broadcast
class _Raised(Exception):
    def __init__(self, kind: str, message: str, lineno: int | None):
        super().__init__(message)
        self.kind, self.message, self.lineno = kind, message, lineno


def _error(src: str, message: str, line: int, heads: int = 1) -> dict:
    # the call's feedback and, as the tests add it once the padding mask is checked to be the cause, its note
    from grading.i18n import SEMI, cat
    from grading.load_hints import padding_note
    from grading.proxy import student_error_text
    said = student_error_text("MultiHeadAttention.forward", _Raised("RuntimeError", message, line), source=src)
    said = cat(said, padding_note(src, line, said["en"], heads), sep=SEMI)
    assert english_in_zh(said["zh"].split("；", 1)[-1], frozenset({"score", "head", "query", "padding", "mask", "B",
                                                                    "H", "Nq", "Nk", "inner"})) == [], said["zh"]
    return said


def _size(a: int, b: int, dim: int) -> str:
    return f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"


ADD_LINE = 21         # scores = scores + additive_mask, in ScaledDotProductAttention.forward


@pytest.mark.parametrize("name, shape, meets, message", [
    ("pad_unsqueeze_1_only", "[B, 1, Nk]", "its B meets the H axis at dimension 1", _size(4, 2, 1)),
    ("pad_view_b_1_tk", "[B, 1, Nk]", "its B meets the H axis at dimension 1", _size(4, 2, 1)),
    ("pad_none_on_wrong_axis", "[B, Nk, 1, 1]", "its Nk meets the H axis at dimension 1", _size(4, 8, 1)),
    ("pad_view_b_tk_1_1", "[B, Nk, 1, 1]", "its Nk meets the H axis at dimension 1", _size(4, 8, 1)),
    ("pad_not_unsqueezed", "[B, Nk]", "its B meets the Nq axis at dimension 2", _size(8, 2, 2)),
])
def test_a_padding_mask_not_broadcast_is_told_its_shape_against_the_scores(name, shape, meets, message):
    said = _error(CASES[name], message, ADD_LINE)
    assert f"line 58 (in MultiHeadAttention) makes the padding mask pad {shape} from key_padding_mask [B, Nk]; " \
           f"broadcasting lines the axes up from the right, so against the scores' axes [B, H, Nq, Nk] (which a mask added to the scores shares) {meets}" in said["en"]
    assert "make it [B, 1, 1, Nk], e.g. key_padding_mask[:, None, None, :]" in said["en"]
    assert f"得到了形状为 {shape} 的 padding mask `pad`" in said["zh"]


def test_the_padding_note_is_not_said_for_another_dimension_line_or_a_right_mask():
    src = CASES["pad_unsqueeze_1_only"]
    assert "padding mask" not in _error(src, _size(4, 2, 2), ADD_LINE)["en"]       # PyTorch names another axis
    assert "padding mask" not in _error(src, _size(4, 2, 1), 19)["en"]             # a line without a mask
    from tests.web.test_broken_uploads_round34 import BASE
    assert "padding mask" not in _error(BASE, _size(4, 2, 1), ADD_LINE)["en"]     # [B, 1, 1, Nk]: right


def test_one_head_with_a_padding_mask_on_the_head_axis_is_told_the_heads_it_made_not_only_the_layers_sizes():
    said = _error(CASES["pad_unsqueeze_1_only"], "mat1 and mat2 shapes cannot be multiplied (8x32 and 16x16)", 62)
    assert "line 58 makes the padding mask pad [B, 1, Nk] from key_padding_mask [B, Nk]; lined up from the right " \
           "under the scores [B, H, Nq, Nk] (broadcasting's order), its B falls on the head axis: with H = 1, " \
           "broadcasting gives the scores B heads instead of one" in said["en"]
    assert "here 32 where the layer takes 16" in said["en"] and "当 H = 1 时，广播使 score 有 B 个 head 而不是一个" in said["zh"]
    # [B, Nk] puts B on the query axis: no extra heads, the layer's note stays
    other = _error(CASES["pad_not_unsqueezed"], "mat1 and mat2 shapes cannot be multiplied (8x32 and 16x16)", 62)
    assert "padding mask" not in other["en"] and "that layer takes inputs" in other["en"]


def test_a_softmax_over_the_head_or_batch_axis_written_with_its_dim_is_quoted_on_a_case_of_many_heads():
    from grader_tests.attention.diagnose import sdpa_weights
    q, k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6, 5), torch.randn(2, 3, 6, 5)
    for name, axis, line in (("softmax_torch_dim_minus3", 1, "line 22: torch.softmax(scores, -3) normalises over dim=-3"),
                             ("softmax_method_dim0", 0, "line 22: scores.softmax(0) normalises over dim=0")):
        student = _Student(CASES[name], lambda s, a=axis: torch.softmax(s, a))
        said = sdpa_weights(student.sdpa(q, k, v, return_weights=True)[1], q, k, v, student=student)
        assert said is not None and line in said["en"], name


# ------------------------------------------------------------------ the corpus, graded once
EXPECTED = {  # (test id, words of its zh feedback)
    "softmax_no_dim_on_x": ("test_hand_example", "第 22 行调用 F.softmax(scores) 时没有给出 dim"),
    "softmax_method_dim0": ("test_hand_example", "scores.softmax(0) 沿 dim=0 归一化"),
    "softmax_torch_dim_minus3": ("test_hand_example", "torch.softmax(scores, -3) 沿 dim=-3 归一化"),
    "softmax_torch_dim_minus2": ("test_hand_example", "torch.softmax(scores, -2) 沿 dim=-2 归一化"),
    "softmax_module_dim1": ("test_hand_example", "nn.Softmax(dim=1) 沿 dim=1 归一化"),
    "softmax_dim_in_variable_1": ("test_hand_example", "权重在不同 head 之间做了归一化"),
    "pad_none_on_wrong_axis": ("test_padding_keys_get_zero_weight", "形状为 [B, Nk, 1, 1] 的 padding mask"),
    "pad_not_unsqueezed": ("test_padding_keys_get_zero_weight", "形状为 [B, Nk] 的 padding mask"),
    "pad_view_b_1_tk": ("test_mha_single_head", "当 H = 1 时，广播使 score 有 B 个 head 而不是一个"),
    "pad_unsqueeze_1_only": ("test_mha_single_head", "当 H = 1 时，广播使 score 有 B 个 head 而不是一个"),
    "pad_view_b_tk_1_1": ("test_mha_single_head", "当 H = 1 时，广播使 score 有 Nk 个 head 而不是一个"),
    "linear_built_in_inherited_method": ("test_deterministic", "（在 ProjectMixin 中）在每次调用都会执行的方法中"),
}


@pytest.fixture(scope="module")
def graded(executor):
    from grading.runner import GradeInput, grade
    return {name: grade(GradeInput(code=code.encode()), "attention", executor) for name, code in CASES.items()}


@pytest.mark.slow
def test_every_corpus_file_is_told_what_was_seen_in_both_languages_and_no_other_axis_or_mask(graded):
    import sys

    from tests.grading.helpers import code_names

    assert set(EXPECTED) == set(CASES)
    for name, result in graded.items():
        assert result["status"] == "graded", (name, result.get("message"))
        tests = {t["id"]: t for t in result["tests"]}
        test, words = EXPECTED[name]
        said = tests[test]["feedback"]
        assert tests[test]["outcome"] != "passed" and words in said["zh"], (name, said["zh"])
        code = code_names(CASES[name]) | frozenset(sys.stdlib_module_names) | frozenset({"score", "head", "query",
                                                                                         "padding", "mask", "B", "H",
                                                                                         "Nq", "Nk", "inner"})
        for t in result["tests"]:
            fb = t.get("feedback")
            if isinstance(fb, dict):
                assert english_in_zh(fb["zh"], code) == [], (name, t["id"], fb["zh"])
                # never wrong: a padding file is not told of a softmax axis, a softmax file of a padding mask
                assert not (name.startswith("pad") and "normalised across" in fb["en"]), (name, t["id"])
                assert not (name.startswith("softmax") and "makes the padding mask" in fb["en"]), (name, t["id"])
