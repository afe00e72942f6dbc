"""What the web side reads about the workers: the heartbeats they write into the database."""

from __future__ import annotations

from flask import current_app
from sqlalchemy import ColumnElement, and_, exists, select

from app.clock import db_now
from app.extensions import db
from app.models import GradingRun, Status, WorkerHeartbeat


def live_workers(window_s: float | None = None) -> list[WorkerHeartbeat]:
    """Pool processes whose last heartbeat is younger than HEARTBEAT_STALE_S, by the database's
    clock: a dead worker drops out of the count within that window, whatever this host's clock says."""
    if window_s is None:
        window_s = _stale_s()
    return list(db.session.scalars(select(WorkerHeartbeat).where(WorkerHeartbeat.last_seen >= db_now(-window_s))))


def _stale_s() -> float:
    return float(current_app.config["HEARTBEAT_STALE_S"])


def any_worker_live() -> bool:
    """Whether any pool process beat within HEARTBEAT_STALE_S (one EXISTS: the status poll needs no rows)."""
    return bool(db.session.scalar(select(exists().where(WorkerHeartbeat.last_seen >= db_now(-_stale_s())))))


def _silent(run: GradingRun) -> ColumnElement[bool]:
    stale_before = db_now(-_stale_s())
    beating = exists().where(
        WorkerHeartbeat.hostname == run.worker,
        WorkerHeartbeat.last_seen >= stale_before,
        # A row of a process started after the claim is a reused host:pid, not the holder (as in the claim).
        WorkerHeartbeat.started_at <= run.started_at,
    )
    return and_(stale_before > run.started_at, ~beating)


def _overdue(run: GradingRun) -> ColumnElement[bool]:
    return db_now(-float(current_app.config["RUN_DEADLINE_S"])) > run.started_at


def _claimed(run: GradingRun | None) -> bool:
    return run is not None and run.status == Status.RUNNING and run.worker is not None and run.started_at is not None


def holder_silent(run: GradingRun | None) -> bool:
    """Whether a ``running`` run's worker has given no sign of life: it was claimed more than HEARTBEAT_STALE_S
    ago and no heartbeat row of its worker, started no later than the claim, is younger than that window.

    This is the heartbeat rule of worker.runs.abandoned_clause, the one the web can check (its other rules, a dead
    pid of the worker's own host and the run deadline, need the worker's host or say nothing of the worker); when it
    holds, the sweeper of any live worker sends the run again and a worker takes it over (worker/sweeper.py). The
    deadline rule is `run_overdue`."""
    return _claimed(run) and bool(db.session.scalar(select(_silent(run))))


def run_overdue(run: GradingRun | None) -> bool:
    """Whether a ``running`` run was claimed more than RUN_DEADLINE_S ago (the task's hard time limit plus a
    margin): the rule of worker.runs.abandoned_clause that holds even while its worker beats, since no task lives
    that long (the Celery hard limit killed it, or its result could not be stored)."""
    return _claimed(run) and bool(db.session.scalar(select(_overdue(run))))


def stall_checks(run: GradingRun | None) -> tuple[bool, bool]:
    """(`holder_silent`, `run_overdue`) of ``run`` in one statement: the status poll asks both every second."""
    if not _claimed(run):
        return False, False
    silent, overdue = db.session.execute(select(_silent(run), _overdue(run))).one()
    return bool(silent), bool(overdue)
