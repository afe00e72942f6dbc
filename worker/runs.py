"""The life of a grading run in the database: claim, grade outside any transaction, store once.

Every step is a guarded UPDATE, so a redelivered or duplicated task can never produce a second
result for the same run, and a run abandoned by a dead worker can be taken over.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update

from app.extensions import db
from app.models import GradingRun, Status, Submission, TestResult, WorkerHeartbeat, utcnow
from app.storage import BlobStore

log = logging.getLogger(__name__)

MAX_TRIES = 3
HEARTBEAT_STALE = timedelta(seconds=30)


@dataclass(frozen=True)
class RunInputs:
    run_id: int
    submission_id: int
    suite: str
    code: bytes
    audit: bytes | None
    audit_filename: str | None
    figure: bytes | None
    figure_filename: str | None


def worker_name() -> str:
    return f"{socket.gethostname()}:{__import__('os').getpid()}"


def _dead_workers_clause(now):  # noqa: ANN001, ANN202
    alive = select(WorkerHeartbeat.hostname).where(WorkerHeartbeat.last_seen >= now - HEARTBEAT_STALE)
    return or_(GradingRun.worker.is_(None), GradingRun.worker.not_in(alive))


def claim(run_id: int, worker: str, store: BlobStore) -> RunInputs | None:
    """Take the run if it is queued, or running on a worker that stopped beating. Else None."""
    now = utcnow()
    res = db.session.execute(
        update(GradingRun)
        .where(
            GradingRun.id == run_id,
            or_(
                GradingRun.status == Status.QUEUED.value,
                and_(GradingRun.status == Status.RUNNING.value, _dead_workers_clause(now)),
            ),
        )
        .values(status=Status.RUNNING.value, started_at=now, worker=worker, tries=GradingRun.tries + 1)
        .execution_options(synchronize_session=False)
    )
    if res.rowcount != 1:
        db.session.rollback()
        return None
    db.session.expire_all()
    run = db.session.get(GradingRun, run_id)
    sub = run.submission
    sub.status = Status.RUNNING.value
    db.session.commit()
    return RunInputs(
        run_id=run.id,
        submission_id=sub.id,
        suite=sub.assignment.suite,
        code=store.get(sub.code_sha256),
        audit=store.get(sub.audit_sha256) if sub.audit_sha256 else None,
        audit_filename=sub.audit_filename,
        figure=store.get(sub.figure_sha256) if sub.figure_sha256 else None,
        figure_filename=sub.figure_filename,
    )


def store_result(run_id: int, worker: str, result: dict[str, Any]) -> bool:
    """Write the result if this worker still holds the run. Returns False for a stale holder."""
    now = utcnow()
    graded = result.get("status") == "graded"
    values: dict[str, Any] = dict(
        status=Status.GRADED.value if graded else Status.ERROR.value,
        status_reason=None if graded else (result.get("message") or "grader error"),
        finished_at=now,
        grader_version=result.get("grader_version"),
        result=result,
        log_excerpt=(result.get("log") or "")[-20000:],
    )
    if graded:
        values.update(
            total=result["total"],
            max_total=result["max_total"],
            categories=result["categories"],
        )
    res = db.session.execute(
        update(GradingRun)
        .where(GradingRun.id == run_id, GradingRun.status == Status.RUNNING.value, GradingRun.worker == worker)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if res.rowcount != 1:
        db.session.rollback()
        log.warning("run %s no longer held by %s; result dropped", run_id, worker)
        return False
    db.session.expire_all()
    if graded:
        db.session.add_all(
            TestResult(
                run_id=run_id,
                test_id=t["id"],
                category=t["category"],
                outcome=t["outcome"],
                points=t["points"],
                max_points=t["max_points"],
                hidden=bool(t.get("hidden")),
                feedback=t.get("feedback") or "",
            )
            for t in result.get("tests", [])
        )
    _sync_submission_status(run_id)
    db.session.commit()
    return True


def requeue_for_retry(run_id: int, worker: str, reason: str) -> bool:
    """A grader failure: back to queued while tries remain, else error with the reason."""
    run = db.session.get(GradingRun, run_id)
    if run is None or run.status != Status.RUNNING.value or run.worker != worker:
        db.session.rollback()
        return False
    if run.tries < MAX_TRIES:
        run.status, run.status_reason, run.worker = Status.QUEUED.value, reason, None
        run.queued_at = utcnow()
        again = True
    else:
        run.status, run.status_reason, run.finished_at = Status.ERROR.value, reason, utcnow()
        again = False
    _sync_submission_status(run_id)
    db.session.commit()
    return again


def _sync_submission_status(run_id: int) -> None:
    """A submission shows the state of its newest run."""
    db.session.flush()
    run = db.session.get(GradingRun, run_id)
    sub: Submission = run.submission
    newest = db.session.scalar(
        select(GradingRun).where(GradingRun.submission_id == sub.id).order_by(GradingRun.id.desc()).limit(1)
    )
    sub.status = newest.status
