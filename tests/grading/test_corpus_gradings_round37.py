"""A corpus file is graded once a session: a test that reads an unchanged file's grading asks
``helpers.graded_corpus_file`` (the cache every corpus module shares, filled on the other core by the
prefetch process) and does not grade the file again beside it."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The one module that grades corpus files anew on purpose: it compares the test process's grading of a
# file with the prefetch process's.
FRESH_ON_PURPOSE = {"test_corpus_prefetch_round26.py"}


def _regradings(source: str) -> list[int]:
    """Lines of ``grade(GradeInput(code=<path>.read_bytes()), ...)``: an unchanged file graded directly."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "grade" and node.args):
            continue
        first = node.args[0]
        if isinstance(first, ast.Call) and getattr(first.func, "id", None) == "GradeInput":
            code = next((k.value for k in first.keywords if k.arg == "code"), first.args[0] if first.args else None)
            if isinstance(code, ast.Call) and getattr(code.func, "attr", None) == "read_bytes":
                lines.append(node.lineno)
    return lines


def test_the_check_sees_a_corpus_file_graded_directly_and_not_a_changed_one():
    assert _regradings('r = grade(GradeInput(code=(FAULTY / "x.py").read_bytes()), "attention", ex)\n') == [1]
    assert _regradings('r = grade(GradeInput(code=src.replace("a", "b").encode()), "attention", ex)\n') == []
    assert _regradings('r = graded_corpus_file(ex, FAULTY / "x.py")\n') == []


def test_no_grading_test_grades_an_unchanged_corpus_file_beside_the_shared_cache():
    found = {p.name: lines for p in sorted(HERE.glob("test_*.py"))
             if p.name not in FRESH_ON_PURPOSE and (lines := _regradings(p.read_text(encoding="utf-8")))}
    assert found == {}, f"use graded_corpus_file(executor, path): {found}"
