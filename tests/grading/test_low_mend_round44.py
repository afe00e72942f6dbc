"""Round 44, review RC (LOW 2): the nothing_defined hook's reader of calls at import recursed (a 1,400-term
expression that parses was past its depth), and the runner dropped what the hook raised without a word in the log."""
from __future__ import annotations

import ast

from grader_tests.attention.signature_note import _calls_at_import
from grading.allowance import Allowance
from grading.runner import _nothing_defined


def test_calls_at_import_reads_a_1400_term_expression_without_recursing():
    source = "_z = q" + "+x" * 1400 + "\ny = f()\n"
    first, second = ast.parse(source).body
    assert _calls_at_import(first) is False and _calls_at_import(second) is True


class _FailingSuite:
    @staticmethod
    def nothing_defined(source: str):
        raise ValueError("a reader of the suite failed")


def test_a_failing_nothing_defined_hook_runs_the_tests_and_its_error_is_in_the_log():
    log: list[str] = []
    assert _nothing_defined(_FailingSuite(), "x = 1\n", Allowance(1.0), log) is None
    assert log == ["the suite's nothing_defined hook failed, the tests were run: "
                   "ValueError('a reader of the suite failed')"]


def test_an_import_error_with_a_blank_message_is_said_as_blank_not_as_a_bare_colon():
    from grading.proxy import load_error_text
    from grading.sandbox import StudentError

    text = load_error_text(StudentError("ValueError", "\n" * 50, lineno=55), source="x = 1\n" * 60)
    assert text["en"].startswith("ValueError at line 55 with a blank message") and ": " not in text["en"][:40]
    assert text["zh"].startswith("第 55 行出现 ValueError（消息为空白）")
