"""The round 37 web review's findings on the regrade cancel and its neighbours: a cancel racing a worker's
store leaves the attempt with its newest run's status; a student's upload held back behind a cancelled
batch run is sent by the cancel, not by the sweeper; a second cancel says that the runs were cancelled,
not taken; the attempts list reads a bounded number of queries; a similarity report from before round 37
answers left_out null."""

from __future__ import annotations

import re
import threading

import pytest
from flask import current_app
from sqlalchemy import event, select, text

from app import regrading
from app.extensions import db
from app.models import GradingRun, RegradeBatch, SimilarityReport, Status, Submission, User
from app.storage import BlobStore
from tests.web.helpers import realistic_result
from tests.web.test_instructor import confirm_regrade
from worker import runs as wruns


@pytest.fixture
def sent(app, monkeypatch) -> list[int]:
    """The run id of every grading task sent."""
    out: list[int] = []
    monkeypatch.setattr(current_app.extensions["celery"], "send_task",
                        lambda name, args, **kw: out.append(args[0]))
    return out


def _batch_runs(batch: RegradeBatch) -> dict[int, int]:
    return {r.submission_id: r.id for r in db.session.scalars(
        select(GradingRun).where(GradingRun.trigger == batch.trigger))}


def test_a_cancel_waiting_on_a_workers_store_leaves_the_attempt_at_the_stored_runs_status(app, web, course):
    store = BlobStore(app.config["UPLOAD_DIR"])
    s = web.submit(course["alice"], audit=False, figure=False)
    web.grade(s, realistic_result())
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])      # run B queued
    x = regrading.request_regrade(db.session.get(Submission, s.id))               # run X, newer
    xid, sid, bid, tid = x.id, s.id, batch.id, course["teacher"].id
    assert wruns.claim(xid, "worker-x", store) is not None
    db.session.remove()
    # The worker's store of X, uncommitted, holds the submission's row while the cancel runs.
    with db.engine.connect() as other:
        tx = other.begin()
        other.execute(text("update grading_runs set status='graded' where id=:i"), {"i": xid})
        other.execute(text("update submissions set status='graded' where id=:s"), {"s": sid})
        timer = threading.Timer(0.7, tx.commit)
        timer.start()
        try:
            done = regrading.cancel(db.session.get(RegradeBatch, bid), db.session.get(User, tid))
        finally:
            timer.join()
    db.session.remove()
    assert done.cancelled == 1
    assert db.session.get(GradingRun, xid).status == Status.GRADED
    assert db.session.get(Submission, sid).status == Status.GRADED


def test_a_cancel_sends_the_upload_held_back_behind_the_cancelled_batch_run(app, web, course, sent):
    store = BlobStore(app.config["UPLOAD_DIR"])
    alice = course["alice"]
    s1 = web.submit(alice, audit=False, figure=False)
    web.grade(s1, realistic_result())
    s2 = web.submit(alice, audit=False, figure=False)
    web.grade(s2, realistic_result())
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    r1, r2 = _batch_runs(batch)[s1.id], _batch_runs(batch)[s2.id]
    assert wruns.claim(r1, "worker-a", store) is not None
    upload = web.submit(alice, audit=False, figure=False).latest_run.id
    assert wruns.claim(upload, "worker-b", store) is None              # deferred: its message dropped
    assert wruns.store_result(r1, "worker-a", realistic_result())
    assert wruns.next_of_student(r1) == r2                             # the worker sends r2, not the upload
    sent.clear()
    done = regrading.cancel(db.session.get(RegradeBatch, batch.id), course["teacher"])
    assert done.cancelled == 1
    assert sent == [upload]
    assert wruns.claim(r2, "worker-c", store) is None                  # r2's message claims nothing


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_second_cancel_says_the_runs_were_cancelled_not_taken(client, web, course, lang):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    confirm_regrade(client, scope="all", a=course["assignment"].slug)
    batch = db.session.scalars(select(RegradeBatch)).one()
    client.post(f"/instructor/regrades/{batch.id}/cancel")
    page = client.post(f"/instructor/regrades/{batch.id}/cancel", follow_redirects=True).get_data(as_text=True)
    page = re.sub(r"\s+", " ", page)
    said = {"en": "every run of this batch (1) had already been cancelled",
            "zh": "这一批的全部评分（1 个）都已在之前取消"}[lang]
    taken = {"en": "a worker had already taken every run", "zh": "每个评分都已被评分进程取走"}[lang]
    assert said in page
    assert taken not in page


def _queries_of_attempts_list(client, web, course, n: int) -> int:
    alice = course["alice"]
    while db.session.scalar(select(db.func.count(Submission.id)).where(Submission.student_id == alice.id)) < n:
        s = web.submit(alice, audit=False, figure=False)
        web.grade(s, realistic_result())
    web.login(client, alice)
    seen: list[str] = []

    def count(conn, cursor, statement, *args):
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        r = client.get(f"/assignments/{course['assignment'].slug}/attempts")
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    assert r.status_code == 200 and len(r.json["attempts"]) == n
    return len(seen)


def test_the_attempts_list_reads_as_many_queries_for_twelve_attempts_as_for_two(client, web, course):
    two = _queries_of_attempts_list(client, web, course, 2)
    twelve = _queries_of_attempts_list(client, web, course, 12)
    assert twelve == two


def test_a_similarity_report_from_before_round_37_answers_left_out_null(client, web, course):
    report = SimilarityReport(assignment_id=course["assignment"].id, requested_by=course["teacher"].id,
                              status="done", submissions_compared=2, pairs=[], left_out=None)
    db.session.add(report)
    db.session.commit()
    web.login(client, course["teacher"])
    body = client.get("/instructor/similarity/status").json
    assert body["id"] == report.id
    assert body["left_out"] is None


def test_a_workers_store_waiting_on_a_cancel_leaves_the_attempt_at_the_stored_runs_status(app, web, course):
    """The worker's side of the race above: the student's own regrade X is running when a batch queues B, newer;
    the cancel deletes B and holds the submission's row while X's store arrives. The store's sync must read the
    runs after the cancel committed: from its earlier snapshot it wrote B's ``queued`` back, an attempt said
    to be queued with no run queued."""
    store = BlobStore(app.config["UPLOAD_DIR"])
    s = web.submit(course["alice"], audit=False, figure=False)
    web.grade(s, realistic_result())
    x = regrading.request_regrade(db.session.get(Submission, s.id))               # run X
    xid, sid = x.id, s.id
    assert wruns.claim(xid, "worker-x", store) is not None
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    bid = _batch_runs(batch)[sid]                                                  # run B, newer than X
    assert bid > xid
    db.session.remove()
    with db.engine.connect() as other:
        # The cancel, uncommitted: B deleted, the submission's row locked and set from the runs it sees.
        tx = other.begin()
        other.execute(text("delete from grading_runs where id=:b"), {"b": bid})
        other.execute(text("select id from submissions where id=:s for update"), {"s": sid})
        other.execute(text("update submissions set status='running' where id=:s"), {"s": sid})
        timer = threading.Timer(0.7, tx.commit)
        timer.start()
        try:
            assert wruns.store_result(xid, "worker-x", realistic_result())
        finally:
            timer.join()
    db.session.remove()
    assert db.session.get(GradingRun, xid).status == Status.GRADED
    assert db.session.get(Submission, sid).status == Status.GRADED
