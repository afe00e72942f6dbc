"""A queued class regrade can be cancelled (round 37): runs no worker has claimed are cancelled (never
graded; the attempt keeps its score and status), runs already claimed finish and are stored; the page
says how many of each (zh and en). A cancelled run's message still reaches a worker, whose claim skips
it, and nothing stores a result for it; a cancel racing a worker's claims leaves each run either claimed
or cancelled, never both."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import delete, select

from app import regrading
from app.extensions import db
from app.models import Assignment, CourseLog, GradingRun, RegradeBatch, Submission, User
from app.storage import BlobStore
from tests.web.helpers import realistic_result
from tests.web.test_instructor import confirm_regrade
from worker.runs import claim, store_result

FLASH = {"en": ("1 run(s) cancelled before any worker took them", "1 run(s) were already running"),
         "zh": ("1 个评分在任何评分进程取走之前已取消", "1 个评分已在运行")}
NOTE = {"en": "1 run(s) were cancelled before any worker took them", "zh": "1 个评分在任何评分进程取走之前已取消"}


def _batch_runs(batch: RegradeBatch) -> dict[int, GradingRun]:
    return {r.submission_id: r for r in db.session.scalars(
        select(GradingRun).where(GradingRun.trigger == batch.trigger))}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cancel_drops_unclaimed_runs_and_lets_the_claimed_one_finish(client, web, course, lang):
    store = BlobStore(web.app.config["UPLOAD_DIR"])
    alice = web.submit(course["alice"], audit=False, figure=False)
    web.grade(alice, realistic_result())
    bob = web.submit(course["bob"], audit=False, figure=False)
    web.grade(bob, realistic_result(fail_mask=True))
    bob_score = bob.latest_graded_run.total
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    confirm_regrade(client, scope="all", a=course["assignment"].slug)
    batch = db.session.scalars(select(RegradeBatch)).one()
    runs = _batch_runs(batch)
    page = client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
    assert "data-cancel-form" in page
    assert claim(runs[alice.id].id, "worker-a", store) is not None        # a worker took Alice's run
    bob_run = runs[bob.id].id

    resp = client.post(f"/instructor/regrades/{batch.id}/cancel", follow_redirects=True)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 200
    for text in FLASH[lang]:
        assert text in page, text
    assert NOTE[lang] in page
    assert "data-cancel-form" not in page                                  # nothing left to cancel
    db.session.expire_all()
    assert db.session.get(GradingRun, bob_run) is None
    assert db.session.get(RegradeBatch, batch.id).runs_cancelled == 1
    bob = db.session.get(Submission, bob.id)
    assert (bob.status, bob.latest_graded_run.total) == ("graded", bob_score)   # as before the batch
    # The cancelled run's message arrives anyway: the claim skips it, and nothing can store it.
    assert claim(bob_run, "worker-b", store) is None
    assert store_result(bob_run, "worker-b", realistic_result()) is False
    # The claimed run finishes normally.
    assert store_result(runs[alice.id].id, "worker-a", realistic_result()) is True
    assert db.session.get(GradingRun, runs[alice.id].id).status == "graded"
    progress = client.get(f"/instructor/regrades/{batch.id}/progress").json
    assert (progress["cancelled"], progress["total"], progress["pending"]) == (1, 1, 0)
    entry = db.session.scalars(select(CourseLog).where(CourseLog.kind == "regrade_cancel")).one()
    assert entry.after == {"batch": batch.id, "cancelled": 1, "running": 1}
    log = client.get("/instructor/log").get_data(as_text=True)
    assert {"en": "regrade cancelled", "zh": "取消重新评分"}[lang] in log
    listing = client.get("/instructor/regrades").get_data(as_text=True)
    assert {"en": "1 of 1 done", "zh": "1"}[lang] in listing
    assert {"en": "1 cancelled", "zh": "已取消 1 个"}[lang] in listing


def test_cancel_of_a_batch_with_nothing_queued_changes_nothing(client, web, course):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    web.grade(sub, realistic_result(), run=_batch_runs(batch)[sub.id])
    done = regrading.cancel(batch, course["teacher"])
    assert (done.cancelled, done.running) == (0, 0)
    web.login(client, course["teacher"])
    for lang, said in (("en", "No run was left to cancel"), ("zh", "没有可以取消的评分")):
        client.get(f"/lang/{lang}")
        page = client.post(f"/instructor/regrades/{batch.id}/cancel", follow_redirects=True).get_data(as_text=True)
        assert said in page and "0 run(s)" not in page and "0 个评分" not in page
    assert _batch_runs(batch)[sub.id].status == "graded"
    assert db.session.get(RegradeBatch, batch.id).runs_cancelled == 0


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_a_cancel_racing_a_workers_claims_leaves_each_run_claimed_or_cancelled(app, web, factory):
    """PostgreSQL serialises the cancel's guarded DELETE and each claim's guarded UPDATE on a run's row:
    every run ends exactly one way, and the count of running runs the cancel reports is the claims'."""
    a = factory.assignment()
    teacher = factory.instructor()
    subs = []
    for i in range(12):
        sub = web.submit(factory.student(email=f"s{i}@example.edu"), a, audit=False, figure=False)
        web.grade(sub, realistic_result())
        subs.append(sub.id)
    a_id, teacher_id = a.id, teacher.id
    for delay in (0.0, 0.05):   # the cancel at once, and after the worker's first claims
        a, teacher = db.session.get(Assignment, a_id), db.session.get(User, teacher_id)
        batch = regrading.start(a, regrading.plan(a, "all"), teacher)
        run_ids = sorted(r.id for r in _batch_runs(batch).values())
        batch_id = batch.id
        db.session.remove()
        go = threading.Barrier(2)

        def worker(run_ids: list[int] = run_ids, go: threading.Barrier = go) -> list[int]:
            with app.app_context():
                store = BlobStore(app.config["UPLOAD_DIR"])
                go.wait()
                claimed = [run_id for run_id in run_ids if claim(run_id, "race-worker", store) is not None]
                db.session.remove()
                return claimed

        def cancel(batch_id: int = batch_id, go: threading.Barrier = go, delay: float = delay) -> regrading.Cancelled:
            with app.app_context():
                go.wait()
                time.sleep(delay)
                done = regrading.cancel(db.session.get(RegradeBatch, batch_id), db.session.get(User, teacher_id))
                db.session.remove()
                return done

        with ThreadPoolExecutor(2) as pool:
            claiming, cancelling = pool.submit(worker), pool.submit(cancel)
            claimed, done = claiming.result(60), cancelling.result(60)   # re-raises what a thread raised
        left = {r.id: r.status for r in db.session.scalars(select(GradingRun).where(GradingRun.id.in_(run_ids)))}
        assert set(left) == set(claimed)                       # a claimed run is never cancelled, and vice versa
        assert set(left.values()) <= {"running"}
        assert done.cancelled + len(claimed) == len(run_ids)
        assert done.running == len(claimed)
        # Finish the claimed runs, so that the next round starts from graded attempts.
        for run_id in claimed:
            assert store_result(run_id, "race-worker", realistic_result()) is True
        assert all(s.status == "graded" for s in db.session.scalars(select(Submission).where(Submission.id.in_(subs))))
        db.session.remove()


def test_a_claim_that_loses_its_run_to_a_cancel_says_it_was_cancelled(app, web, course, caplog):
    """The worker read the queued run, then the cancel's DELETE took the row before its claim UPDATE: the
    claim waits for the cancel's commit, finds no run, and the log says why (not 'deferred' behind another
    grading of the student, which nothing checked)."""
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    run_id = next(iter(_batch_runs(batch).values())).id
    db.session.remove()
    runs = GradingRun.__table__
    with db.engine.connect() as other:
        tx = other.begin()
        other.execute(delete(runs).where(runs.c.id == run_id))       # the cancel's DELETE, not committed yet
        timer = threading.Timer(0.5, tx.commit)
        timer.start()
        with caplog.at_level(logging.INFO, logger="worker.runs"):
            assert claim(run_id, "worker-a", BlobStore(app.config["UPLOAD_DIR"])) is None
        timer.join()
    assert f"run {run_id} skipped: cancelled before it was claimed" in caplog.text
    assert "deferred" not in caplog.text
