"""A real worker serves a student's upload before the runs of a class regrade queued earlier (the
broker priority of app/queue.py, through kombu's Redis transport as deployed)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app import regrading
from app.extensions import db
from app.models import GradingRun
from tests.factories import Factory
from tests.web.helpers import Web
from tests.workers import running_worker, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]


def test_a_worker_takes_the_students_upload_before_an_earlier_class_regrade(rig):
    with rig.app.app_context():
        f = Factory()
        web = Web(rig.app, f)
        for _ in range(6):
            web.grade(web.submit(f.student(), audit=False, figure=False))
        a = f.assignment()
        batch = regrading.start(a, regrading.plan(a, "all"), f.instructor())
        upload = web.submit(f.student(), audit=False, figure=False).latest_run.id
        trigger = batch.trigger
        db.session.remove()


    def upload_graded() -> bool:
        with rig.app.app_context():
            done = db.session.get(GradingRun, upload).status == "graded"
            db.session.remove()
            return done

    with running_worker(rig.env(), "priority", concurrency=1, log=rig.log("priority")):
        wait_for(upload_graded, 120, what="the student's upload to be graded")
    with rig.app.app_context():
        runs = db.session.scalars(select(GradingRun).where(GradingRun.trigger == trigger)).all()
        mine = db.session.get(GradingRun, upload)
        assert len(runs) == 6
        # One worker, one run at a time: every regrade run started after the upload's, if at all.
        assert all(r.started_at is None or r.started_at > mine.started_at for r in runs), \
            [(r.id, r.started_at) for r in runs] + [("upload", mine.started_at)]
        db.session.remove()
