"""Cancelling a class regrade while a real worker (Celery, Redis, PostgreSQL as deployed) grades it: the run
it holds finishes and is stored, the others are never graded, the worker skips their messages when they
arrive, and their attempts keep their scores and statuses (round 37)."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from app import regrading
from app.extensions import db
from app.models import GradingRun, RegradeBatch, Submission, User
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.factories import Factory
from tests.reliability.helpers import CORRECT
from tests.web.helpers import Web
from tests.workers import running_worker, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]


def test_a_cancel_while_a_worker_grades_keeps_its_run_and_skips_the_rest(rig):
    with rig.app.app_context():
        f = Factory()
        web = Web(rig.app, f)
        a = f.assignment()
        # Each regrade sleeps 3 s at import, so the run the worker holds is still running when the cancel
        # comes (a plain grading's ~0.15 s let it finish first under CI's load: the cancel then found none).
        slow = b"import time\ntime.sleep(3)\n" + CORRECT
        store = BlobStore(rig.app.config["UPLOAD_DIR"])
        subs = [submit(a, f.student(), Upload("attention.py", slow), store=store, max_pending=0)
                for _ in range(6)]
        for sub in subs:
            web.grade(sub)
        before = {s.id: s.latest_graded_run.total for s in subs}
        teacher = f.instructor()
        batch = regrading.start(a, regrading.plan(a, "all"), teacher)
        batch_id, trigger, teacher_id = batch.id, batch.trigger, teacher.id
        db.session.remove()

    def statuses() -> dict[int, str]:
        with rig.app.app_context():
            found = dict(db.session.execute(select(GradingRun.id, GradingRun.status)
                                            .where(GradingRun.trigger == trigger)).all())
            db.session.remove()
            return found

    log = rig.log("cancel")
    # The sleeps sit idle: the idle limits (IDLE_WINDOW_S, round 27) are raised so the gradings are ordinary.
    with running_worker(rig.env(IDLE_WINDOW_S=60, IDLE_TOTAL_S=120), "cancel", concurrency=1, log=log):
        wait_for(lambda: "running" in statuses().values(), 120, what="the worker to take a run of the batch")
        with rig.app.app_context():
            done = regrading.cancel(db.session.get(RegradeBatch, batch_id), db.session.get(User, teacher_id))
            db.session.remove()
        assert done.running >= 1 and done.cancelled >= 1
        wait_for(lambda: all(s == "graded" for s in statuses().values()), 120,
                 what="the runs already taken to finish")
        # Every message of a cancelled run reaches the worker, which skips it (the claim finds no run).
        wait_for(lambda: log.read_text().count("'skipped'") >= done.cancelled, 60,
                 what="the cancelled runs' messages to be skipped")
        time.sleep(2)   # and nothing else is graded afterwards
        left = statuses()
    assert len(left) == 6 - done.cancelled
    with rig.app.app_context():
        graded_by_batch = {r.submission_id for r in db.session.scalars(
            select(GradingRun).where(GradingRun.trigger == trigger))}
        for sub in db.session.scalars(select(Submission).where(Submission.id.in_(list(before)))):
            assert sub.status == "graded"
            if sub.id not in graded_by_batch:     # cancelled: one run, the first grading, as before the batch
                assert [r.trigger for r in sub.runs] == ["submit"]
                assert sub.latest_graded_run.total == before[sub.id]
        db.session.remove()
