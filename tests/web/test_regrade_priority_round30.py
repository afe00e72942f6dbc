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


def test_a_broker_without_priorities_is_counted_in_arrival_order_and_the_batch_page_says_so(
        web, factory, course, app):
    """The embedded default's SQLAlchemy transport ignores priorities: a student's upload sent after a
    class regrade does wait behind it there, and neither the position nor the batch page may say otherwise."""
    app.config["CELERY_BROKER_URL"] = "sqla+sqlite:///unused.sqlite"   # read per call; nothing is sent
    _graded_class(web, factory, 3)
    batch = _regrade_all(course["assignment"], course["teacher"])
    upload = web.submit(course["alice"], audit=False, figure=False)
    batch_runs = db.session.query(GradingRun).filter(GradingRun.trigger == batch.trigger).all()
    assert queue_position(upload.latest_run) == len(batch_runs)
    assert queue_positions()[upload.latest_run.id] == len(batch_runs)
    client = app.test_client()
    web.login(client, course["teacher"])
    for lang, says, never in (("en", "graded in the order they were queued", "are graded before the runs"),
                              ("zh", "按进入队列的先后", "先于")):
        client.get(f"/lang/{lang}")
        page = client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
        assert says in page and never not in page
    assert client.get(f"/instructor/regrades/{batch.id}/progress").json["uploads_ahead"] is None
