"""Mend round 47: a sign-in link's expiry names its UTC offset, so the two 01:30s of a night the clocks go back
(America/New_York, 2026-11-01) read apart."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.roster import _course_time


@pytest.mark.parametrize(("stored", "shown"), [
    (datetime(2026, 11, 1, 5, 30), "2026-11-01 01:30 -04:00 America/New_York"),   # before the clocks go back
    (datetime(2026, 11, 1, 6, 30), "2026-11-01 01:30 -05:00 America/New_York"),   # the same wall time, an hour on
])
def test_an_expiry_at_the_fall_back_hour_names_its_offset(app, stored, shown):
    app.config["COURSE_TIMEZONE"] = "America/New_York"
    with app.app_context():
        assert _course_time(stored) == shown


def test_a_shanghai_expiry_names_plus_eight(app):
    app.config["COURSE_TIMEZONE"] = "Asia/Shanghai"
    with app.app_context():
        assert _course_time(datetime(2026, 12, 8, 10, 30)) == "2026-12-08 18:30 +08:00 Asia/Shanghai"
