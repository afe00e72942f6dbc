"""Celery tasks. They take ids, never ORM objects, and the database decides what happens."""

from __future__ import annotations

import logging
import resource
import time
from collections.abc import Callable
from typing import TypeVar

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from flask import current_app
from sqlalchemy.exc import InterfaceError, OperationalError

from app.extensions import db
from app.models import Status
from app.queue import GRADE_TASK, PRIORITY_FIRST, enqueue_run
from app.storage import BlobStore
from grading.executor import get_executor, grade_with_warm_executor
from worker import runs, spool

log = logging.getLogger(__name__)

T = TypeVar("T")

# A result held in memory gives up this long before the task's soft time limit, which would
# otherwise interrupt it as a failed task.
HELD_MARGIN_S = 5.0


def _with_db_retry(what: str, fn: Callable[[], T], bound_s: float | None = None) -> T:
    """Run a database step, retrying while the database is unreachable (bounded by ``bound_s``,
    DB_RETRY_S by default)."""
    deadline = time.monotonic() + (runs.setting("DB_RETRY_S") if bound_s is None else bound_s)
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


def _cpu_s() -> float:
    """CPU seconds of this pool process and its waited-for children (the forked test process)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _land(what: str, fn: Callable[[], T], run_id: int, worker: str, kind: str, result: dict,
          reason: str | None, started: float) -> tuple[str | None, T | None]:
    """Write a finished grading's outcome with ``fn``: ``(None, fn())`` once it is in the database,
    else ``("kept", None)`` (on this host's disk, stored by the main process when the database
    returns) or ``("lost", None)``."""
    try:
        return None, _with_db_retry(what, fn)
    except (OperationalError, InterfaceError):
        pass
    try:
        spool.keep(run_id, worker, kind, result, reason)
        return "kept", None
    except OSError as exc:
        # The database and this disk are both away (round 34: a full DATA_DIR). The result was
        # dropped and its run, held by this live process, stayed `running` until RUN_DEADLINE_S and
        # was graded again: it is held here instead, while the task's time limit allows.
        log.critical("run %s: result could not be kept on disk either (%s); held in memory until the "
                     "database returns", run_id, exc)
    left = runs.setting("TASK_SOFT_TIME_LIMIT_S") - (time.monotonic() - started) - HELD_MARGIN_S
    try:
        return None, _with_db_retry(what, fn, bound_s=max(0.0, left))
    except (OperationalError, InterfaceError):
        log.critical("run %s: result lost (database and disk away until the task's time limit); it will "
                     "be graded again once its run is taken over", run_id)
        return "lost", None


def _send_next_of_student(run_id: int) -> None:
    """Send the student's next queued run, whose claim may have been deferred while this one ran
    (worker/runs.py: one grading per student at a time). Best effort: the sweeper re-sends any
    queued run without a message after QUEUED_GRACE_S."""
    try:
        following = runs.next_of_student(run_id)
    except (OperationalError, InterfaceError):
        db.session.remove()
        return
    if following is not None:
        enqueue_run(following)


def _zygote_lost(run_id: int, result: dict) -> dict:
    """The sandbox's zygote ended while this grading used it (the OOM killer's first pick, as it
    holds torch; an operator's kill). Its jails died with it, and the tests that were running then
    read as the student's code crashing, and those after it as not run: a grade of the sandbox, not
    of the submission (round 34: a correct file stored with 0). Graded again on a new zygote."""
    log.error("run %s: the sandbox zygote ended during the grading; its result is not kept and the run is "
              "graded again", run_id)
    return {"status": Status.ERROR, "message": "the sandbox ended during the grading (zygote killed)",
            "grader_version": result.get("grader_version"), "log": result.get("log")}


@shared_task(name=GRADE_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def grade_run(run_id: int) -> str:
    """Claim, grade outside any transaction, store once. Every outcome leaves the run either
    finished, queued again with a message on its way, or for the sweeper to find."""
    worker = runs.worker_name()
    started = time.monotonic()
    if spool.holds(run_id):
        return "kept"  # this host keeps its finished result until the database is back
    store = BlobStore(current_app.config["UPLOAD_DIR"])
    try:
        inputs = runs.claim(run_id, worker, store, on_given_up=_send_next_of_student)
    except (OperationalError, InterfaceError) as exc:
        # Nothing was committed: the run is still queued (or still abandoned). Send it again.
        db.session.remove()
        log.warning("run %s: database unavailable at claim (%s); sent again", run_id, exc.__class__.__name__)
        # Its trigger cannot be read either: sent first, so a student's upload never drops behind
        # a class regrade (a regrade run served early once costs nothing).
        enqueue_run(run_id, countdown=runs.setting("DB_DOWN_REQUEUE_S"), priority=PRIORITY_FIRST)
        return "db-unavailable"
    if inputs is None:
        # Already graded, held by a live worker (a duplicate delivery), or deferred while another
        # attempt of the same student is graded (sent again when that one ends).
        return "skipped"
    # Release the connection before the sandbox run: grading must not hold a transaction open.
    db.session.remove()
    cpu_before = _cpu_s()
    executor = None
    try:
        executor = get_executor()  # the one grade_with_warm_executor uses: started, or found alive, now
        result = grade_with_warm_executor(inputs)
    except SoftTimeLimitExceeded:
        result = {"status": Status.ERROR, "message": "grading exceeded the worker time limit"}
    except Exception as exc:
        log.exception("grader crashed on run %s", run_id)
        result = {"status": Status.ERROR, "message": f"grader crashed: {exc.__class__.__name__}: {exc}"}
    if not isinstance(result, dict):
        result = {"status": Status.ERROR, "message": f"grader returned {type(result).__name__}, not a result"}
    if result.get("status") == Status.GRADED and executor is not None and not executor.alive:
        result = _zygote_lost(run_id, result)
    result["cpu_s"] = round(_cpu_s() - cpu_before, 4)
    if result.get("status") == Status.GRADED:
        # Student-caused failures arrive here too: they are grades, never retries.
        # A finished grading is never thrown away: kept on disk, stored when the database is back.
        missed, _ = _land(f"run {run_id} store", lambda: runs.store_result(run_id, worker, result),
                          run_id, worker, spool.STORE, result, None, started)
        if missed:
            return missed
        _send_next_of_student(run_id)
        return Status.GRADED
    reason = result.get("message") or "grader error"
    missed, again = _land(f"run {run_id} retry", lambda: runs.requeue_for_retry(run_id, worker, reason, result),
                          run_id, worker, spool.RETRY, result, reason, started)
    if missed:
        return missed
    _send_next_of_student(run_id)
    if again:
        enqueue_run(run_id, countdown=runs.setting("RETRY_DELAY_S"))
        return "retry"
    return Status.ERROR
