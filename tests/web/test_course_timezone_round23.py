"""Round 23: deadlines are typed in the course's time zone (COURSE_TIMEZONE, default Asia/Shanghai).
Before, the settings page, the extension forms and `autograder assignment add --deadline` read a
typed 2026-12-10T23:59 as UTC: staff in Beijing who meant 23:59 Beijing time set every deadline
8 hours late. Now the inputs are labelled with the zone (zh + en), show the stored value in it,
read a typed value in it (DST-correct, a skipped or repeated local time refused), and store UTC.
The API keeps reading a value without an offset as UTC, as its description says."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from click.testing import CliRunner

from app.config import Config
from app.extensions import db
from app.models import Extension
from autograder import settings
from tests.web.test_course_management import _bearer, settings_form, switch

ZH = re.compile(r"[\u4e00-\u9fff]")


def shown_deadline(page: str, form: str) -> str:
    block = page[page.index(f'id="{form}"'):]
    return re.search(r'name="deadline"(?: value="([^"]*)")?', block).group(1) or ""


def test_a_deadline_typed_on_the_settings_page_is_read_in_beijing_time_and_shown_back(client, web, course):
    a = course["assignment"]
    switch(client, web, course["teacher"])
    resp = client.post("/instructor/settings", data=settings_form(deadline="2026-12-10T23:59"))
    assert resp.status_code == 302
    db.session.expire_all()
    assert a.deadline == datetime(2026, 12, 10, 15, 59)                   # stored in UTC
    page = client.get("/instructor/settings").get_data(as_text=True)
    assert shown_deadline(page, "settings-form") == "2026-12-10T23:59"     # shown back as typed
    assert 'data-tz="Asia/Shanghai"' in page


@pytest.mark.parametrize("lang, labels", [
    ("zh", ("截止时间（北京时间，Asia/Shanghai）", "新的截止时间（北京时间，Asia/Shanghai）")),
    ("en", ("Deadline (Asia/Shanghai)", "New deadline (Asia/Shanghai)"))])
def test_every_deadline_input_is_labelled_with_the_course_zone_in_both_languages(client, web, course, lang, labels):
    switch(client, web, course["teacher"])
    client.get(f"/lang/{lang}")
    settings_page = client.get("/instructor/settings").get_data(as_text=True)
    student_page = client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True)
    assert labels[0] in settings_page and labels[1] in settings_page and labels[1] in student_page
    assert "(UTC)" not in settings_page + student_page and "（UTC）" not in settings_page + student_page


@pytest.mark.parametrize("typed, stored", [("2026-07-01T12:00", datetime(2026, 7, 1, 16, 0)),    # EDT, UTC-4
                                           ("2026-12-10T23:59", datetime(2026, 12, 11, 4, 59)),  # EST, UTC-5
                                           ("2026-03-08T03:00", datetime(2026, 3, 8, 7, 0)),     # just after the gap
                                           ("2026-11-01T00:59", datetime(2026, 11, 1, 4, 59))])  # just before the fold
def test_a_zone_with_daylight_saving_time_reads_each_date_with_its_own_offset(app, client, web, course, typed, stored):
    app.config["COURSE_TIMEZONE"] = "America/New_York"
    a = course["assignment"]
    switch(client, web, course["teacher"])
    client.post("/instructor/settings", data=settings_form(deadline=typed))
    db.session.expire_all()
    assert a.deadline == stored
    page = client.get("/instructor/settings").get_data(as_text=True)
    assert shown_deadline(page, "settings-form") == typed
    client.get("/lang/en")
    assert "Deadline (America/New_York)" in client.get("/instructor/settings").get_data(as_text=True)


@pytest.mark.parametrize("typed, code_words", [
    ("2026-03-08T02:30", ("does not exist in America/New_York", "2026-03-08 03:30", "时区不存在")),
    ("2026-11-01T01:30", ("happens twice in America/New_York", "2026-11-01 05:30 UTC", "出现两次"))])
def test_a_local_time_the_clocks_skip_or_repeat_is_refused_saying_so_not_shifted(app, client, web, course,
                                                                               typed, code_words):
    app.config["COURSE_TIMEZONE"] = "America/New_York"
    a = course["assignment"]
    switch(client, web, course["teacher"])
    en_words, zh_words = code_words[:2], code_words[2]
    for lang, words in (("en", en_words), ("zh", (zh_words,))):
        client.get(f"/lang/{lang}")
        alice = course["alice"]
        for url, data, form in (
                ("/instructor/settings", settings_form(deadline=typed), "settings-form"),
                ("/instructor/extensions", {"student": alice.email, "deadline": typed}, "extension-form"),
                ("/instructor/extensions", {"student": alice.email, "deadline": typed,
                                            "next": f"/instructor/students/{alice.id}"}, "extension-form")):
            resp = client.post(url, data=data)
            page = resp.get_data(as_text=True)
            assert resp.status_code == 422, url                     # refused, not redirected as if saved
            for w in words:
                assert w in page, (url, w)
            assert shown_deadline(page, form) == typed               # what was typed is kept to correct
    db.session.expire_all()
    assert a.deadline is None and db.session.query(Extension).count() == 0


def test_the_api_reads_a_naive_time_as_utc_even_where_the_course_zone_skips_that_wall_time(
        app, client, web, course):
    app.config["COURSE_TIMEZONE"] = "America/New_York"
    resp = client.post("/api/v1/extensions", json={"assignment": "attention", "student": "bob@example.edu",
                                                    "deadline": "2026-03-08T02:30"},
                       headers=_bearer(web, course["teacher"]))
    assert resp.status_code == 201, resp.json                 # the API's naive value is UTC: it exists
    ext = db.session.query(Extension).one()
    assert ext.deadline == datetime(2026, 3, 8, 2, 30)


@pytest.mark.parametrize("form_page", ["settings", "student"])
def test_an_extension_typed_on_either_page_is_read_in_the_course_zone_and_round_trips(client, web, course,
                                                                                      form_page):
    alice = course["alice"]
    switch(client, web, course["teacher"])
    path = "/instructor/settings" if form_page == "settings" else f"/instructor/students/{alice.id}"
    resp = client.post("/instructor/extensions", data={"student": alice.email, "deadline": "2026-12-12T23:59",
                                                        "next": path})
    assert resp.status_code == 302
    ext = db.session.query(Extension).one()
    assert ext.deadline == datetime(2026, 12, 12, 15, 59)
    page = client.get(f"/instructor/students/{alice.id}").get_data(as_text=True)
    shown = shown_deadline(page, "extension-form")
    assert shown == "2026-12-12T23:59"
    # Saving the form as shown keeps the same deadline (no drift of 8 hours per save).
    client.post("/instructor/extensions", data={"student": alice.email, "deadline": shown})
    db.session.expire_all()
    assert db.session.query(Extension).one().deadline == datetime(2026, 12, 12, 15, 59)


def test_saving_the_settings_page_as_shown_changes_nothing_in_a_dst_zone(app, client, web, course):
    app.config["COURSE_TIMEZONE"] = "America/New_York"
    a = course["assignment"]
    a.deadline = datetime(2026, 7, 1, 3, 59, 30)     # seconds the form does not show
    db.session.commit()
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    shown = shown_deadline(client.get("/instructor/settings").get_data(as_text=True), "settings-form")
    assert shown == "2026-06-30T23:59"
    page = client.post("/instructor/settings", data=settings_form(deadline=shown),
                       follow_redirects=True).get_data(as_text=True)
    assert "Nothing changed." in page
    db.session.expire_all()
    assert a.deadline == datetime(2026, 7, 1, 3, 59, 30)


def test_the_api_keeps_reading_a_deadline_without_an_offset_as_utc(client, web, course):
    resp = client.post("/api/v1/extensions", json={"assignment": "attention", "student": "bob@example.edu",
                                                    "deadline": "2026-12-12T23:59"},
                       headers=_bearer(web, course["teacher"]))
    assert resp.status_code == 201, resp.json
    assert resp.json["deadline"] == "2026-12-12T23:59:00Z"


def test_the_cli_reads_a_deadline_without_an_offset_in_the_course_zone_and_says_so(app, course, monkeypatch):
    import autograder.cli
    from autograder.cli import main

    monkeypatch.setattr(autograder.cli, "_app", lambda: app)
    runner = CliRunner()
    assert "COURSE_TIMEZONE" in runner.invoke(main, ["assignment", "add", "--help"]).output
    ok = runner.invoke(main, ["assignment", "add", "attention", "--title", "Attention", "--deadline", "2026-12-20T23:59"])
    assert ok.exit_code == 0, ok.output
    assert "2026-12-20 15:59 UTC (2026-12-20 23:59 Asia/Shanghai)" in ok.output
    db.session.expire_all()
    assert course["assignment"].deadline == datetime(2026, 12, 20, 15, 59)


@pytest.mark.parametrize("name", ["Asia/Shangai", "Beijing", "UTC+8", "../etc/passwd", "asia/shanghai"])
def test_an_unknown_course_timezone_stops_the_start_with_a_message_naming_the_setting(monkeypatch, name):
    monkeypatch.setattr(settings, "COURSE_TIMEZONE", name)
    with pytest.raises(settings.SettingsError, match="COURSE_TIMEZONE.*IANA"):
        Config()


@pytest.mark.parametrize("name", ["Asia/Shanghai", "America/New_York", "UTC", "Europe/Berlin"])
def test_an_iana_course_timezone_is_accepted_at_start(monkeypatch, name):
    monkeypatch.setattr(settings, "COURSE_TIMEZONE", name)
    settings.check()


@pytest.mark.parametrize("lang, words", [("en", "deadline (2026-12-20 23:59 Asia/Shanghai = 2026-12-20 15:59 UTC)"),
                                         ("zh", "截止时间（2026-12-20 23:59 Asia/Shanghai = 2026-12-20 15:59 UTC）")])
def test_a_refused_extension_names_the_class_deadline_in_the_zone_the_form_takes(client, web, course, lang, words):
    a = course["assignment"]
    a.deadline = datetime(2026, 12, 20, 15, 59)
    db.session.commit()
    switch(client, web, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.post("/instructor/extensions", data={"student": "alice@example.edu", "deadline": "2026-12-20T23:00"},
                       follow_redirects=True).get_data(as_text=True)
    assert words in page
    assert db.session.query(Extension).count() == 0


def test_a_refused_settings_form_is_a_422_filled_in_as_typed_and_stores_nothing(client, web, course):
    a = course["assignment"]
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post("/instructor/settings", data=settings_form(deadline="2026-12-10T23:59",
                                                                  late_penalty_percent="150", cooldown_seconds="45"))
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422
    assert "The late penalty must be a percentage from 0 to 100." in page
    assert shown_deadline(page, "settings-form") == "2026-12-10T23:59"
    assert 'name="late_penalty_percent" min="0" max="100" step="any" value="150"' in page
    assert 'name="cooldown_seconds" min="0" max="86400" step="1" value="45"' in page
    db.session.expire_all()
    assert a.deadline is None and a.cooldown_seconds == 0


@pytest.mark.parametrize("stored", [datetime(2026, 11, 1, 5, 30), datetime(2026, 11, 1, 6, 30)])  # both 01:30
def test_a_stored_deadline_whose_wall_time_repeats_does_not_block_saving_the_forms_as_shown(
        app, client, web, course, stored):
    app.config["COURSE_TIMEZONE"] = "America/New_York"
    a, alice = course["assignment"], course["alice"]
    a.deadline = stored
    later = datetime(2026, 11, 1, 6, 30)                # the second 01:30, not before the class's
    db.session.add(Extension(assignment_id=a.id, student_id=alice.id, deadline=later))
    db.session.commit()
    switch(client, web, course["teacher"])
    shown = shown_deadline(client.get("/instructor/settings").get_data(as_text=True), "settings-form")
    assert shown == "2026-11-01T01:30"
    resp = client.post("/instructor/settings", data=settings_form(deadline=shown, late_penalty_percent="20"))
    assert resp.status_code == 302
    student_page = client.get(f"/instructor/students/{alice.id}").get_data(as_text=True)
    ext_shown = shown_deadline(student_page, "extension-form")
    assert ext_shown == "2026-11-01T01:30"
    resp = client.post("/instructor/extensions", data={"student": alice.email, "deadline": ext_shown,
                                                        "reason": "note from the clinic"})
    assert resp.status_code == 302
    db.session.expire_all()
    assert a.deadline == stored and a.late_penalty_per_day == 0.2
    ext = db.session.query(Extension).one()
    assert ext.deadline == later and ext.reason == "note from the clinic"
