"""Mend of round 41 (review D, MED 2): the packages line of the assignment page states which guarded imports
cost the points held while the review cannot follow a file as static._absent_optional_import decides it: by
NAME, an import whose module path or an imported name contains one of its words (``_ATTENTION_WORDS``), not
only "packages of attention kernels" (a guarded ``from timm.layers import Attention`` cost them too, and so did
``apex.contrib.multihead_attn``, apex being the page's own "fine" example). The words are read from the code,
so the page fails here when either changes; the amount of points is checked by the round-40 mend's test."""

from __future__ import annotations

import ast
import re

import pytest

from grader_tests.attention import static
from rubric.loader import suite_dir

SUITE = suite_dir("attention")

# page -> (the line's opening, the words' list, the examples after it, the words that end the examples)
LINES = {
    "ASSIGNMENT.en.md": ("- **Packages**:", r"contains (.+?) \(in any case\)", r"\(in any case\), as (.+?) do,"),
    "ASSIGNMENT.zh.md": ("- **可用的包**：", r"含有 (.+?)（不分大小写）", r"（不分大小写），例如 (.+?)，即使"),
}


def _line(page: str, opening: str) -> str:
    text = (SUITE / page).read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith(opening))


def _code(part: str) -> list[str]:
    return re.findall(r"`([^`]+)`", part)


def _held_even_guarded(statement: str) -> bool:
    """Whether the review flags ``statement`` under ``try: ... except ImportError:`` (not an absent optional
    import), as it decides it for a submission."""
    if not statement.startswith(("import ", "from ")):
        statement = f"import {statement}"
    tree = ast.parse(f"try:\n    {statement}\nexcept ImportError:\n    pass\n")
    guard = tree.body[0]
    node = guard.body[0]                                   # type: ignore[attr-defined]
    mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
    return not static._absent_optional_import(node, mod, {id(node): guard})


@pytest.mark.parametrize("page", sorted(LINES))
def test_the_packages_line_lists_the_words_the_review_holds_a_guarded_import_by(page):
    opening, words, _ = LINES[page]
    listed = re.search(words, _line(page, opening))
    assert listed, _line(page, opening)
    assert _code(listed.group(1)) == list(static._ATTENTION_WORDS)


@pytest.mark.parametrize("page", sorted(LINES))
def test_each_example_the_page_gives_is_held_even_guarded_and_its_fine_example_is_not(page):
    opening, _, examples = LINES[page]
    line = _line(page, opening)
    shown = re.search(examples, line)
    assert shown, line
    given = _code(shown.group(1))
    assert any(" import " in g for g in given), given            # an imported name, not only a package's
    assert [g for g in given if not _held_even_guarded(g)] == []
    assert not _held_even_guarded("from apex.normalization import FusedLayerNorm")
    assert "`try: from apex.normalization import FusedLayerNorm`" in line
