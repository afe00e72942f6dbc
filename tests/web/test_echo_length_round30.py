"""Error texts quoted what was typed whole: a 5,000-character assignment slug came back in the API's
"No assignment '...'" (en and zh), an email pasted with a whole roster in it in the instructor's
"No student with the email '...'" flash. Every error text now quotes at most ECHO_CHARS characters
of the input, ended with '…', in both languages."""

from __future__ import annotations

import html
import re

import pytest

from app import course, regrading
from app.errors import ECHO_CHARS
from app.roster import import_roster
from tests.web.test_api import bearer, upload

LONG = "x" * 5000
SHOWN = "'" + "x" * ECHO_CHARS + "…'"


def _quoted_runs(text: str) -> list[int]:
    """Lengths of the runs of 'x' in `text` (the echoed input)."""
    return [len(m) for m in re.findall(r"x+", text)]


@pytest.mark.parametrize("call", ["upload", "regrade"])
def test_the_api_quotes_a_long_assignment_slug_cut(client, factory, course, call):
    if call == "upload":
        resp = upload(client, factory.token(course["alice"]), assignment=LONG)
    else:
        resp = client.post("/api/v1/regrades", json={"scope": "all", "assignment": LONG},
                           headers=bearer(factory.token(course["teacher"])))
    assert resp.status_code == 404, resp.json
    for text in (resp.json["error"], resp.json["message"]["en"], resp.json["message"]["zh"]):
        assert SHOWN in text and max(_quoted_runs(text)) == ECHO_CHARS, text[:200]


def test_the_extension_form_quotes_a_long_email_cut_in_both_languages(client, web, course):
    web.login(client, course["teacher"])
    for lang, before in (("en", "No student with the email "), ("zh", "没有邮箱为 ")):
        client.get(f"/lang/{lang}")
        page = html.unescape(client.post("/instructor/extensions", data={
            "student": LONG + "@example.edu", "extra_days": "2", "a": course["assignment"].slug}).get_data(as_text=True))
        said = page[page.index(before):][:200]
        assert said.startswith(before + SHOWN), said


@pytest.mark.parametrize("fails", [
    lambda: course.find_student(LONG),
    lambda: course.parse_deadline(LONG),
    lambda: course.parse_deadline("2026-12-01" + LONG),
    lambda: course.parse_number("1" * 5000 + ",250"),
    lambda: regrading.plan(course_assignment(), "student", student_email=LONG),
])
def test_domain_errors_quote_at_most_the_limit(app, factory, fails):
    with pytest.raises((course.CourseError, regrading.RegradeError)) as err:
        fails()
    for text in (err.value.en, err.value.zh):
        assert len(text) < 400 and max(_quoted_runs(text) or [0]) <= ECHO_CHARS, text[:200]


def course_assignment():
    from tests.factories import Factory

    return Factory().assignment()


def test_input_and_roster_refusals_quote_at_most_the_limit(app, client, factory, course):
    resp = client.post("/api/v1/regrades", json={"scope": "all", LONG: 1},
                       headers=bearer(factory.token(course["teacher"])))
    assert resp.status_code == 400 and resp.json["code"] == "unknown_field"
    for text in resp.json["message"].values():
        assert SHOWN in text and len(text) < 600, text[:200]
    report = import_roster(f"a@example.edu,A,{LONG}\n".encode())
    for lang in ("en", "zh"):
        with app.test_request_context(headers={"Accept-Language": lang}):
            reason = str(report.skipped[0]["reason"])
            assert SHOWN in reason and len(reason) < 200, reason[:200]
