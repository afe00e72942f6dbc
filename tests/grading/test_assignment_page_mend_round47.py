"""Round 47 mend (B): the Chinese assignment page shows no space after a full-width punctuation mark. A space
typed after it (``。 可以``) or a line break inside a paragraph (the renderer keeps it, the browser shows it as
a space) reads as a stray gap in Chinese text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.views_helpers import render_markdown

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "grader_tests").glob("*/ASSIGNMENT.zh.md"))
# a full-width mark, then white space, then text (not a tag: "。</li>\n<li>" ends a list item)
GAP = re.compile(r"[。，；：、！？）」』】][ \t\n\u3000]+(?=[^\s<])")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_the_chinese_page_as_shown_has_no_space_after_a_full_width_mark(page):
    html = str(render_markdown(page.read_text(encoding="utf-8")))
    gaps = [html[max(0, m.start() - 20):m.end() + 10] for m in GAP.finditer(html)]
    assert PAGES and gaps == [], gaps
