"""Round 29: a one-time sign-in link signs in as the password does, with a fresh session.

The link's POST called login_user on the session as it was: whatever it held survived (the CSRF token,
another account's keys on a shared lab computer), and with no sign-in time end_expired_sessions took it
for a session restored from a remember-me cookie, so it lived REMEMBER_COOKIE_DAYS, not SESSION_MAX_HOURS."""

from __future__ import annotations

import time

from app.auth import REMEMBERED, SIGNED_IN_AT
from app.roster import issue_links
from tests.web.test_course_management import forget_cached_user


def link_token(course) -> str:
    [link] = issue_links([course["bob"]], course["teacher"], "http://localhost/")
    return link["url"].rsplit("/", 1)[-1]


def test_a_link_sign_in_starts_a_fresh_session(app, client, web, course):
    web.login(client, course["alice"])          # a shared lab computer: someone else is still signed in
    with client.session_transaction() as s:
        s["csrf_token"], s["planted"] = "known-to-an-attacker", 1
    forget_cached_user()
    assert client.post(f"/signin/{link_token(course)}").status_code == 302
    with client.session_transaction() as s:
        assert s["_user_id"] == course["bob"].get_id()
        assert "planted" not in s and s.get("csrf_token") != "known-to-an-attacker"
        assert s[REMEMBERED] is False and abs(s[SIGNED_IN_AT] - time.time()) < 60


def test_a_link_session_ends_after_session_max_hours_like_a_password_session(app, client, web, course):
    assert client.post(f"/signin/{link_token(course)}").status_code == 302
    forget_cached_user()
    assert client.get("/").status_code == 200
    with client.session_transaction() as s:   # as if signed in SESSION_MAX_HOURS and a minute ago
        s[SIGNED_IN_AT] = s[SIGNED_IN_AT] - app.config["SESSION_MAX_HOURS"] * 3600 - 60
    forget_cached_user()
    ended = client.get("/")
    assert ended.status_code == 302 and "/login" in ended.headers["Location"]
