"""Round 24 on hints for faulty code: a cause is named only when the grader has checked it.

1. A causal mask off by one (triu(diagonal=0): each query blocked from itself; triu(diagonal=2): one key ahead
   read) and a scale by sqrt(Nk) or sqrt(H * dk) (d_model read from the heads' shape) were described, never
   named: each is now a fault model, named when the student's numbers match it on the test's case and on a
   probe of other sizes. Where two models coincide on the first case (sqrt(H * dk) = dk where H == dk) each is
   tried on the probe, and only the one confirmed is named.
(Trusted side here, stand-in students; the corpus files are graded in test_hints_round24_corpus.py.)
"""

from __future__ import annotations

import math

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh

NEG_INF = float("-inf")


class Student:
    """A stand-in ScaledDotProductAttention computing softmax(scores(q, k) + mask) in float64."""

    source = None

    def __init__(self, scores):
        self.scores = scores

    def sdpa(self, q, k, v, mask=None, *, return_weights=False, **_):
        s = self.scores(q.double(), k.double())
        w = torch.softmax(s if mask is None else s + mask.double(), -1)
        out, w = (w @ v.double()).to(q.dtype), w.to(q.dtype)
        return (out, w) if return_weights else out


def _scaled(scale):
    return lambda q, k: q @ k.transpose(-2, -1) * scale(q, k)


def _causal(diagonal):
    def scores(q, k):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return s.masked_fill(torch.triu(torch.ones(s.shape[-2:], dtype=torch.bool), diagonal=diagonal), NEG_INF)
    return scores


MODELS = {
    "scale_nk": _scaled(lambda q, k: 1 / math.sqrt(k.shape[-2])),
    "scale_heads_dk": _scaled(lambda q, k: 1 / math.sqrt(q.shape[1] * q.shape[-1])),
    "causal_diagonal": _causal(0),
    "causal_ahead": _causal(2),
}


@pytest.mark.parametrize("fault", sorted(MODELS))
@pytest.mark.parametrize("case", ["parity", "square", "heads_equal_dk"])
def test_an_off_by_one_causal_mask_and_a_scale_from_the_wrong_size_are_named_on_weights(fault, case):
    q, k, v = {"parity": C.parity_case(), "square": C.square_case(),
               "heads_equal_dk": C.qkv(5, 2, 4, 5, 6, 4, 3)}[case]
    student = Student(MODELS[fault])
    _, w = student.sdpa(q, k, v, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v, student=student) == diagnose.FAULTS[fault]
    if fault != "causal_diagonal":          # its first row is NaN: only the weights model it
        # said of the output (round 31): this call returns no weights
        assert diagnose.sdpa_output(student.sdpa(q, k, v), q, k, v, student=student) == \
            diagnose.fault_name(fault, on_output=True)


@pytest.mark.parametrize("fault", sorted(MODELS))
def test_the_new_models_are_not_named_for_correct_weights_or_the_others_numbers(fault):
    q, k, v = C.parity_case()
    mask = C.random_block_mask(3, (2, 4, 7, 9))
    correct = Student(_scaled(lambda q, k: 1 / math.sqrt(q.shape[-1])))
    _, w = correct.sdpa(q, k, v, mask, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v, mask, student=correct) is None
    for other in set(MODELS) - {fault}:
        student = Student(MODELS[other])
        _, w = student.sdpa(q, k, v, return_weights=True)
        assert diagnose.sdpa_weights(w, q, k, v, student=student) != diagnose.FAULTS[fault], other


def test_a_model_that_coincides_on_the_case_but_not_on_the_probe_does_not_hide_the_one_confirmed():
    """H == dk == 4: sqrt(H * dk) = dk, so "divided by dk" matches first; the probe refutes it, and sqrt(H * dk),
    matched too, is confirmed there (before, the first match decided: not confirmed meant nothing named)."""
    q, k, v = C.qkv(5, 2, 4, 5, 6, 4, 3)
    student = Student(MODELS["scale_heads_dk"])
    _, w = student.sdpa(q, k, v, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v) == diagnose.FAULTS["scale_dk"]        # without a probe: the first
    assert diagnose.sdpa_weights(w, q, k, v, student=student) == diagnose.FAULTS["scale_heads_dk"]


@pytest.mark.parametrize("fault", sorted(MODELS))
def test_the_new_hints_are_chinese_in_chinese(fault):
    text = diagnose.FAULTS[fault]
    assert english_in_zh(text["zh"], frozenset({"softmax", "score", "key", "query", "head", "mask", "additive_mask",
                                                 "d_model", "dk", "NaN", "torch", "triu", "diagonal", "shape"})) == []


# ----------------------------------------------------------------------------- 3. k.transpose(1, 2) on 4-D keys
SDPA_SOURCE = '''import math
import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        {before}
        scores = {product} / math.sqrt(q.shape[-1])
        return scores
'''
BROADCAST = "The size of tensor a (4) must match the size of tensor b (9) at non-singleton dimension 1"
BATCH2 = "Expected size for first two dimensions of batch2 tensor to be: [3, 2] but got: [3, 1]."


@pytest.mark.parametrize("product, message, said", [
    ("torch.matmul(q, k.transpose(1, 2))", BROADCAST, "line 9 multiplies by k.transpose(1, 2), which swaps the two axes"),
    ("q @ k.transpose(2, 1)", BATCH2, "line 9 multiplies by k.transpose(2, 1), which swaps"),
    ("q.matmul(k.swapaxes(0, 1))", BROADCAST, "line 9 multiplies by k.swapaxes(0, 1), which swaps"),
    ("torch.matmul(q, k.T)", BATCH2, "line 9 multiplies by k.T, which reverses the order of all the axes")])
def test_a_transpose_of_other_axes_than_the_last_two_in_the_scores_is_explained(product, message, said):
    from grading.load_hints import transpose_note

    note = transpose_note(SDPA_SOURCE.format(before="pass", product=product), 9, message)
    assert note is not None and note["en"].startswith(said), note
    assert note["en"].endswith("transpose the last two axes with .transpose(-2, -1), which works for any number "
                               "of leading axes"), note
    assert "请用 .transpose(-2, -1) 交换最后两个维度" in note["zh"], note
    assert english_in_zh(note["zh"], frozenset({"line", "T", "K", "N", "B", "H"})) == [], note["zh"]


@pytest.mark.parametrize("before, product, message", [
    ("pass", "torch.matmul(q, k.transpose(-2, -1))", BROADCAST),           # the last two: another cause
    ("pass", "torch.matmul(q, k.transpose(2, 3))", BROADCAST),
    ("k = k.reshape(-1, k.shape[-2], k.shape[-1])", "torch.matmul(q, k.transpose(1, 2))", BROADCAST),   # 3-D now
    ("pass", "torch.matmul(q, k.transpose(1, 2))", "mat1 must be a matrix"),          # not a size mismatch
    ("pass", "torch.matmul(q, self.w.T)", BROADCAST)])                         # not an input
def test_no_transpose_note_where_the_axes_or_the_rank_or_the_error_do_not_show_it(before, product, message):
    from grading.load_hints import transpose_note

    assert transpose_note(SDPA_SOURCE.format(before=before, product=product), 9, message) is None
    mha = SDPA_SOURCE.replace("ScaledDotProductAttention", "MultiHeadAttention")     # x, context are 3-D there
    assert transpose_note(mha.format(before="pass", product="torch.matmul(q, k.transpose(1, 2))"), 9, BROADCAST) is None


# ----------------------------------------------------------------------------- 4. found writing new faulty files
def test_a_mask_added_to_the_weights_after_the_softmax_is_named_only_on_its_numbers():
    class AddedAfter(Student):
        def sdpa(self, q, k, v, mask=None, *, return_weights=False, **_):
            w = torch.softmax(q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1]), -1)
            w = w if mask is None else w + mask.double()
            out, w = (w @ v.double()).to(q.dtype), w.to(q.dtype)
            return (out, w) if return_weights else out

    q, k, v = C.parity_case()
    mask = C.random_block_mask(3, (2, 4, 7, 9))
    student = AddedAfter(None)
    _, w = student.sdpa(q, k, v, mask, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v, mask, student=student) == diagnose.FAULTS["mask_added_after_softmax"]
    zeroed = Student(MODELS["scale_nk"])       # another mistake's numbers with the same mask: not this name
    _, w = zeroed.sdpa(q, k, v, mask, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v, mask, student=zeroed) != diagnose.FAULTS["mask_added_after_softmax"]
