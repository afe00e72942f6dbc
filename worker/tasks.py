"""Celery tasks. They take ids, never ORM objects, and the database decides what happens."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from flask import current_app
from sqlalchemy.exc import InterfaceError, OperationalError

from app.extensions import db
from app.storage import BlobStore
from worker import runs

log = logging.getLogger(__name__)

GRADE_TASK = "autograder.grade"
T = TypeVar("T")


def enqueue_run(run_id: int, countdown: float | None = None) -> bool:
    """Send the run to the grading queue. A failure is logged, not raised: the run is already
    committed as queued, and the sweeper sends it again when the broker is back."""
    try:
        # Through the current Flask app's Celery app: its broker, whichever app is default.
        current_app.extensions["celery"].send_task(
            GRADE_TASK, args=[run_id], task_id=f"run-{run_id}-{uuid.uuid4().hex[:12]}", countdown=countdown
        )
        return True
    except Exception as exc:  # noqa: BLE001 - any broker failure must not lose the upload
        log.warning("could not queue run %s (%s); the sweeper will retry", run_id, exc)
        return False


# How long a worker keeps trying to reach the database to store a finished grading.
DB_RETRY_S = 60.0
# When a run cannot even be claimed because the database is away, it is sent again after this.
DB_DOWN_REQUEUE_S = 5.0


def _with_db_retry(what: str, fn: Callable[[], T]) -> T:
    """Run a database step, retrying while the database is unreachable (bounded by DB_RETRY_S)."""
    deadline = time.monotonic() + runs.setting("DB_RETRY_S", DB_RETRY_S)
    pause = 0.5
    while True:
        try:
            return fn()
        except (OperationalError, InterfaceError) as exc:
            db.session.remove()
            if time.monotonic() + pause > deadline:
                raise
            log.warning("%s: database unavailable (%s), retrying in %.1f s", what, exc.__class__.__name__, pause)
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


@shared_task(name=GRADE_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def grade_run(run_id: int) -> str:
    """Claim, grade outside any transaction, store once. Every outcome leaves the run either
    finished, queued again with a message on its way, or for the sweeper to find."""
    from worker.executor import grade_with_warm_executor

    worker = runs.worker_name()
    store = BlobStore(current_app.config["UPLOAD_DIR"])
    try:
        inputs = runs.claim(run_id, worker, store)
    except (OperationalError, InterfaceError) as exc:
        # Nothing was committed: the run is still queued (or still abandoned). Send it again.
        db.session.remove()
        log.warning("run %s: database unavailable at claim (%s); sent again", run_id, exc.__class__.__name__)
        enqueue_run(run_id, countdown=runs.setting("DB_DOWN_REQUEUE_S", DB_DOWN_REQUEUE_S))
        return "db-unavailable"
    if inputs is None:
        return "skipped"  # already graded, or held by a live worker: a duplicate delivery
    # Release the connection before the sandbox run: grading must not hold a transaction open.
    db.session.remove()
    try:
        result = grade_with_warm_executor(inputs)
    except SoftTimeLimitExceeded:
        result = {"status": "error", "message": "grading exceeded the worker time limit"}
    except Exception as exc:  # noqa: BLE001 - a grader crash is retried, never silently lost
        log.exception("grader crashed on run %s", run_id)
        result = {"status": "error", "message": f"grader crashed: {exc.__class__.__name__}: {exc}"}
    if not isinstance(result, dict):
        result = {"status": "error", "message": f"grader returned {type(result).__name__}, not a result"}
    if result.get("status") == "graded":
        # Student-caused failures arrive here too: they are grades, never retries.
        _with_db_retry(f"run {run_id} store", lambda: runs.store_result(run_id, worker, result))
        return "graded"
    reason = result.get("message") or "grader error"
    if _with_db_retry(f"run {run_id} retry", lambda: runs.requeue_for_retry(run_id, worker, reason, result)):
        enqueue_run(run_id, countdown=runs.setting("RETRY_DELAY_S", 2.0))
        return "retry"
    return "error"
