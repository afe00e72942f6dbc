"""Round 21: an instructor's numbers are read as typed.

* `12,5` (a decimal comma) and `１２．５` (full-width, from a Chinese input method) were "not a
  number"; they are 12.5 now. `1,250` could be 1.25 or 1250, so it is refused saying so.
"""

from __future__ import annotations

import html

import pytest

from app.extensions import db
from app.models import AuditReview, ScoreOverride
from tests.web.helpers import realistic_result
from tests.web.test_instructor_round20 import TARGET, page_form


@pytest.fixture
def graded(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))
    web.login(client, course["teacher"])
    return sub


def overrides() -> list[tuple[float | None, str]]:
    db.session.expire_all()
    return [(o.points, o.comment) for o in db.session.query(ScoreOverride).order_by(ScoreOverride.id)]


def reviews() -> list[tuple[float, str]]:
    db.session.expire_all()
    return [(r.score, r.comment) for r in db.session.query(AuditReview).order_by(AuditReview.id)]


@pytest.mark.parametrize("typed, saved", [("2,5", 2.5), ("１．５", 1.5), ("2,75", 2.75)])
def test_points_with_a_decimal_comma_or_full_width_digits_are_saved_as_that_number(client, course, graded,
                                                                                   typed, saved):
    url = f"/instructor/submissions/{graded.id}/override"
    resp = client.post(url, data=page_form(client, course["alice"].id, url)
                       | {"target": TARGET, "points": typed, "comment": "ok"})
    assert resp.status_code == 302
    assert overrides() == [(saved, "ok")]


@pytest.mark.parametrize("lang, said", [
    ("en", "'1,250' could be 1.250 or 1250: write it with a dot (1.250)."),
    ("zh", "「1,250」可能是 1.250，也可能是 1250：请用小数点书写（1.250）。"),
])
def test_a_comma_that_may_be_a_thousands_separator_is_refused_saying_so(client, course, graded, lang, said):
    client.get(f"/lang/{lang}")
    url = f"/instructor/submissions/{graded.id}/review"
    resp = client.post(url, data=page_form(client, course["alice"].id, url) | {"score": "1,250", "comment": "x"},
                       follow_redirects=True)
    assert said in html.unescape(resp.get_data(as_text=True))
    assert reviews() == []


def test_an_audit_review_with_a_decimal_comma_is_saved(client, course, graded):
    url = f"/instructor/submissions/{graded.id}/review"
    resp = client.post(url, data=page_form(client, course["alice"].id, url) | {"score": "7,5", "comment": "ok"})
    assert resp.status_code == 302
    assert reviews() == [(7.5, "ok")]


def test_a_late_penalty_with_a_decimal_comma_is_saved(client, course, graded):
    from app.models import Assignment

    a = db.session.query(Assignment).one()
    form = {"deadline": a.deadline.strftime("%Y-%m-%dT%H:%M") if a.deadline else "", "late_penalty_percent": "12,5",
            "late_days_allowed": "3", "cooldown_seconds": "0", "published": "1"}
    resp = client.post(f"/instructor/settings?a={a.slug}", data=form)
    assert resp.status_code == 302
    db.session.expire_all()
    assert db.session.get(Assignment, a.id).late_penalty_per_day == pytest.approx(0.125)


def test_override_points_that_may_use_a_thousands_separator_are_refused_saying_so(client, course, graded):
    client.get("/lang/en")
    url = f"/instructor/submissions/{graded.id}/override"
    resp = client.post(url, data=page_form(client, course["alice"].id, url)
                       | {"target": TARGET, "points": "2,500", "comment": "ok"}, follow_redirects=True)
    assert "'2,500' could be 2.500 or 2500" in html.unescape(resp.get_data(as_text=True))
    assert overrides() == []
