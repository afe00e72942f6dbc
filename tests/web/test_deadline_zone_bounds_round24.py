"""Round 24: the 2000-2099 bound of a deadline applies to the date as typed, in the zone it was typed in.

It was applied after the conversion to UTC: 2000-01-01T05:00 typed on a course in Asia/Shanghai
(1999-12-31 21:00 UTC) was refused as "not a date from 2000 to 2099", 2099-12-31T23:00-08:00 too,
while 1999-12-31T20:00-08:00 (2000-01-01 04:00 UTC) was taken. Now the years typed decide."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.course import CourseError, parse_deadline
from app.extensions import db
from tests.web.test_course_management import settings_form, switch


@pytest.mark.parametrize("raw, zone, stored", [
    ("2000-01-01T05:00", "Asia/Shanghai", datetime(1999, 12, 31, 21, 0)),
    ("2000-01-01T00:00", "Pacific/Kiritimati", datetime(1999, 12, 31, 10, 0)),
    ("2000-01-01T00:00+08:00", "UTC", datetime(1999, 12, 31, 16, 0)),
    ("2099-12-31T23:00-08:00", "UTC", datetime(2100, 1, 1, 7, 0)),
    ("2099-12-31T23:59", "America/New_York", datetime(2100, 1, 1, 4, 59)),
    ("2000-01-01T00:00", "UTC", datetime(2000, 1, 1)),
])
def test_a_deadline_typed_within_2000_to_2099_is_taken_in_any_zone(app, raw, zone, stored):
    assert parse_deadline(raw, zone) == stored


@pytest.mark.parametrize("raw, zone", [
    ("1999-12-31T20:00-08:00", "UTC"), ("1999-12-31T23:59", "Asia/Shanghai"), ("1999-12-31T23:00", "Asia/Tokyo"),
    ("2100-01-01T00:30+08:00", "UTC"), ("2100-01-01T00:00", "America/New_York"), ("2099-12-31T24:00", "UTC"),
    ("9999-12-31T24:00", "UTC"), ("9999-12-31T24:00+14:00", "Asia/Shanghai"), ("0001-01-01T00:00+08:00", "UTC"),
])
def test_a_deadline_typed_outside_2000_to_2099_is_refused_in_any_zone(app, raw, zone):
    with pytest.raises(CourseError) as refused:
        parse_deadline(raw, zone)
    assert refused.value.code == "deadline_out_of_range"


def test_the_settings_page_takes_the_first_hours_of_2000_in_the_course_zone(client, web, course):
    app_zone = client.application.config["COURSE_TIMEZONE"]
    client.application.config["COURSE_TIMEZONE"] = "Asia/Shanghai"
    try:
        a = course["assignment"]
        switch(client, web, course["teacher"])
        for lang in ("en", "zh"):
            client.get(f"/lang/{lang}")
            resp = client.post("/instructor/settings", data=settings_form(deadline="2000-01-01T05:00"),
                               follow_redirects=True)
            assert resp.status_code == 200
            assert "not a deadline a course can have" not in resp.get_data(as_text=True)
            assert "不是课程可用的截止时间" not in resp.get_data(as_text=True)
        db.session.expire_all()
        assert a.deadline == datetime(1999, 12, 31, 21, 0)
        # Shown again as typed, and saved again unchanged.
        assert 'value="2000-01-01T05:00"' in client.get("/instructor/settings").get_data(as_text=True)
    finally:
        client.application.config["COURSE_TIMEZONE"] = app_zone
