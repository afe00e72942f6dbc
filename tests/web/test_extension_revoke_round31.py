"""Round 31: removing an extension that is no longer there (a second click, a page older than
another instructor's removal) redirected without a word, so the old page's row read as removed
just now. It now says nothing was removed, in zh and en."""

from __future__ import annotations

from app import course as course_rules
from app.extensions import db

SAID = {"en": "has no extension for this assignment: nothing was removed.",
        "zh": "在这份作业上没有延期：没有取消任何内容。"}


def test_removing_an_extension_twice_says_the_second_time_that_nothing_was_removed(client, web, course):
    a, alice = course["assignment"], course["alice"]
    course_rules.grant_extension(a, alice, course["teacher"], deadline=None, extra_days=2, reason="ill")
    db.session.commit()
    web.login(client, course["teacher"])
    url = f"/instructor/extensions/{alice.id}/revoke?a={a.slug}"
    client.get("/lang/en")
    first = client.post(url, follow_redirects=True).get_data(as_text=True)
    assert "Extension removed for" in first and SAID["en"] not in first
    for lang, text in SAID.items():
        client.get(f"/lang/{lang}")
        again = client.post(url, follow_redirects=True).get_data(as_text=True)
        assert text in again, lang
