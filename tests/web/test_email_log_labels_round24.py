"""Round 24: the course log names what migration 0012 did to stored emails in the reader's language."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import CourseLog


@pytest.mark.parametrize("lang, words", [("en", "duplicate email kept apart at upgrade"),
                                         ("zh", "升级时分开保留的重复邮箱")])
def test_the_course_log_names_the_upgrades_changes_in_the_readers_language(client, web, course, lang, words):
    db.session.add(CourseLog(kind="email_duplicate", student_id=course["bob"].id, subject="email",
                             before="Bob@example.edu", after="Bob@example.edu #2"))
    db.session.commit()
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    html = client.get("/instructor/log").get_data(as_text=True)
    assert words in html and "Bob@example.edu #2" in html
