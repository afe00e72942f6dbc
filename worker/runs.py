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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import (
    ColumnElement,
    Engine,
    Select,
    Update,
    and_,
    bindparam,
    event,
    exists,
    false,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import OperationalError

from app.clock import db_now
from app.extensions import db
from app.models import Assignment, Blob, GradingRun, Status, Submission, TestResult, User, WorkerHeartbeat
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


# SQLSTATE 25006 read_only_sql_transaction: the server takes no write now but will, or another
# one will after a reconnect (a failed-over old primary, a hot standby behind a stale address, a
# server put in read-only mode). psycopg raises it as InternalError, which the worker's retry,
# spool and re-send paths, written for OperationalError, did not catch: the task failed with the
# finished grading, whose run was still not stored well after the server took writes again (round 34).
READ_ONLY_SQLSTATE = "25006"


def _read_only_is_unavailable(ctx: ExceptionContext) -> OperationalError | None:
    if getattr(ctx.original_exception, "sqlstate", None) != READ_ONLY_SQLSTATE:
        return None
    # A disconnect: this pool's connections are dropped, so the next try connects afresh (and
    # reaches the new primary when the address has moved).
    ctx.is_disconnect = True
    log.warning("database is read-only (SQLSTATE %s): treated as unavailable", READ_ONLY_SQLSTATE)
    return OperationalError(ctx.statement, ctx.parameters, ctx.original_exception,
                            connection_invalidated=True)


def treat_read_only_as_unavailable(engine: Engine) -> None:
    """Make a read-only database raise OperationalError on ``engine``, as an unreachable one does:
    every path that waits for the database, keeps a result on disk or sends a run again then
    covers it too."""
    if not event.contains(engine, "handle_error", _read_only_is_unavailable):
        event.listen(engine, "handle_error", _read_only_is_unavailable)


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


# The hot path (claim, store) speaks Core to the tables, not the ORM: a grading costs a handful of
# statements (measured with bench/worker_overhead.py), and statements built on these tables' own
# columns skip SQLAlchemy's ORM bulk-update machinery. The guards are the same SQL as before.
RUNS = GradingRun.__table__
SUBMISSIONS = Submission.__table__
RESULTS = TestResult.__table__
HEARTBEATS = WorkerHeartbeat.__table__
USERS = User.__table__


def abandoned_clause(dead: Iterable[str] = (), runs: Any = RUNS) -> ColumnElement[bool]:
    """SQL: this (running) run has no live task any more. See the module docstring. ``runs`` is
    the runs table or an alias of it (the claim asks it of a student's other runs).

    Every age is measured with the database's clock (app/clock.py), never this host's."""
    stale_before = db_now(-heartbeat_stale_s())
    holder_alive = exists().where(
        HEARTBEATS.c.hostname == runs.c.worker,
        HEARTBEATS.c.last_seen >= stale_before,
        # A heartbeat of a process started after the claim is a reused name, not the holder.
        HEARTBEATS.c.started_at <= runs.c.started_at,
    )
    dead = list(dead)
    return or_(
        runs.c.worker.is_(None),
        runs.c.started_at.is_(None),
        runs.c.worker.in_(dead) if dead else false(),
        and_(runs.c.started_at < stale_before, ~holder_alive),
        runs.c.started_at < db_now(-run_deadline_s()),
    )


# A student's other runs, for the one-grading-per-student rule of the claim.
_OTHER_RUNS = RUNS.alias("other_run")
_OTHER_SUBMISSIONS = SUBMISSIONS.alias("other_submission")


def _student_busy(dead: tuple[str, ...]) -> ColumnElement[bool]:
    """SQL: another run of the student ``student`` is being graded by a live task. Parameters:
    ``run_id``, ``student``."""
    return exists().where(
        _OTHER_SUBMISSIONS.c.student_id == bindparam("student"),
        _OTHER_RUNS.c.submission_id == _OTHER_SUBMISSIONS.c.id,
        _OTHER_RUNS.c.id != bindparam("run_id"),
        _OTHER_RUNS.c.status == Status.RUNNING.value,
        ~abandoned_clause(dead, _OTHER_RUNS),
    )


@lru_cache(maxsize=64)
def _claim_statement(tries: int, stale_s: float, deadline_s: float, dead: tuple[str, ...]) -> Update:
    """The guarded claim UPDATE, built once per setting (``heartbeat_stale_s`` and
    ``run_deadline_s`` are read by `abandoned_clause`; they are in the key so that a change of
    setting builds a new statement). Parameters: ``run_id``, ``holder`` (the worker), ``student``.

    A queued run is claimed only while no other run of its student is being graded: one student's
    attempts take at most one pool process at a time, so a student whose every attempt uses its
    whole budget (40 s) delays their own next attempt, not the others' gradings. A run abandoned
    by a dead worker is taken over whatever the student's other runs do."""
    return (
        update(RUNS)
        .where(
            RUNS.c.id == bindparam("run_id"),
            or_(
                and_(RUNS.c.status == Status.QUEUED.value, ~_student_busy(dead)),
                and_(
                    RUNS.c.status == Status.RUNNING.value,
                    RUNS.c.tries < tries,
                    # A pool process runs one task at a time, so a run held under its own name is
                    # a claim whose commit reply was lost (database outage) or a task of this
                    # process that ended without storing: nobody else is grading it.
                    or_(abandoned_clause(dead), RUNS.c.worker == bindparam("holder")),
                ),
            ),
        )
        .values(status=Status.RUNNING.value, started_at=db_now(), worker=bindparam("holder"),
                tries=RUNS.c.tries + 1)
        .returning(RUNS.c.tries)
    )


_ASSIGNMENTS = Assignment.__table__
_CODE = Blob.__table__.alias("code_blob")
# Everything a grading needs, read in the claim's transaction: a submission's files and its
# assignment never change after the upload. The code's bytes (a few KiB, new with nearly every
# attempt) come with it; the audit and figure, larger and carried from attempt to attempt, are
# read through the blob store and its local cache.
_INPUTS = (
    select(
        RUNS.c.status, RUNS.c.worker, SUBMISSIONS.c.id, SUBMISSIONS.c.code_sha256, _CODE.c.data.label("code"),
        SUBMISSIONS.c.audit_sha256, SUBMISSIONS.c.audit_filename, SUBMISSIONS.c.figure_sha256,
        SUBMISSIONS.c.figure_filename, SUBMISSIONS.c.audit_text, _ASSIGNMENTS.c.suite,
        USERS.c.id.label("student_id"),
    )
    .select_from(RUNS.join(SUBMISSIONS, SUBMISSIONS.c.id == RUNS.c.submission_id)
                 .join(_ASSIGNMENTS, _ASSIGNMENTS.c.id == SUBMISSIONS.c.assignment_id)
                 .join(USERS, USERS.c.id == SUBMISSIONS.c.student_id)
                 .outerjoin(_CODE, _CODE.c.sha256 == SUBMISSIONS.c.code_sha256))
    .where(RUNS.c.id == bindparam("run_id"))
    # The student's row is locked until the claim commits: two workers claiming two runs of one
    # student at once are serialised, so the second claim's guard sees the first (PostgreSQL;
    # SQLite serialises writes anyway). An upload of the same student takes the same lock.
    .with_for_update(of=USERS)
)
# The oldest queued run of the student of run ``run_id``, other than it.
_NEXT_OF_STUDENT = (
    select(RUNS.c.id)
    .join(SUBMISSIONS, SUBMISSIONS.c.id == RUNS.c.submission_id)
    .where(
        RUNS.c.status == Status.QUEUED.value,
        RUNS.c.id != bindparam("run_id"),
        SUBMISSIONS.c.student_id == select(_OTHER_SUBMISSIONS.c.student_id)
        .join(_OTHER_RUNS, _OTHER_RUNS.c.submission_id == _OTHER_SUBMISSIONS.c.id)
        .where(_OTHER_RUNS.c.id == bindparam("run_id"))
        .scalar_subquery(),
    )
    .order_by(RUNS.c.id)
    .limit(1)
)


# The workers holding the student's other running runs: read only when a claim was deferred.
_HOLDERS_OF_STUDENT = (
    select(RUNS.c.worker)
    .join(SUBMISSIONS, SUBMISSIONS.c.id == RUNS.c.submission_id)
    .where(SUBMISSIONS.c.student_id == bindparam("student"), RUNS.c.id != bindparam("run_id"),
           RUNS.c.status == Status.RUNNING.value)
)


def next_of_student(run_id: int) -> int | None:
    """The student's oldest queued run other than ``run_id``, for the worker that has just finished
    (or given back) ``run_id`` to send: a claim deferred while ``run_id`` ran dropped its message."""
    found = db.session.execute(_NEXT_OF_STUDENT, {"run_id": run_id}).scalar_one_or_none()
    db.session.commit()
    return found


_MARK_RUNNING = (
    update(SUBMISSIONS).where(SUBMISSIONS.c.id == bindparam("sub_id")).values(status=Status.RUNNING.value)
)


def claim(run_id: int, worker: str, store: BlobStore,
          on_given_up: Callable[[int], object] | None = None) -> RunInputs | None:
    """Take the run if it is queued, or abandoned with tries left. Else None.

    An abandoned run without tries left is closed as ``error`` here (and by the sweeper), and
    ``on_given_up(run_id)`` is called: the caller sends the student's next attempt, which may have
    been deferred while this one ran. One transaction of three statements: read the run's
    inputs, the guarded UPDATE (which alone decides who holds the run), mark the submission
    running (a deferred claim reads the holders of the student's other runs too)."""
    row = db.session.execute(_INPUTS, {"run_id": run_id}).one_or_none()
    if row is None or row.status not in (Status.QUEUED.value, Status.RUNNING.value):
        # Finished (a duplicate delivery) or gone: only a running run can be given up on, and a
        # finished run never runs again (a regrade adds a new run).
        db.session.rollback()
        if row is None:
            log.info("run %s skipped: no such run (a cancelled regrade run's message)", run_id)
        return None
    holder = row.worker if row.status == Status.RUNNING.value else None
    dead = tuple(local_dead_workers([holder]))
    params = {"run_id": run_id, "holder": worker, "student": row.student_id}
    tries = db.session.execute(
        _claim_statement(max_tries(), heartbeat_stale_s(), run_deadline_s(), dead), params
    ).scalar_one_or_none()
    if tries is None and row.status == Status.QUEUED.value:
        # Deferred behind another attempt of the student. A holder that is a process of this host
        # which no longer exists (a pool process killed a moment ago, its heartbeat still fresh)
        # grades nothing: claim again knowing it, rather than wait for the heartbeat to go stale
        # and the sweeper to re-send this dropped message.
        dead = tuple(local_dead_workers(db.session.scalars(_HOLDERS_OF_STUDENT, params)))
        if dead:
            tries = db.session.execute(
                _claim_statement(max_tries(), heartbeat_stale_s(), run_deadline_s(), dead), params
            ).scalar_one_or_none()
    if tries is None:
        # The guarded UPDATE lost to a regrade's cancel (app/regrading.py cancel deletes queued runs) when
        # the run is gone now: said as such, not as a deferral behind another grading of the student.
        cancelled = row.status == Status.QUEUED.value and db.session.scalar(
            select(RUNS.c.id).where(RUNS.c.id == run_id)) is None
        db.session.rollback()
        if cancelled:
            log.info("run %s skipped: cancelled before it was claimed", run_id)
            return None
        if row.status == Status.QUEUED.value:
            # Another attempt of this student is being graded (or another worker took this run
            # a moment ago). The message is dropped: the worker that finishes the student's
            # grading sends the next one (`next_of_student`), and the sweeper is the safety net.
            log.info("run %s deferred: another grading of its student is running", run_id)
            return None
        if give_up_exhausted(run_ids=[run_id], dead=dead) and on_given_up is not None:
            on_given_up(run_id)
        return None
    db.session.execute(_MARK_RUNNING, {"sub_id": row.id})
    db.session.commit()
    if holder is not None:
        log.warning("run %s taken over from %s (try %s)", run_id, holder, tries)
    try:
        return RunInputs(
            run_id=run_id,
            submission_id=row.id,
            suite=row.suite,
            # NULL only for a first-release blob still on disk: the store reads it from there.
            code=bytes(row.code) if row.code is not None else store.get(row.code_sha256),
            audit=store.get(row.audit_sha256) if row.audit_sha256 else None,
            audit_filename=row.audit_filename,
            figure=store.get(row.figure_sha256) if row.figure_sha256 else None,
            figure_filename=row.figure_filename,
            audit_text=row.audit_text,
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
        update(RUNS)
        .where(
            RUNS.c.status == Status.RUNNING.value,
            RUNS.c.tries >= limit,
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
        .returning(RUNS.c.id, RUNS.c.submission_id)
    )
    if run_ids is not None:
        query = query.where(RUNS.c.id.in_(run_ids))
    closed = list(db.session.execute(query).all())
    for run_id, sub_id in closed:
        log.error("run %s gave up after %s interrupted tries", run_id, limit)
        _sync_submission_status(sub_id)
    db.session.commit()
    return [run_id for run_id, _ in closed]


_STORED_ALWAYS = ("status", "status_reason", "grader_version", "result", "log_excerpt", "cpu_s")
_STORED_IF_GRADED = ("total", "max_total", "categories")


@lru_cache(maxsize=4)
def _store_statement(graded: bool, lock_submission: bool) -> Update | Select:
    """The guarded store UPDATE (only the holder of a running run may write), returning the
    submission for `_sync_submission_status`. Parameters: ``run_id``, ``holder`` (the worker), ``v_<column>``.

    With ``lock_submission`` (PostgreSQL) the same statement also locks the submission's row, so the sync that
    follows, a statement of its own, reads the runs after any transaction that held that row (a regrade cancel
    deleting this attempt's newer queued run) has committed: one statement computing the newest run while
    waiting for the row would keep its older snapshot and write the cancelled run's ``queued`` back."""
    names = _STORED_ALWAYS + (_STORED_IF_GRADED if graded else ())
    stored = (
        update(RUNS)
        .where(RUNS.c.id == bindparam("run_id"), RUNS.c.status == Status.RUNNING.value,
               RUNS.c.worker == bindparam("holder"))
        .values(finished_at=db_now(), **{n: bindparam(f"v_{n}", type_=RUNS.c[n].type) for n in names})
        .returning(RUNS.c.submission_id)
    )
    if not lock_submission:
        return stored
    done = stored.cte("stored")
    return (select(SUBMISSIONS.c.id).join(done, SUBMISSIONS.c.id == done.c.submission_id)
            .with_for_update(of=SUBMISSIONS))


_INSERT_RESULTS = insert(RESULTS)


def store_result(run_id: int, worker: str, result: dict[str, Any]) -> bool:
    """Write the result if this worker still holds the run. Returns False for a stale holder.

    The run's status, its result and its TestResult rows are one transaction: a duplicate
    delivery, a retry after a lost commit acknowledgement, or a takeover can never add rows.
    Three statements: the guarded UPDATE, one multi-row INSERT of the tests, the submission."""
    graded = result.get("status") == Status.GRADED
    params: dict[str, Any] = {
        "run_id": run_id,
        "holder": worker,
        "v_status": Status.GRADED.value if graded else Status.ERROR.value,
        "v_status_reason": None if graded else (result.get("message") or "grader error"),
        "v_grader_version": result.get("grader_version"),
        "v_result": result,
        "v_log_excerpt": (result.get("log") or "")[-20000:],
        "v_cpu_s": result.get("cpu_s"),
    }
    if graded:
        params.update(v_total=result["total"], v_max_total=result["max_total"], v_categories=result["categories"])
    locks = _row_locks()
    sub_id = db.session.execute(_store_statement(graded, locks), params).scalar_one_or_none()
    if sub_id is None:
        db.session.rollback()
        log.warning("run %s no longer held by %s; result dropped", run_id, worker)
        return False
    rows = [
        {
            "run_id": run_id,
            "test_id": t["id"],
            "category": t["category"],
            "outcome": t["outcome"],
            "points": t["points"],
            "max_points": t["max_points"],
            "hidden": bool(t.get("hidden")),
            "feedback": encode(t.get("feedback")),  # a {"en","zh"} message is stored as JSON text
        }
        for t in (result.get("tests") or [] if graded else [])
    ]
    if rows:
        db.session.execute(_INSERT_RESULTS, rows)
    _sync_submission_status(sub_id, locked=locks)
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
    _sync_submission_status(run.submission_id)
    db.session.commit()
    return again


_NEWEST_STATUS = (
    select(RUNS.c.status)
    .where(RUNS.c.submission_id == bindparam("sub_id"))
    .order_by(RUNS.c.id.desc())
    .limit(1)
    .scalar_subquery()
)
_SYNC_SUBMISSION = update(SUBMISSIONS).where(SUBMISSIONS.c.id == bindparam("sub_id")).values(status=_NEWEST_STATUS)


_LOCK_SUBMISSION = select(SUBMISSIONS.c.id).where(SUBMISSIONS.c.id == bindparam("sub_id")).with_for_update()


def _row_locks() -> bool:
    """PostgreSQL locks rows; SQLite serialises every writing transaction whole, so it needs no row lock."""
    return db.session.get_bind().dialect.name == "postgresql"


def _sync_submission_status(sub_id: int, locked: bool = False) -> None:
    """A submission shows the state of its newest run (one UPDATE with a subquery).

    The submission's row is locked first, in a statement of its own (unless the caller's statement locked it):
    the UPDATE then reads the runs as committed once the lock is held. A single UPDATE that waited for the row
    (a regrade cancel holding it while it deletes this attempt's newer queued run) would compute the newest
    run from its snapshot taken before the wait, and write the deleted run's ``queued`` (round 37's review)."""
    db.session.flush()  # a run changed through the ORM (requeue_for_retry) is written first
    if not locked and _row_locks():
        db.session.execute(_LOCK_SUBMISSION, {"sub_id": sub_id})
    db.session.execute(_SYNC_SUBMISSION, {"sub_id": sub_id})
