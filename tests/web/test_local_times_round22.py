"""Round 22: every stored time a page prints is a <time> that app.js shows in the reader's own
time zone (the UTC text one hover away, and labelled UTC without script). The student's result
page printed an instructor's override and audit review "on 2026-12-04 20:14:39": bare UTC, no zone,
beside the page's other times in local time (8 hours off in Beijing); the token list did the same,
and the instructor pages printed their times in UTC (the course log, the extension and override
lists, the regrade batches, the student's attempts and deadline) while the student pages said
local times."""

from __future__ import annotations

import re

from app.extensions import db
from app.models import RegradeBatch, Submission
from tests.helpers import rubric_result

STAMP = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d")


def bare_times(html: str) -> list[str]:
    """Times printed outside a <time data-local> element (what app.js leaves untouched)."""
    body = html.split("<main", 1)[1]
    body = re.sub(r"<time datetime=\"[^\"]+Z\" data-local=\"(?:long|short)\">[^<]*</time>", "", body)
    text = re.sub(r"<[^>]+>", " ", body)                 # attribute values (input values) are not text
    return [text[max(0, m.start() - 50):m.end() + 10].strip() for m in STAMP.finditer(text)]


def test_every_time_on_student_and_instructor_pages_is_shown_in_the_readers_zone(client, web, course):
    teacher, alice = course["teacher"], course["alice"]
    sub = web.submit(alice, course["assignment"])
    web.grade(sub, rubric_result("attention", {"test_hand_example"}))
    web.login(client, teacher)
    client.get("/lang/zh")
    assert client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "test:test_hand_example", "points": "2", "comment": "手算例子的测试有误",
                             "seen": "0"}).status_code == 302
    assert client.post(f"/instructor/submissions/{sub.id}/review",
                       data={"score": "12", "comment": "写得清楚", "seen": "0"}).status_code == 302
    assert client.post("/instructor/extensions", data={"student": alice.email, "extra_days": "2",
                                                       "reason": "生病"}).status_code == 302
    assert client.post("/instructor/regrade", data={"scope": "submission", "submission_id": sub.id,
                                                    "confirm": "1"}).status_code == 302
    batch = db.session.query(RegradeBatch).one()
    pages = {}
    for path in (f"/submissions/{sub.id}", f"/instructor/students/{alice.id}", "/instructor/settings",
                 "/instructor/log", "/instructor/regrades", f"/instructor/regrades/{batch.id}"):
        pages[f"instructor {path}"] = client.get(path).get_data(as_text=True)
    client.post("/logout")
    web.login(client, alice)
    client.get("/lang/en")
    client.post("/account/tokens")
    for path in (f"/submissions/{sub.id}", "/account/tokens"):
        pages[f"student {path}"] = client.get(path).get_data(as_text=True)

    bare = {name: found for name, html in pages.items() if (found := bare_times(html))}
    assert bare == {}
    # and the pages do show these times (the check above would pass on pages that show none)
    shown = {name: html.count("data-local=") for name, html in pages.items()}
    assert all(shown.values()), shown
    assert "手算例子的测试有误" in pages[f"student /submissions/{sub.id}"]
    db.session.expire_all()
    assert db.session.get(Submission, sub.id).audit_review is not None
