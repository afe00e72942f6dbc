"""Round 31, walked in Chromium: a correct attention.py that printed its weights in every call (32 MiB) was graded
in 20 s instead of 1 s and scored full marks, and its page said nothing about the printing; printing more makes
calls meet their time limits, with "did not finish within 5 s" alone. The result's message now says how much the
code printed and that the grader reads none of it, in both languages; a file that prints a little gets no note."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade
from grading.sandbox.client import DISCARDED_TEXT, printed_bytes
from tests.grading.helpers import SUBMISSIONS

REFERENCE = (SUBMISSIONS / "correct" / "reference.py").read_text(encoding="utf-8")


def test_printed_bytes_counts_the_kept_text_and_what_each_session_discarded():
    joined = "é" * 10 + DISCARDED_TEXT.format(n=1000) + "ab" + DISCARDED_TEXT.format(n=24)
    assert printed_bytes(joined) == (20 + 2 + 1000 + 24, 1024)
    assert printed_bytes("quiet\n") == (6, 0)


@pytest.mark.slow   # two real gradings in the sandbox
def test_a_file_that_prints_much_is_told_how_much_and_a_file_that_prints_little_is_not(executor):
    loud = REFERENCE + "\nfor _ in range(300):\n    print('x' * 999)\n"
    result = grade(GradeInput(code=loud.encode()), "attention", executor)
    assert result["status"] == "graded" and result["total"] == 85, result["message"]
    message = result["message"]
    assert "your code printed " in message["en"] and "the grader reads none of it" in message["en"], message
    assert "评分时你的代码输出了 " in message["zh"] and "评分器不读取这些输出" in message["zh"], message
    # what was printed: 300 KB at each import, and a file is imported once per sandbox session
    total = int(message["en"].split("your code printed ")[1].split(" KiB")[0])
    assert total >= 290, message["en"]
    quiet = REFERENCE + "\nprint('loaded')\n"
    result = grade(GradeInput(code=quiet.encode()), "attention", executor)
    assert result["status"] == "graded" and not result["message"], result["message"]
