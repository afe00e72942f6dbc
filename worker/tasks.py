"""Celery tasks. They take ids, never ORM objects, and the database decides what happens."""

from __future__ import annotations

import logging
import uuid

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from flask import current_app

from app.extensions import db
from app.storage import BlobStore
from worker import runs

log = logging.getLogger(__name__)

GRADE_TASK = "autograder.grade"


def enqueue_run(run_id: int, countdown: float | None = None) -> bool:
    """Send the run to the grading queue. A failure is logged, not raised: the run is already
    committed as queued, and the sweeper sends it again when the broker is back."""
    try:
        grade_run.apply_async(args=[run_id], task_id=f"run-{run_id}-{uuid.uuid4().hex[:12]}", countdown=countdown)
        return True
    except Exception as exc:  # noqa: BLE001 - any broker failure must not lose the upload
        log.warning("could not queue run %s (%s); the sweeper will retry", run_id, exc)
        return False


@shared_task(name=GRADE_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def grade_run(run_id: int) -> str:
    from worker.executor import grade_with_warm_executor

    worker = runs.worker_name()
    store = BlobStore(current_app.config["UPLOAD_DIR"])
    inputs = runs.claim(run_id, worker, store)
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
    if result.get("status") == "graded":
        runs.store_result(run_id, worker, result)
        return "graded"
    if runs.requeue_for_retry(run_id, worker, result.get("message") or "grader error"):
        enqueue_run(run_id, countdown=2)
        return "retry"
    return "error"
