"""Deadlines are bounded: a course deadline lies in 2000-2099, an extension moves a student's deadline
by at most 365 days (as its extra days do) and never before the class's. A refused date says why in
zh and en and stores nothing; before, year 9999 was taken, and the date arithmetic on it was a 500."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

from app.extensions import db
from app.models import Extension, utcnow
from tests.web.test_course_management import _bearer, settings_form, switch

ZH = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("deadline", ["9999-12-31T23:59", "0202-12-01T23:59", "1970-01-01T00:00",
                                      "2100-01-01T00:00", "9999-12-31T23:59:59-08:00"])
def test_an_extension_to_a_deadline_no_course_has_is_refused_on_the_page_in_both_languages(
        client, web, course, deadline):
    switch(client, web, course["teacher"])
    for lang, words in (("en", "not a deadline a course can have"), ("zh", "不是课程可用的截止时间")):
        client.get(f"/lang/{lang}")
        resp = client.post("/instructor/extensions", data={"student": "alice@example.edu", "deadline": deadline},
                           follow_redirects=True)
        assert resp.status_code == 422   # round 23: the page again, filled in (was a redirect, then 200)
        assert words in resp.get_data(as_text=True)
    assert db.session.query(Extension).count() == 0


@pytest.mark.parametrize("deadline", ["9999-12-31T23:59:00Z", "0001-01-01T00:00:00+08:00",
                                      "9999-12-31T23:00:00-08:00"])
def test_an_api_extension_to_a_deadline_no_course_has_is_a_422_not_a_500(client, web, course, deadline):
    resp = client.post("/api/v1/extensions", json={"assignment": "attention", "student": "bob@example.edu",
                                                    "deadline": deadline}, headers=_bearer(web, course["teacher"]))
    assert resp.status_code == 422, resp.json
    assert resp.json["code"] == "deadline_out_of_range"
    assert "2000" in resp.json["message"]["en"] and ZH.search(resp.json["message"]["zh"])
    assert db.session.query(Extension).count() == 0


def test_a_course_deadline_in_year_9999_is_refused_so_extra_days_cannot_overflow(client, web, course):
    a = course["assignment"]
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post("/instructor/settings", data=settings_form(deadline="9999-12-31T23:59"), follow_redirects=True)
    assert "not a deadline a course can have" in resp.get_data(as_text=True)
    db.session.expire_all()
    assert a.deadline is None
    # The latest deadline taken, plus the longest extension, is still a date: no 500.
    client.post("/instructor/settings", data=settings_form(deadline="2099-12-31T23:59"))
    resp = client.post("/instructor/extensions", data={"student": "alice@example.edu", "extra_days": "365"})
    assert resp.status_code == 302
    assert client.get("/instructor/settings").status_code == 200


def test_an_extension_moves_a_deadline_by_at_most_365_days(client, web, course):
    a = course["assignment"]
    a.deadline = datetime(2026, 12, 20, 15, 59)
    db.session.commit()
    headers = _bearer(web, course["teacher"])
    too_late = client.post("/api/v1/extensions", json={"student": "bob@example.edu",
                                                        "deadline": "2027-12-21T15:59:00Z"}, headers=headers)
    assert too_late.status_code == 422 and too_late.json["code"] == "extension_too_long"
    assert "2027-12-20 15:59 UTC" in too_late.json["message"]["en"]
    assert "2027-12-20 15:59 UTC" in too_late.json["message"]["zh"]
    assert db.session.query(Extension).count() == 0
    ok = client.post("/api/v1/extensions", json={"student": "bob@example.edu", "deadline": "2027-12-20T15:59:00Z"},
                     headers=headers)
    assert ok.status_code == 201 and ok.json["deadline"] == "2027-12-20T15:59:00Z"


def test_without_a_class_deadline_an_extension_is_bounded_from_now(client, web, course):
    headers = _bearer(web, course["teacher"])
    far = (utcnow() + timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:00Z")
    resp = client.post("/api/v1/extensions", json={"student": "bob@example.edu", "deadline": far}, headers=headers)
    assert resp.status_code == 422 and resp.json["code"] == "extension_too_long"


def test_an_extension_that_ends_before_the_class_deadline_is_refused(client, web, course):
    a = course["assignment"]
    a.deadline = datetime(2026, 12, 20, 15, 59)
    db.session.commit()
    switch(client, web, course["teacher"])
    client.get("/lang/zh")
    resp = client.post("/instructor/extensions", data={"student": "alice@example.edu",
                                                       "deadline": "2026-12-19T15:59"}, follow_redirects=True)
    # Round 23: the class's deadline is named in the course's zone, as the form takes it, and in UTC.
    assert "延期不能早于作业的截止时间（2026-12-20 23:59 Asia/Shanghai = 2026-12-20 15:59 UTC）" in resp.get_data(as_text=True)
    assert db.session.query(Extension).count() == 0


def test_a_class_deadline_moved_past_a_students_extension_leaves_them_the_class_deadline(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow() - timedelta(days=3)
    db.session.commit()
    switch(client, web, course["teacher"])
    client.post("/instructor/extensions", data={"student": "alice@example.edu",
                                                "deadline": (utcnow() - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")})
    assert db.session.query(Extension).count() == 1
    # The class gets a week more; alice's extension (one day more than the old deadline) must not
    # leave her the only one late.
    client.post("/instructor/settings", data=settings_form(
        deadline=(utcnow() + timedelta(days=4)).strftime("%Y-%m-%dT%H:%M")))
    alice = web.submit(course["alice"], audit=False, figure=False)
    bob = web.submit(course["bob"], audit=False, figure=False)
    assert (alice.late_days, bob.late_days) == (0, 0)


def test_the_cli_reads_a_deadline_as_the_pages_do(app, course, monkeypatch):
    import autograder.cli
    from autograder.cli import main

    monkeypatch.setattr(autograder.cli, "_app", lambda: app)
    runner = CliRunner()
    ok = runner.invoke(main, ["assignment", "add", "attention", "--title", "Attention",
                              "--deadline", "2026-12-20T23:59+08:00"])
    assert ok.exit_code == 0, ok.output
    db.session.expire_all()
    assert course["assignment"].deadline == datetime(2026, 12, 20, 15, 59)
    bad = runner.invoke(main, ["assignment", "add", "attention", "--title", "Attention", "--deadline", "9999-12-31T23:59"])
    assert bad.exit_code != 0 and "2000" in bad.output


@pytest.mark.parametrize("sent, stored", [
    ("2026-12-20T24:00+08:00", "2026-12-20T16:00:00Z"),     # "12月20日24:00截止", Beijing time
    ("2026-12-31T24:00:00Z", "2027-01-01T00:00:00Z"),
])
def test_iso_24_00_is_the_end_of_that_day(client, web, course, sent, stored):
    resp = client.post("/api/v1/extensions", json={"student": "bob@example.edu", "deadline": sent},
                       headers=_bearer(web, course["teacher"]))
    assert resp.status_code == 201, resp.json
    assert resp.json["deadline"] == stored


def test_a_date_without_a_time_is_refused_saying_so_rather_than_read_as_its_start(client, web, course):
    resp = client.post("/api/v1/extensions", json={"student": "bob@example.edu", "deadline": "2026-12-20"},
                       headers=_bearer(web, course["teacher"]))
    assert resp.status_code == 422 and resp.json["code"] == "deadline_without_time"
    assert "2026-12-20T23:59+08:00" in resp.json["message"]["en"] and ZH.search(resp.json["message"]["zh"])
    assert db.session.query(Extension).count() == 0
