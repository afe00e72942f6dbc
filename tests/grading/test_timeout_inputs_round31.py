"""Round 31, walked in Chromium: a call stopped at its time limit said only "ScaledDotProductAttention.forward did
not finish within 5 s" while the page asked the student to "run that call on your computer with the sizes the
test names"; no size was named anywhere (the loop ran for d_k = 64 of experiment A). A stopped call now names the
shapes of the tensors it was given, in both languages."""

from __future__ import annotations

import re

import pytest
import torch

from grading.proxy import inputs_text
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

REFERENCE = (SUBMISSIONS / "correct" / "reference.py").read_text(encoding="utf-8")


def test_the_inputs_of_a_call_are_named_by_shape_with_a_dtype_other_than_float32():
    said = inputs_text([torch.zeros(2, 4, 5, 64), torch.zeros(2, 4, 7, 64, dtype=torch.float16), 3],
                       {"additive_mask": torch.zeros(5, 7), "key_padding_mask": torch.zeros(2, 7, dtype=torch.bool),
                        "return_weights": True})
    assert said == {"en": " (inputs [2, 4, 5, 64], [2, 4, 7, 64] float16, additive_mask [5, 7], "
                          "key_padding_mask [2, 7] bool)",
                    "zh": "（输入 [2, 4, 5, 64]，[2, 4, 7, 64] float16，additive_mask [5, 7]，key_padding_mask [2, 7] bool）"}
    assert inputs_text([3, "x"], {"return_weights": True}) is None


@pytest.mark.slow   # a real grading that waits for a call's time limit
def test_a_call_stopped_at_its_time_limit_names_the_shapes_it_was_given(executor):
    hangs = REFERENCE.replace("        scores = torch.matmul(q, k.transpose(-2, -1))",
                              "        if q.shape[-1] >= 64:\n            while True:\n                pass\n"
                              "        scores = torch.matmul(q, k.transpose(-2, -1))", 1)
    result = grade(GradeInput(code=hangs.encode()), "attention", executor)
    stopped = [t for t in result["tests"] if t["outcome"] == "timeout" and "did not finish" in t["feedback"]["en"]]
    assert stopped, [(t["id"], t["outcome"]) for t in result["tests"] if t["outcome"] != "passed"]
    for t in stopped:
        en, zh = t["feedback"]["en"], t["feedback"]["zh"]
        shapes = re.findall(r"\[(\d+), (\d+), (\d+), (\d+)\]", en)
        assert shapes and int(shapes[0][3]) >= 64, en       # q's d_k, the size the loop hangs on
        assert "ScaledDotProductAttention.forward (inputs [" in en and "ScaledDotProductAttention.forward（输入 [" in zh
        assert re.search(r"\]）未在 \d+(\.\d+)? 秒的 CPU 时间内结束", zh), zh
