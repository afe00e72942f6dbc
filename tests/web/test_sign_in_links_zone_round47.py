"""Round 47: the sign-in links CSV gave each link's expiry in UTC ("2026-12-06 10:30 UTC") while the file is
named, and every page dates, in the course's zone: a link good until 18:30 in Beijing read as 10:30. The expiry
is the course's wall clock with its zone named."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import SignInLink


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "America/New_York"])
def test_the_links_expiry_is_in_the_courses_zone(app, client, web, course, zone):
    from zoneinfo import ZoneInfo

    app.config["COURSE_TIMEZONE"] = zone
    web.login(client, course["teacher"])
    resp = client.post("/instructor/roster/links", data={"user_id": str(course["bob"].id)})
    [row] = list(csv.DictReader(io.StringIO(resp.data.decode("utf-8-sig"))))
    stored = db.session.query(SignInLink).filter_by(user_id=course["bob"].id).one().expires_at
    local = (stored.replace(tzinfo=ZoneInfo("UTC")).astimezone(ZoneInfo(zone))).replace(tzinfo=None)
    assert row["expires_at"].startswith(f"{local:%Y-%m-%d %H:%M} ") and row["expires_at"].endswith(f" {zone}")
    assert abs(local - stored) >= timedelta(hours=4)  # the zone's offset, not UTC's wall clock
