"""Round 24: a number or deadline an instructor pastes with an invisible character is read as they see it.

A zero-width space or a direction mark pasted from a chat or a web page (the class of characters round 22
removed from emails) made `2` "Points must be a number", `3` extra days "must be a whole number" and a
deadline "not a date and time". Every typed value now goes through app.course.typed: NFKC, format
characters (Unicode Cf) removed, stripped."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.course import parse_deadline, parse_number
from app.extensions import db
from app.models import Extension, ScoreOverride
from tests.helpers import rubric_result
from tests.web.test_course_management import switch

INVISIBLE = ["\u200b", "\u200e", "\ufeff", "\u2060", "\u00ad"]


@pytest.mark.parametrize("mark", INVISIBLE)
def test_numbers_and_deadlines_with_an_invisible_character_are_read_as_seen(app, mark):
    assert parse_number(f"2{mark}") == 2.0
    assert parse_number(f"{mark}1,5") == 1.5
    assert parse_deadline(f"2026-12-01T23:59{mark}", "UTC") == datetime(2026, 12, 1, 23, 59)
    assert parse_deadline(f"{mark}２０２６－１２－０１Ｔ２３：５９Ｚ", "UTC") == datetime(2026, 12, 1, 23, 59)


def test_what_is_not_a_number_is_still_refused(app):
    for raw in ["2\u200bx", "nan", "\u200b", "1e309"]:
        with pytest.raises(ValueError):
            parse_number(raw)


def test_an_override_and_extra_days_pasted_with_a_zero_width_space_are_saved(client, web, course):
    sub = web.submit(course["alice"], course["assignment"], audit=False, figure=False)
    web.grade(sub, rubric_result("attention", {"test_hand_example"}))
    switch(client, web, course["teacher"])
    resp = client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "test:test_hand_example", "points": "2\u200b", "comment": "阈值", "seen": "0"})
    assert resp.status_code == 302
    assert db.session.query(ScoreOverride).one().points == 2.0
    resp = client.post("/instructor/extensions", data={"student": "bob@example.edu", "extra_days": "\u200e3\u200b"})
    assert resp.status_code == 302
    assert db.session.query(Extension).one().extra_days == 3
