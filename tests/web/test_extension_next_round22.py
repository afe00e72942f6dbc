"""The extension form's `next=` is read as sign-in's is (app.auth.safe_next): a same-site path under
/instructor/. A value with a line break (a hand-edited form, a script) reached the Location header
and was a 500; one with a tab or a backslash after the prefix is not followed."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Extension
from tests.web.test_course_management import switch


@pytest.mark.parametrize("nxt", ["/instructor/\r\nSet-Cookie: x=1", "/instructor/students/1\n", "/instructor/\t/x"])
def test_a_next_with_control_characters_is_never_a_500(client, web, course, nxt):
    switch(client, web, course["teacher"])
    resp = client.post("/instructor/extensions", data={"student": "alice@example.edu", "extra_days": "1", "next": nxt})
    assert resp.status_code == 302
    assert "\n" not in resp.headers["Location"]
    assert not any(v.startswith("x=1") for v in resp.headers.getlist("Set-Cookie"))
    assert db.session.query(Extension).count() == 1


def test_the_student_page_next_is_still_followed(client, web, course):
    switch(client, web, course["teacher"])
    target = f"/instructor/students/{course['alice'].id}?a=attention"
    resp = client.post("/instructor/extensions", data={"student": "alice@example.edu", "extra_days": "1",
                                                       "next": target})
    assert resp.headers["Location"].endswith(target)
