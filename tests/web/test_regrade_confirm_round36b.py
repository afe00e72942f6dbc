"""Round 36b: the regrade confirmation keeps what it said of each attempt.

The page said of an attempt still waiting for its first grading that no second run is queued for it; a worker
that claimed that run (running) before the instructor confirmed made it an attempt like any other, and the
confirmation, comparing only the number of attempts, queued a second run for it without asking. The page now
sends the attempts it said get no run, and the confirmation queues none for them."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun, RegradeBatch, Status


def _shown(client, **data) -> tuple[str, dict]:
    page = client.post("/instructor/regrade", data=data).get_data(as_text=True)
    form = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page))
    form.pop("csrf_token", None)
    return page, form


def _runs_of(submission_id: int) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count(GradingRun.id)).where(GradingRun.submission_id == submission_id))


def _claim(submission) -> None:
    """A worker starts the first grading of `submission`."""
    run = db.session.scalars(select(GradingRun).where(GradingRun.submission_id == submission.id)).one()
    run.status = Status.RUNNING.value
    db.session.commit()


def test_an_attempt_the_page_said_gets_no_run_gets_none_once_its_first_grading_started(client, web, course):
    graded = web.submit(course["alice"], audit=False, figure=False)
    web.grade(graded)
    fresh = web.submit(course["bob"], audit=False, figure=False)     # first gradings still queued
    fresher = web.submit(course["bob"], audit=False, figure=False)
    web.login(client, course["teacher"])
    client.get("/lang/en")
    page, form = _shown(client, scope="all")
    assert "1 run(s) will be queued." in page and "2 attempt(s) are still waiting" in page
    _claim(fresh)                                                     # workers take them meanwhile
    _claim(fresher)
    resp = client.post("/instructor/regrade", data=form)
    assert resp.status_code == 302
    db.session.expire_all()
    assert db.session.query(RegradeBatch).one().runs_queued == 1
    assert (_runs_of(graded.id), _runs_of(fresh.id), _runs_of(fresher.id)) == (2, 1, 1)


def test_an_attempt_the_page_said_gets_a_run_still_gets_one(client, web, course):
    """Only what the page said waits is left out: a graded attempt of the same page is regraded."""
    first = web.submit(course["alice"], audit=False, figure=False)
    web.grade(first)
    second = web.submit(course["bob"], audit=False, figure=False)
    web.grade(second)
    web.login(client, course["teacher"])
    _, form = _shown(client, scope="all")
    assert form.get("no_run", "") == ""
    assert client.post("/instructor/regrade", data=form).status_code == 302
    assert (_runs_of(first.id), _runs_of(second.id)) == (2, 2)
