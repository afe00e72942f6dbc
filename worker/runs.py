"""The life of a grading run in the database: claim, grade outside any transaction, store once.

Every step is a guarded UPDATE (or a row-locked read-modify-write), so a redelivered or duplicated
task can never produce a second result for the same run, and a run abandoned by a dead worker can
be taken over, at most ``MAX_TRIES`` times in all.

A run counts as *abandoned* when it is ``running`` and

* its worker is not beating (no heartbeat newer than ``HEARTBEAT_STALE_S``) and the claim is older
  than that window, or
* its worker's heartbeat row belongs to a process started after the claim (a reused ``host:pid``,
  pids wrap at 32768 on many hosts), or
* its worker is a process of this host that no longer exists (detected at once, without waiting
  for the heartbeat to go stale), or
* it has been running longer than any task may live (the Celery hard time limit plus a margin):
  the task is gone even though its worker may still be beating (e.g. the database was away
  when it tried to store the result).

The local-pid rule assumes a hostname names one machine or container (pool processes beat as
``host:pid``); were two hosts to share a name, a live run might be taken over needlessly, which
costs a second grading but never a second result (only the current holder may store).

Tunables (environment, or the Flask config key of the same name): ``HEARTBEAT_STALE_S`` (30),
``MAX_TRIES`` (3), ``RUN_DEADLINE_S`` (hard time limit + 60).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import ColumnElement, and_, exists, false, or_, select, update

from app.clock import db_now
from app.extensions import db
from app.models import GradingRun, Status, Submission, TestResult, WorkerHeartbeat
from app.storage import BlobStore
from autograder import settings
from grading.i18n import encode

log = logging.getLogger(__name__)

def setting(name: str) -> float:
    """A numeric tunable: the Flask config wins (tests and deployments tune it per app), then
    `autograder.settings`, which already read the environment."""
    if has_app_context() and current_app.config.get(name) is not None:
        return float(current_app.config[name])
    return float(getattr(settings, name))


def max_tries() -> int:
    return int(setting("MAX_TRIES"))


def heartbeat_stale_s() -> float:
    return setting("HEARTBEAT_STALE_S")


def run_deadline_s() -> float:
    return setting("RUN_DEADLINE_S")


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
    audit_text: str | None = None       # extracted at upload: the worker does not parse it again


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")  # a killed, not yet reaped process is dead
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def local_dead_workers(names: Iterable[str | None]) -> list[str]:
    """The names among ``names`` that are processes of this host which no longer exist."""
    host = socket.gethostname()
    dead = []
    for name in set(n for n in names if n):
        h, _, pid = name.rpartition(":")
        if h == host and pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            dead.append(name)
    return dead


def abandoned_clause(dead: Iterable[str] = ()) -> ColumnElement[bool]:
    """SQL: this (running) run has no live task any more. See the module docstring.

    Every age is measured with the database's clock (app/clock.py), never this host's."""
    stale_before = db_now(-heartbeat_stale_s())
    holder_alive = exists().where(
        WorkerHeartbeat.hostname == GradingRun.worker,
        WorkerHeartbeat.last_seen >= stale_before,
        # A heartbeat of a process started after the claim is a reused name, not the holder.
        WorkerHeartbeat.started_at <= GradingRun.started_at,
    )
    dead = list(dead)
    return or_(
        GradingRun.worker.is_(None),
        GradingRun.started_at.is_(None),
        GradingRun.worker.in_(dead) if dead else false(),
        and_(GradingRun.started_at < stale_before, ~holder_alive),
        GradingRun.started_at < db_now(-run_deadline_s()),
    )


def claim(run_id: int, worker: str, store: BlobStore) -> RunInputs | None:
    """Take the run if it is queued, or abandoned with tries left. Else None.

    An abandoned run without tries left is closed as ``error`` here (and by the sweeper)."""
    holder = db.session.scalar(
        select(GradingRun.worker).where(GradingRun.id == run_id, GradingRun.status == Status.RUNNING.value)
    )
    dead = local_dead_workers([holder])
    res = db.session.execute(
        update(GradingRun)
        .where(
            GradingRun.id == run_id,
            or_(
                GradingRun.status == Status.QUEUED.value,
                and_(
                    GradingRun.status == Status.RUNNING.value,
                    GradingRun.tries < max_tries(),
                    # A pool process runs one task at a time, so a run held under its own name is
                    # a claim whose commit reply was lost (database outage) or a task of this
                    # process that ended without storing: nobody else is grading it.
                    or_(abandoned_clause(dead), GradingRun.worker == worker),
                ),
            ),
        )
        .values(status=Status.RUNNING.value, started_at=db_now(), worker=worker, tries=GradingRun.tries + 1)
        .execution_options(synchronize_session=False)
    )
    if res.rowcount != 1:
        db.session.rollback()
        give_up_exhausted(run_ids=[run_id], dead=dead)
        return None
    db.session.expire_all()
    run = db.session.get(GradingRun, run_id)
    sub = run.submission
    sub.status = Status.RUNNING.value
    suite = sub.assignment.suite
    db.session.commit()
    if holder is not None:
        log.warning("run %s taken over from %s (try %s)", run_id, holder, run.tries)
    try:
        return RunInputs(
            run_id=run.id,
            submission_id=sub.id,
            suite=suite,
            code=store.get(sub.code_sha256),
            audit=store.get(sub.audit_sha256) if sub.audit_sha256 else None,
            audit_filename=sub.audit_filename,
            figure=store.get(sub.figure_sha256) if sub.figure_sha256 else None,
            figure_filename=sub.figure_filename,
            audit_text=sub.audit_text,
        )
    except (OSError, ValueError) as exc:
        # Our infrastructure lost the files: a grader failure, retried and then reported.
        log.error("run %s: submission files unreadable: %s", run_id, exc)
        requeue_for_retry(run_id, worker, f"submission files unreadable: {exc}")
        return None


def give_up_exhausted(run_ids: list[int] | None = None, dead: Iterable[str] = ()) -> list[int]:
    """Close abandoned runs that have used all their tries as ``error``; returns their ids."""
    limit = max_tries()
    query = (
        update(GradingRun)
        .where(
            GradingRun.status == Status.RUNNING.value,
            GradingRun.tries >= limit,
            abandoned_clause(dead),
        )
        .values(
            status=Status.ERROR.value,
            finished_at=db_now(),
            status_reason=(
                f"grading was interrupted {limit} times (the worker died or hit the time limit); "
                "an instructor can regrade it"
            ),
        )
        .returning(GradingRun.id)
        .execution_options(synchronize_session=False)
    )
    if run_ids is not None:
        query = query.where(GradingRun.id.in_(run_ids))
    closed = list(db.session.execute(query).scalars())
    for run_id in closed:
        log.error("run %s gave up after %s interrupted tries", run_id, limit)
        _sync_submission_status(run_id)
    db.session.commit()
    return closed


def store_result(run_id: int, worker: str, result: dict[str, Any]) -> bool:
    """Write the result if this worker still holds the run. Returns False for a stale holder.

    The run's status, its result and its TestResult rows are one transaction: a duplicate
    delivery, a retry after a lost commit acknowledgement, or a takeover can never add rows."""
    graded = result.get("status") == Status.GRADED
    values: dict[str, Any] = dict(
        status=Status.GRADED.value if graded else Status.ERROR.value,
        status_reason=None if graded else (result.get("message") or "grader error"),
        finished_at=db_now(),
        grader_version=result.get("grader_version"),
        result=result,
        log_excerpt=(result.get("log") or "")[-20000:],
        cpu_s=result.get("cpu_s"),
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
                feedback=encode(t.get("feedback")),  # a {"en","zh"} message is stored as JSON text
            )
            for t in result.get("tests", [])
        )
    _sync_submission_status(run_id)
    db.session.commit()
    return True


def requeue_for_retry(run_id: int, worker: str, reason: str, result: dict[str, Any] | None = None) -> bool:
    """A grader failure: back to queued while tries remain, else error with the reason.

    Returns True when the run should be sent again. Only the holder may do this (row lock)."""
    run = db.session.scalar(select(GradingRun).where(GradingRun.id == run_id).with_for_update())
    if run is None or run.status != Status.RUNNING.value or run.worker != worker:
        db.session.rollback()
        return False
    if run.tries < max_tries():
        run.status, run.status_reason, run.worker = Status.QUEUED.value, reason, None
        run.queued_at = db_now()
        again = True
    else:
        run.status, run.finished_at = Status.ERROR.value, db_now()
        run.status_reason = f"{reason} (gave up after {run.tries} tries)"
        if result is not None:
            # Keep what the grader said for the instructor; there are no test rows for an error.
            run.result, run.grader_version = result, result.get("grader_version")
            run.log_excerpt = (result.get("log") or "")[-20000:]
        again = False
    _sync_submission_status(run_id)
    db.session.commit()
    return again


def _sync_submission_status(run_id: int) -> None:
    """A submission shows the state of its newest run."""
    db.session.flush()
    sub_id = db.session.scalar(select(GradingRun.submission_id).where(GradingRun.id == run_id))
    newest = db.session.scalar(
        select(GradingRun.status)
        .where(GradingRun.submission_id == sub_id)
        .order_by(GradingRun.id.desc())
        .limit(1)
    )
    db.session.execute(
        update(Submission)
        .where(Submission.id == sub_id)
        .values(status=newest)
        .execution_options(synchronize_session=False)
    )
