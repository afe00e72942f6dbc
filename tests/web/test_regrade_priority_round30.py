"""A class regrade queued just before a deadline must not make a student's new upload wait behind
it. Runs were sent to one FIFO list and positions counted every queued run before: the upload of
a student after a 300-run regrade waited (and was shown) behind all 300. A class regrade's runs
now go at a lower broker priority, and queue positions count what a worker takes first."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import current_app

from app import regrading
from app.extensions import db
from app.models import GradingRun
from app.queue import PRIORITY_BATCH, PRIORITY_FIRST, enqueue_run, queue_position, queue_positions
from worker import sweeper


@pytest.fixture
def sent(app, monkeypatch):
    """(run id, priority) of every grading task sent."""
    out: list[tuple[int, int | None]] = []
    celery = current_app.extensions["celery"]
    monkeypatch.setattr(celery, "send_task",
                        lambda name, args, **kw: out.append((args[0], kw.get("priority"))))
    return out


def _graded_class(web, factory, n):
    students = [factory.student(email=f"s{i}@example.edu") for i in range(n)]
    for s in students:
        web.grade(web.submit(s, audit=False, figure=False))
    return students


def _regrade_all(assignment, teacher):
    return regrading.start(assignment, regrading.plan(assignment, "all"), teacher)


def test_a_students_upload_is_not_placed_behind_a_class_regrade(web, factory, course):
    _graded_class(web, factory, 3)
    batch = _regrade_all(course["assignment"], course["teacher"])
    first = web.submit(course["alice"], audit=False, figure=False)
    later = web.submit(course["bob"], audit=False, figure=False, now=first.created_at + timedelta(seconds=1))
    assert queue_position(first.latest_run) == 0
    assert queue_position(later.latest_run) == 1
    # The regrade's runs wait behind both uploads, in the order they were queued.
    batch_runs = db.session.query(GradingRun).filter(GradingRun.trigger == batch.trigger).order_by(GradingRun.id).all()
    assert [queue_position(r) for r in batch_runs] == [2 + i for i in range(len(batch_runs))]


def test_the_page_positions_agree_with_the_single_position(web, factory, course):
    _graded_class(web, factory, 3)
    _regrade_all(course["assignment"], course["teacher"])
    web.submit(course["alice"], audit=False, figure=False)
    positions = queue_positions()
    queued = db.session.query(GradingRun).filter(GradingRun.id.in_(positions)).all()
    assert positions == {r.id: queue_position(r) for r in queued}
    assert sorted(positions.values()) == list(range(len(queued)))


def test_every_way_a_run_is_sent_keeps_its_priority(web, factory, course, sent, app):
    _graded_class(web, factory, 2)
    sent.clear()
    batch = _regrade_all(course["assignment"], course["teacher"])
    upload = web.submit(course["alice"], audit=False, figure=False)
    batch_ids = {r.id for r in db.session.query(GradingRun).filter(GradingRun.trigger == batch.trigger)}
    assert {p for i, p in sent if i in batch_ids} == {PRIORITY_BATCH}
    assert (upload.latest_run.id, PRIORITY_FIRST) in sent
    # Re-sent without a priority (a retry, the student's next run): read from the run's trigger.
    sent.clear()
    for run_id in [*batch_ids, upload.latest_run.id]:
        enqueue_run(run_id)
    assert dict(sent) == {**dict.fromkeys(batch_ids, PRIORITY_BATCH), upload.latest_run.id: PRIORITY_FIRST}
    # The sweeper re-sending lost runs (no broker to look into: every old queued run is lost).
    sent.clear()
    db.session.query(GradingRun).filter(GradingRun.status == "queued").update(
        {GradingRun.queued_at: GradingRun.queued_at - timedelta(hours=1)})
    db.session.commit()
    assert set(sweeper.sweep()) == batch_ids | {upload.latest_run.id}
    assert dict(sent) == {**dict.fromkeys(batch_ids, PRIORITY_BATCH), upload.latest_run.id: PRIORITY_FIRST}
