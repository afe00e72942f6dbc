"""Mend of round 39: one registry of review codes (grading.review.ENGINE_CODES and each suite's, the attention
suite's static.REVIEW_CODES): it is what the web translates, and every reason( built in grading/ or grader_tests/
names a registered code (or one its suite declares in review_texts), so a new code cannot reach the pages
untranslated."""

from __future__ import annotations

import ast
from pathlib import Path

from app.review_text import _BY_CODE
from grader_tests.attention import static
from grading import review
from grading.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]


def _registry() -> set[str]:
    return set(review.ENGINE_CODES) | set(static.REVIEW_CODES)


def test_the_registry_is_exactly_the_codes_the_web_translates():
    assert _registry() == set(_BY_CODE)


def _first_args(folder: str) -> list[tuple[str, int, ast.expr]]:
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "reason" \
                    and node.args:
                found.append((str(path.relative_to(ROOT)), node.lineno, node.args[0]))
    return found


def test_every_reason_built_in_the_engine_and_the_suites_names_a_registered_code():
    declared = set(load_suite("attention").review_texts)
    calls = _first_args("grading") + _first_args("grader_tests")
    literal = 0
    for where, line, arg in calls:
        if isinstance(arg, ast.Constant):
            code = arg.value
        elif isinstance(arg, ast.Name):
            code = getattr(review, arg.id)          # a grading.review constant (PLAIN: a hook's bare text)
            if code == review.PLAIN:
                continue
        else:
            continue                                # stored(): a hook's own code, checked by its declaration
        literal += 1
        assert code in _registry() | declared, (where, line, code)
    assert literal >= 9, calls
