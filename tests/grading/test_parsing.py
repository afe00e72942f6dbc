"""One parse per student file (grading/parsing.py): the load hints, the runner's notes and the
suite's review read the same tree instead of each parsing the file again."""

from __future__ import annotations

import ast

import pytest

from grader_tests.attention import static
from grading import load_hints, parsing
from grading.runner import _display_imports
from grading.suite import load_suite
from tests.grading.helpers import SUBMISSIONS


@pytest.fixture
def count_parses(monkeypatch) -> list[int]:
    calls = [0]
    real = ast.parse

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    parsing.parsed.cache_clear()
    static._parsed.cache_clear()
    monkeypatch.setattr(parsing.ast, "parse", counting)
    return calls


def test_the_review_the_notes_and_the_hints_parse_a_file_once(count_parses):
    source = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8") + "\n# once\n"
    static.review_reasons(source)
    _display_imports(load_suite("attention"), source)
    load_hints.load_hint(source, "StudentTimeout", None, "")
    assert count_parses[0] == 1


def test_a_file_with_a_literal_getattr_is_parsed_once_and_its_shared_tree_left_as_it_was(count_parses):
    source = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8") + "\nx = getattr(torch, 'fx')\n"
    shared = ast.dump(parsing.parsed(source)[0])
    assert static.review_reasons(source)
    assert ast.dump(parsing.parsed(source)[0]) == shared
    assert count_parses[0] == 1


def test_a_syntax_error_is_parsed_once_and_reported_as_python_does(count_parses):
    source = "import torch\nclass A:\n    def f(self)\n        pass\n"
    assert static.review_reasons(source) is not None
    hint_kind = load_hints._syntax_error(source)
    assert isinstance(hint_kind, SyntaxError) and hint_kind.lineno == 3
    assert load_hints.parse_source(source) is None
    assert count_parses[0] == 1


def test_a_file_too_deep_for_the_parser_is_a_failure_not_an_exception():
    # 50,000 deep: under the token gate (round 45), whose 100,000 tokens a 200,000-deep line passes
    tree, failure = parsing.parsed("x = " + "-" * 50_000 + "1\n")
    assert tree is None and isinstance(failure, RecursionError | MemoryError)
    tree, failure = parsing.parsed("x = " + "-" * 200_000 + "1\n")
    assert tree is None and isinstance(failure, parsing.TooManyTokens)
