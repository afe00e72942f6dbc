"""A student with many attempts: the instructor's page rendered every attempt in full (code, tests
of every run, audit, forms) and reached 1.9 MB and 1.8 s at 55 attempts (bench/student_page.py).
Older attempts are folded to one line each; the newest ones, the counted one, and the one a link
or a saved form names stay in full, and every attempt can still be shown."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest

from app import regrading
from tests.web.helpers import realistic_result

NOTE = {"en": "older attempt(s) are folded to one line each", "zh": "次提交各折叠为一行"}


def _full(html: str) -> set[int]:
    return {int(n) for n in re.findall(r'<details class="card attempt[^"]*" id="attempt-(\d+)"', html)}


def _folded(html: str) -> set[int]:
    return {int(n) for n in re.findall(r'<section class="card attempt folded[^"]*" id="attempt-(\d+)"', html)}


FULL = 1


@pytest.fixture
def many(web, course, monkeypatch):
    """Alice with FULL + 3 graded attempts, the newest FULL of them shown in full; the second one is
    her best (it counts)."""
    monkeypatch.setattr("app.instructor.FULL_ATTEMPTS", FULL)
    subs = []
    for i in range(FULL + 3):
        sub = web.submit(course["alice"], audit=False, figure=False,
                         now=subs[-1].created_at + timedelta(minutes=1) if subs else None)
        web.grade(sub, realistic_result(fail_mask=i != 1))
        subs.append(sub)
    return subs


def test_older_attempts_are_folded_but_the_counted_and_newest_stay_full(client, web, course, many):
    web.login(client, course["teacher"])
    client.get("/lang/en")
    url = f"/instructor/students/{course['alice'].id}?a={course['assignment'].slug}"
    html = client.get(url).get_data(as_text=True)
    n = len(many)
    newest = set(range(n - FULL + 1, n + 1))
    assert _full(html) == newest | {2}
    assert _folded(html) == set(range(1, n + 1)) - newest - {2}
    assert f"{n} attempt(s)" in html                       # the count is of every attempt
    for lang, note in NOTE.items():
        client.get(f"/lang/{lang}")
        assert note in client.get(url).get_data(as_text=True)
    # A link to one folded attempt shows it in full; show=all shows every one.
    assert 3 in _full(client.get(url + "&show=3").get_data(as_text=True))
    every = client.get(url + "&show=all").get_data(as_text=True)
    assert _full(every) == set(range(1, n + 1)) and not _folded(every)
    # A review saved on a folded attempt returns to it in full.
    saved = client.post(f"/instructor/submissions/{many[0].id}/review",
                        data={"score": "10", "comment": "ok", "a": course["assignment"].slug})
    assert saved.status_code == 302, saved.get_data(as_text=True)[:300]
    assert 1 in _full(client.get(saved.headers["Location"]).get_data(as_text=True))
    # A regrade report links each attempt to itself in full, folded or not.
    batch = regrading.start(course["assignment"], regrading.plan(course["assignment"], "all"), course["teacher"])
    report = unescape(client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True))
    links = set(re.findall(r'href="([^"]*show=(\d+)#attempt-(\d+))"', report))
    assert {(int(shown), int(anchor)) for _, shown, anchor in links} == {(i, i) for i in range(1, n + 1)}
    assert 1 in _full(client.get(next(url for url, shown, _ in links if shown == "1")).get_data(as_text=True))
