"""Results kept on a worker's disk while the database is away land once, and only for their holder."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun
from app.models import TestResult as ResultRow
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.helpers import rubric_result
from tests.reliability.helpers import CORRECT
from worker import runs, spool

pytestmark = [pytest.mark.postgres]

RESULT = rubric_result("attention")


@pytest.fixture
def run_id(app, factory):
    sub = submit(factory.assignment(), factory.student(), Upload("attention.py", CORRECT), store=BlobStore(None))
    return sub.runs[0].id


def test_a_kept_result_is_stored_once_when_flushed_and_blocks_regrading_meanwhile(app, run_id):
    assert runs.claim(run_id, "w:1", BlobStore(None)) is not None
    spool.keep(run_id, "w:1", spool.STORE, dict(RESULT, cpu_s=0.2))
    assert spool.holds(run_id)
    assert spool.flush() == 1 and not spool.holds(run_id) and spool.pending() == []
    assert spool.flush() == 0
    run = db.session.get(GradingRun, run_id)
    assert (run.status, run.total, run.tries, run.cpu_s) == ("graded", RESULT["total"], 1, 0.2)
    assert db.session.scalar(select(func.count()).where(ResultRow.run_id == run_id)) == len(RESULT["tests"])


def test_a_kept_result_of_a_run_taken_over_meanwhile_is_dropped(app, run_id):
    assert runs.claim(run_id, "w:1", BlobStore(None)) is not None
    spool.keep(run_id, "w:1", spool.STORE, RESULT)
    db.session.execute(db.update(GradingRun).where(GradingRun.id == run_id).values(worker="w:2", tries=2))
    db.session.commit()
    assert spool.flush() == 1 and not spool.holds(run_id)
    run = db.session.get(GradingRun, run_id)
    assert (run.status, run.worker) == ("running", "w:2")  # the new holder's result will count
    assert db.session.scalar(select(func.count()).where(ResultRow.run_id == run_id)) == 0
