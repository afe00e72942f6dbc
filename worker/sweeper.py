"""Re-queue runs that no task will ever finish: the broker lost them, or their worker died.

The database is the record and the broker only transport, so the sweeper compares the two.
Sending a run twice is harmless (claims are guarded), so when in doubt it sends.

* A ``queued`` run older than ``QUEUED_GRACE_S`` (30 s) is sent again unless its message waits in
  the queue, or was reserved by a worker less than ``QUEUED_GRACE_S`` ago (a reserved message
  older than that whose run is still queued belongs to a worker that died before claiming it; the
  broker would only hand it out again after its visibility timeout, minutes later).
* A ``running`` run whose task is gone (``worker.runs.abandoned_clause``: dead or stale worker,
  or older than the hard time limit) is sent again unless a copy already waits in the queue. Its
  old reserved message belongs to the dead worker and is ignored.
* An abandoned run that has used ``MAX_TRIES`` tries is closed as ``error`` with the reason.

Without a Redis broker to look into, only queued runs older than ``BLIND_GRACE`` (10 min) are sent.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta

from flask import current_app
from sqlalchemy import and_, or_, select

from app.extensions import db
from app.models import GradingRun, Status, utcnow
from app.queue import enqueue_run
from worker.runs import abandoned_clause, give_up_exhausted, local_dead_workers, setting

log = logging.getLogger(__name__)

# Without a broker we can look into, only a much older queued run is re-sent.
BLIND_GRACE = timedelta(minutes=10)


def queued_grace() -> timedelta:
    return timedelta(seconds=setting("QUEUED_GRACE_S"))


@dataclass
class BrokerView:
    waiting: set[str] = field(default_factory=set)  # task ids in the queue
    reserved: dict[str, float] = field(default_factory=dict)  # task id -> unix time it was reserved


def _task_id(raw: bytes | str) -> str | None:
    try:
        msg = json.loads(raw)
        if isinstance(msg, list):  # unacked entries are [message, exchange, routing_key]
            msg = msg[0]
        return msg["headers"]["id"]
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def _redis_url() -> str | None:
    broker = current_app.config.get("CELERY_BROKER_URL") or ""
    if broker.startswith(("redis://", "rediss://", "unix://")):
        return broker
    return None


def broker_view() -> BrokerView | None:
    """Task ids waiting in or reserved from the grading queue; None when the broker can't be read."""
    url = _redis_url()
    if not url:
        return None
    import redis

    queue = current_app.config["GRADING_QUEUE"]
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    view = BrokerView()
    # kombu keeps one list per priority step: "grading", "grading\x06\x163", ...
    keys = [queue] + [k for k in client.scan_iter(match=f"{queue}\x06\x16*") if k != queue.encode()]
    for key in keys:
        for item in client.lrange(key, 0, -1):
            if (tid := _task_id(item)) is not None:
                view.waiting.add(tid)
    # kombu's Redis transport keeps reserved-but-unacked messages in this hash, and the time each
    # was reserved in the "unacked_index" sorted set (both keyed by delivery tag).
    since = dict(client.zrange("unacked_index", 0, -1, withscores=True))
    for tag, item in client.hgetall("unacked").items():
        if (tid := _task_id(item)) is not None:
            view.reserved[tid] = max(view.reserved.get(tid, 0.0), since.get(tag, 0.0))
    return view


def sweep() -> list[int]:
    """Re-send lost runs; returns their ids."""
    now = utcnow()
    try:
        view = broker_view()
    except Exception as exc:  # noqa: BLE001 - broker down: nothing can be sent anyway
        log.warning("broker unreadable, sweep skipped: %s", exc)
        return []
    grace = queued_grace() if view is not None else BLIND_GRACE
    holders = db.session.scalars(
        select(GradingRun.worker).where(GradingRun.status == Status.RUNNING.value).distinct()
    ).all()
    dead = local_dead_workers(holders)
    give_up_exhausted(now, dead=dead)
    candidates = db.session.scalars(
        select(GradingRun).where(
            or_(
                and_(GradingRun.status == Status.QUEUED.value, GradingRun.queued_at < now - grace),
                and_(GradingRun.status == Status.RUNNING.value, abandoned_clause(now, dead)),
            )
        )
    ).all()
    wall = time.time()
    sent: list[int] = []
    for run in candidates:
        prefix = f"run-{run.id}-"
        if view is not None:
            if any(t.startswith(prefix) for t in view.waiting):
                continue  # a worker will receive it
            if run.status == Status.QUEUED.value and any(
                t.startswith(prefix) and wall - at < grace.total_seconds() for t, at in view.reserved.items()
            ):
                continue  # recently reserved by a worker that is about to claim it (or an ETA retry)
        if run.status == Status.QUEUED.value:
            run.queued_at = now  # restart the grace period so one sweep does not resend it again
        sent.append(run.id)
    db.session.commit()
    for run_id in sent:
        enqueue_run(run_id)
    if sent:
        log.warning("sweeper re-queued runs %s", sent)
    return sent
