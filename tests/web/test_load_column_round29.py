"""Round 29: a file that does not parse is shown with the line *and the column* Python's caret points at
(a SyntaxError's offset, carried out of the sandbox), in zh and en, and that column is marked in the
line shown. Only the line was said: a student with a long line (a missing ':' after a signature of
80 characters, one stray character in a formula) had to guess where in it."""

from __future__ import annotations

import re

from grading.proxy import load_error_text
from grading.sandbox import StudentError
from tests.web.test_student_pages import _load_error_pages

SIGNATURE = "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False)"


def _column_of(source: str) -> tuple[int, int, str]:
    """What CPython itself says of ``source``: (line, column, message)."""
    try:
        compile(source, "attention.py", "exec")
    except SyntaxError as e:
        return e.lineno, e.offset, e.msg
    raise AssertionError("the source compiles")


def _pages(client, web, course, source: str, kind: str = "SyntaxError") -> tuple[dict[str, str], int, int]:
    line, column, message = _column_of(source)
    error = StudentError(kind, message, line, column)
    return _load_error_pages(client, web, course, source, load_error_text(error, source=source)), line, column


def test_a_missing_colon_is_located_by_line_and_column_and_the_blank_where_it_belongs_is_marked(client, web, course):
    source = f"import torch\nfrom torch import nn\n\n\nclass ScaledDotProductAttention(nn.Module):\n{SIGNATURE}\n" \
             "        return q\n"
    pages, line, column = _pages(client, web, course, source)
    assert (line, column) == (6, len(SIGNATURE) + 1)     # one past the ')': where the ':' is missing
    assert f"SyntaxError at line 6, column {column}: expected ':'" in pages["en"]
    assert f"Line 6, column {column} of your attention.py (marked):" in pages["en"]
    assert f"第 6 行第 {column} 列出现 SyntaxError" in pages["zh"]
    assert f"你的 attention.py 第 6 行第 {column} 列（已标出）：" in pages["zh"]
    for page in pages.values():
        # the whole line, then the marked blank after it, on the highlighted line only
        assert f'<span class="ln" aria-hidden="true">6</span>{SIGNATURE}<mark class="column">\u00a0</mark></span>' in page
        assert page.count('<mark class="column">') == 1


def test_the_marked_character_is_the_one_python_points_at_counted_in_characters(client, web, course):
    """Columns count characters (a Chinese identifier is one column, as in Python's own offset), and the
    mark wraps the character itself, so a tab or a wide character cannot shift it (a TabError's column:
    tests/sandbox/test_syntax_column_round29.py)."""
    source = "import torch\n\n\ndef f(s):\n    a = 1\nx = 中文 + 1 1\n"
    line, column, _message = _column_of(source)
    kind = "SyntaxError"
    pages, _, _ = _pages(client, web, course, source, kind)
    text = source.splitlines()[line - 1]
    before, at, after = text[:column - 1], text[column - 1], text[column:]
    for lang, said in (("en", f"{kind} at line {line}, column {column}"), ("zh", f"第 {line} 行第 {column} 列出现 {kind}")):
        assert said in pages[lang], pages[lang]
        assert f'{before}<mark class="column">{at}</mark>{after}</span>' in pages[lang]


def test_a_column_off_its_line_is_neither_marked_nor_named_in_the_caption(client, web, course):
    """The column comes out of the sandbox (student code can forge a SyntaxError): one past the line's end
    is a place, further is not, and the caption then names the line alone."""
    source = "import torch\nx = (1,\n"
    pages = _load_error_pages(client, web, course, source,
                              load_error_text(StudentError("SyntaxError", "'(' was never closed", 2, 40), source=source))
    assert "Line 2 of your attention.py:" in pages["en"] and "你的 attention.py 第 2 行：" in pages["zh"]
    assert all('<mark class="column">' not in page for page in pages.values())
    assert re.search(r'<span class="hit"><span class="ln" aria-hidden="true">2</span>x = \(1,</span>', pages["en"])


def test_an_error_without_a_column_keeps_the_line_alone():
    """A runtime error has no column: its message says the line, as before."""
    said = load_error_text(StudentError("NameError", "name 'nn' is not defined", 3), source="import torch\n\nnn\n")
    assert said["en"].startswith("NameError at line 3: ") and said["zh"].startswith("第 3 行出现 NameError")
