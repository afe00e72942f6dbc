"""Round 46: what an instructor met on the course pages, walked in Chromium in zh and en.

- The dashboard marked a late counted attempt "+2d" on zh pages too (an English abbreviation in the zh table).
- /instructor/tests/<id> for a test the suite does not have (a mistyped or old link) answered 200 "0 of 5
  students fail this test ... Nobody fails this test.": a claim about a test nobody ran.
- The sign-in links CSV was named by the server's clock (UTC in the container), so links issued at 00:30 in
  Beijing were filed under the day before; the gradebook exports are named in the course's zone since round 34.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from app.extensions import db
from app.models import utcnow
from tests.web.helpers import realistic_result


def _late_counted_attempt(web, course) -> None:
    a = course["assignment"]
    a.deadline = utcnow() - timedelta(days=2, hours=1)
    db.session.commit()
    web.grade(web.submit(course["alice"], a), realistic_result())


def test_the_dashboard_names_a_late_counted_attempt_in_the_readers_language(client, web, course):
    _late_counted_attempt(web, course)
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    zh = client.get("/instructor/").get_data(as_text=True)
    row = re.search(r"alice@example\.edu.*?</tr>", zh, re.S).group(0)
    assert "迟交 3 天" in row
    assert not re.search(r"\+\d+d\b", row), row
    client.get("/lang/en")
    en = client.get("/instructor/").get_data(as_text=True)
    assert "3 day(s) late" in re.search(r"alice@example\.edu.*?</tr>", en, re.S).group(0)


def test_a_test_the_suite_does_not_have_is_not_found_rather_than_passed_by_everyone(client, web, course):
    web.grade(web.submit(course["alice"], course["assignment"]), realistic_result())
    web.login(client, course["teacher"])
    for lang in ("zh", "en"):
        client.get(f"/lang/{lang}")
        assert client.get("/instructor/tests/test_that_does_not_exist").status_code == 404
    # a test of the suite, passed by everyone, still has its page
    page = client.get("/instructor/tests/test_row_sums_are_one")
    assert page.status_code == 200
    assert "Nobody fails this test." in page.get_data(as_text=True)


def test_a_test_only_an_older_grader_ran_keeps_its_page(client, web, course):
    """A counted attempt graded before a test was renamed still has that test's result: its page stays."""
    result = realistic_result()
    old = dict(result["tests"][0], id="test_renamed_since")
    result["tests"] = [*result["tests"], old]
    web.grade(web.submit(course["alice"], course["assignment"]), result)
    web.login(client, course["teacher"])
    assert client.get("/instructor/tests/test_renamed_since").status_code == 200


def test_the_sign_in_links_file_is_named_by_the_courses_date(client, web, course, monkeypatch):
    # 2026-12-05 16:30 UTC is 2026-12-06 00:30 in Asia/Shanghai (the default COURSE_TIMEZONE).
    import app.instructor as instructor

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            moment = datetime(2026, 12, 5, 16, 30, tzinfo=UTC)
            return moment.astimezone(tz) if tz else moment.replace(tzinfo=None)

    monkeypatch.setattr(instructor, "datetime", Clock)
    web.login(client, course["teacher"])
    resp = client.post("/instructor/roster/links", data={"user_id": str(course["bob"].id)})
    assert resp.status_code == 200, resp.data[:300]
    assert 'filename="sign-in-links-20261206-0030.csv"' in resp.headers["Content-Disposition"]


def test_the_course_log_lists_the_sign_in_links_addresses_as_a_list_of_the_readers_language(client, web, course):
    web.login(client, course["teacher"])
    ids = [str(course["alice"].id), str(course["bob"].id)]
    assert client.post("/instructor/roster/links", data={"user_id": ids}).status_code == 200
    client.get("/lang/zh")
    zh = client.get("/instructor/log").get_data(as_text=True)
    assert "alice@example.edu、bob@example.edu" in zh
    client.get("/lang/en")
    assert "alice@example.edu, bob@example.edu" in client.get("/instructor/log").get_data(as_text=True)
