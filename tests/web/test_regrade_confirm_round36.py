"""Round 36: the regrade confirmation at a deadline, students still uploading.

The page said "N run(s) will be queued" counting the attempts still waiting for their first grading, for
which no run is queued (round 30), and the confirmation compared the count of the class as it was when
confirmed: every upload between showing the page and confirming it changed the count, and the page
asked again."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun, RegradeBatch


def _shown(client, **data) -> tuple[str, dict]:
    """The confirmation page's text and the fields its form sends."""
    page = client.post("/instructor/regrade", data=data).get_data(as_text=True)
    form = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page))
    form.pop("csrf_token", None)
    return page, form


def _runs_of(submission_id: int) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count(GradingRun.id)).where(GradingRun.submission_id == submission_id))


@pytest.mark.parametrize("scope", ["all", "counting"])
def test_an_upload_after_the_confirmation_page_was_shown_does_not_make_it_ask_again(client, web, course, scope):
    alice = web.submit(course["alice"], audit=False, figure=False)
    web.grade(alice)
    web.login(client, course["teacher"])
    client.get("/lang/en")
    page, form = _shown(client, scope=scope)
    assert "1 run(s) will be queued." in page
    bob = web.submit(course["bob"], audit=False, figure=False)     # uploads while the TA reads the page
    web.grade(bob)                                                  # and is graded, as the queue moves
    resp = client.post("/instructor/regrade", data=form)
    assert resp.status_code == 302 and "/instructor/regrades/" in resp.headers["Location"]
    db.session.expire_all()
    batch = db.session.query(RegradeBatch).one()
    assert batch.runs_queued == 1 and list(batch.before) == [str(alice.id)]
    assert (_runs_of(alice.id), _runs_of(bob.id)) == (2, 1)


def test_a_changed_class_before_the_page_still_asks_again(client, web, course):
    """What the page showed and changed since (an attempt it listed, dropped by its student): asked again."""
    alice = web.submit(course["alice"], audit=False, figure=False)
    web.grade(alice)
    bob = web.submit(course["bob"], audit=False, figure=False)
    web.grade(bob)
    web.login(client, course["teacher"])
    client.get("/lang/en")
    _, form = _shown(client, scope="all")
    assert form["confirm"] == "2"
    assert client.post(f"/instructor/roster/{course['bob'].id}/drop").status_code == 302
    again = client.post("/instructor/regrade", data=form)
    assert again.status_code == 200 and "please confirm again" in again.get_data(as_text=True)
    assert db.session.query(RegradeBatch).count() == 0


@pytest.mark.parametrize(("lang", "queued", "waiting"), [
    ("en", "1 run(s) will be queued.", "1 attempt(s) are still waiting for their first grading"),
    ("zh", "将排队 1 次评分。", "1 次提交仍在等待第一次评分"),
])
def test_the_confirmation_counts_only_the_runs_it_queues(client, web, course, lang, queued, waiting):
    graded = web.submit(course["alice"], audit=False, figure=False)
    web.grade(graded)
    fresh = web.submit(course["bob"], audit=False, figure=False)    # its first grading still queued
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page, form = _shown(client, scope="all")
    assert queued in page and waiting in page
    assert client.post("/instructor/regrade", data=form).status_code == 302
    db.session.expire_all()
    assert db.session.query(RegradeBatch).one().runs_queued == 1
    assert (_runs_of(graded.id), _runs_of(fresh.id)) == (2, 1)
