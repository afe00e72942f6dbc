"""The web side of the queue: Celery wired the way Flask documents it, enqueueing by task name,
and the queue positions the pages and the API show.

The web app never imports the worker. It knows a task only by its name (`GRADE_TASK`), and sends
ids, never objects, after the row they name is committed.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

from celery import Celery, Task
from flask import Flask, current_app
from sqlalchemy import and_, case, func, or_, select

from app.extensions import db
from app.models import GradingRun, Status, Submission

log = logging.getLogger(__name__)

# The tasks the web side sends; worker/tasks.py and worker/similarity.py register these names.
GRADE_TASK = "autograder.grade"
SIMILARITY_TASK = "autograder.similarity"


# Seconds a broker socket may wait for Redis to accept or answer (see transport_options).
BROKER_SOCKET_TIMEOUT_S = 2
# A send tries twice: once more on a fresh connection (a Redis restart leaves the pooled one dead,
# which fails at once), not Celery's default four times, each up to the socket timeout.
SEND_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


def transport_options(broker_url: str, visibility_s: float) -> dict:
    if broker_url.startswith(("redis://", "rediss://")):
        return {
            # A message of a worker that died unacked comes back after this; the sweeper usually
            # re-queues the run much sooner.
            "visibility_timeout": int(visibility_s),
            # kombu's default is to wait for ever: a Redis that stops answering (frozen, swapped
            # out, its host partitioned away) held every upload's request thread, and every pool
            # process sending a retry, until it answered again (round 34). The run is committed
            # before it is sent, so a send that gives up costs a sweep, not a submission. Longer
            # than kombu's 1 s BRPOP, which the worker's consumer waits on.
            "socket_timeout": BROKER_SOCKET_TIMEOUT_S,
            "socket_connect_timeout": BROKER_SOCKET_TIMEOUT_S,
        }
    return {}  # the SQLAlchemy transport passes its options to create_engine()


def celery_init_app(app: Flask) -> Celery:
    class FlaskTask(Task):
        def __call__(self, *args: object, **kwargs: object) -> object:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery_app = Celery(app.name, task_cls=FlaskTask)
    queue = app.config["GRADING_QUEUE"]
    celery_app.conf.update(
        broker_url=app.config["CELERY_BROKER_URL"],
        broker_connection_retry_on_startup=True,
        # The database is the record, the broker only transport: no result backend.
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # The engine's own budget ends a grading long before these; they only catch a wedged worker.
        task_soft_time_limit=app.config["TASK_SOFT_TIME_LIMIT_S"],
        task_time_limit=app.config["TASK_HARD_TIME_LIMIT_S"],
        task_default_queue=queue,
        task_routes={"autograder.*": {"queue": queue}},
        task_always_eager=app.config.get("CELERY_EAGER", False),
        broker_transport_options=transport_options(
            app.config["CELERY_BROKER_URL"], app.config["BROKER_VISIBILITY_S"]
        ),
        worker_hijack_root_logger=False,
    )
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    return celery_app


# Broker priorities (kombu's Redis transport: 0 is served first, steps 0/3/6/9). A student's
# upload and an instructor's single regrade are served before the runs of a class regrade: a
# student must not wait behind 300 regrades queued a minute before the deadline.
PRIORITY_FIRST = 0
PRIORITY_BATCH = 6
BATCH_PREFIX = "batch:"


def priority_of(trigger: str | None) -> int:
    return PRIORITY_BATCH if (trigger or "").startswith(BATCH_PREFIX) else PRIORITY_FIRST


def broker_has_priorities() -> bool:
    """Whether the broker serves by priority. kombu's Redis transport does; the SQLAlchemy transport of
    the embedded default (no REDIS_URL) ignores priorities and serves in arrival order, so positions and
    the regrade page must count every queued run there, not say that uploads go first."""
    return not str(current_app.config["CELERY_BROKER_URL"]).startswith("sqla+")


def _is_batch(column: object) -> object:
    return column.like(f"{BATCH_PREFIX}%")  # type: ignore[attr-defined]


def _trigger_of(run_id: int) -> str | None:
    try:
        return db.session.scalar(select(GradingRun.trigger).where(GradingRun.id == run_id))
    except Exception as exc:  # noqa: BLE001 - unreadable: sent first rather than not at all
        log.warning("could not read the trigger of run %s (%s)", run_id, exc.__class__.__name__)
        db.session.rollback()
        return None


def enqueue_run(run_id: int, countdown: float | None = None, *, priority: int | None = None) -> bool:
    """Send the run to the grading queue, at the priority of its trigger (read from the database
    when the caller does not give it). A failure is logged, not raised: the run is already
    committed as queued, and the sweeper sends it again when the broker is back."""
    if priority is None:
        priority = priority_of(_trigger_of(run_id))
    try:
        # Through the current Flask app's Celery app: its broker, whichever app is default.
        current_app.extensions["celery"].send_task(
            GRADE_TASK, args=[run_id], task_id=f"run-{run_id}-{uuid.uuid4().hex[:12]}", countdown=countdown,
            priority=priority, retry_policy=SEND_RETRY_POLICY,
        )
        return True
    except Exception as exc:  # noqa: BLE001 - any broker failure must not lose the upload
        log.warning("could not queue run %s (%s); the sweeper will retry", run_id, exc)
        return False


def send_oldest_queued(student_ids: Iterable[int]) -> list[int]:
    """Send each student's oldest queued run; returns their ids. A worker sends the student's next run
    when one ends (worker/runs.py next_of_student), and a claim deferred behind a running attempt drops
    its message. When the run that next message was for disappears (a cancelled regrade run), its
    message claims nothing and sends nothing, so the student's runs held back behind it would wait for
    the sweeper: the canceller sends them. A duplicate message is harmless (the claim is guarded)."""
    ids = sorted(set(student_ids))
    if not ids:
        return []
    oldest = (select(func.min(GradingRun.id)).join(Submission, Submission.id == GradingRun.submission_id)
              .where(Submission.student_id.in_(ids), GradingRun.status == Status.QUEUED)
              .group_by(Submission.student_id))
    found = db.session.execute(select(GradingRun.id, GradingRun.trigger).where(GradingRun.id.in_(oldest))
                               .order_by(GradingRun.id)).all()
    db.session.commit()  # the send happens outside any transaction, as every other send
    for run_id, trigger in found:
        enqueue_run(run_id, priority=priority_of(trigger))
    return [run_id for run_id, _ in found]


def enqueue_similarity(report_id: int) -> bool:
    """Send a similarity report to the workers (same queue as grading). The report row is
    committed first; a failure is logged and the report stays queued for the instructor to retry."""
    try:
        current_app.extensions["celery"].send_task(
            SIMILARITY_TASK, args=[report_id], task_id=f"similarity-{report_id}-{uuid.uuid4().hex[:12]}",
            retry_policy=SEND_RETRY_POLICY,
        )
        return True
    except Exception as exc:  # noqa: BLE001 - the broker being away must not lose the request
        log.warning("could not queue similarity report %s (%s)", report_id, exc)
        return False


def queue_position(run: GradingRun | None) -> int | None:
    """How many queued runs a worker takes before this one (0 = next), None if it is not queued:
    the runs of its priority queued before it, and every queued run of a higher priority."""
    if run is None or run.status != Status.QUEUED:
        return None
    if not broker_has_priorities():
        earlier = or_(GradingRun.queued_at < run.queued_at,
                      and_(GradingRun.queued_at == run.queued_at, GradingRun.id < run.id))
        return int(db.session.scalar(
            select(func.count(GradingRun.id)).where(GradingRun.status == Status.QUEUED, earlier)) or 0)
    batch = _is_batch(GradingRun.trigger)
    same = batch if priority_of(run.trigger) == PRIORITY_BATCH else ~batch
    earlier = and_(same, or_(GradingRun.queued_at < run.queued_at,
                             and_(GradingRun.queued_at == run.queued_at, GradingRun.id < run.id)))
    ahead = or_(earlier, ~batch) if priority_of(run.trigger) == PRIORITY_BATCH else earlier
    return int(
        db.session.scalar(select(func.count(GradingRun.id)).where(GradingRun.status == Status.QUEUED, ahead)) or 0
    )


def first_waiting() -> int | None:
    """Queued runs served before every run of a class regrade (uploads, single regrades); None when
    the broker serves in arrival order, where nothing is served before them."""
    if not broker_has_priorities():
        return None
    return int(db.session.scalar(select(func.count(GradingRun.id)).where(
        GradingRun.status == Status.QUEUED, ~_is_batch(GradingRun.trigger))) or 0)


def queue_positions() -> dict[int, int]:
    """Position of every queued run in one query (for pages listing many runs), in the order
    queue_position counts."""
    first = (case((_is_batch(GradingRun.trigger), 1), else_=0),) if broker_has_priorities() else ()
    ids = db.session.scalars(
        select(GradingRun.id).where(GradingRun.status == Status.QUEUED)
        .order_by(*first, GradingRun.queued_at, GradingRun.id)
    )
    return {run_id: i for i, run_id in enumerate(ids)}
