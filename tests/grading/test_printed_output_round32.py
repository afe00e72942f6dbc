"""Round 32: a correct attention.py that printed ~2 MB in every call (more than 64 MiB in a grading) lost
its session at the output limit: pytest's run ended with exit code 2 (session lost), a second grading
child ran the remaining tests again in a fresh session, and the test that was running lost its points
(83 of 85). The jail now prints to /dev/null past half the limit: one child, full marks, and the note
says the code printed "more than" what was counted."""

from __future__ import annotations

import re

import pytest

from grading.runner import GradeInput, grade
from tests.grading.test_printed_output_round31 import REFERENCE

LOUD = REFERENCE.replace("import torch\n", "import torch\n_BIG = 'w' * 2_000_000\n", 1).replace(
    "        weights = torch.softmax(scores, dim=-1)\n",
    "        weights = torch.softmax(scores, dim=-1)\n        print(weights.tolist())\n        print(_BIG)\n", 1)


@pytest.mark.slow   # a real grading that prints ~140 MiB
def test_a_correct_file_that_prints_in_every_call_is_graded_in_one_run_with_full_marks(executor):
    assert LOUD != REFERENCE
    result = grade(GradeInput(code=LOUD.encode()), "attention", executor)
    children = re.findall(r"child \d+: [\d.]+ s, pytest exit (\d+)", result["log"])
    assert children == ["0"], children
    assert result["status"] == "graded" and result["total"] == 85, [
        (t["id"], t["feedback"]) for t in result["tests"] if t["outcome"] != "passed"]
    assert "your code printed more than " in result["message"]["en"], result["message"]
    assert "你的代码输出了超过 " in result["message"]["zh"], result["message"]
