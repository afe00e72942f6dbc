"""Re-queue runs that no task will ever finish: the broker lost them, or their worker died.

The database is the record and the broker only transport, so the sweeper compares the two.
Sending a run twice is harmless (claims are guarded), so when in doubt it sends.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from flask import current_app
from sqlalchemy import and_, or_, select

from app.extensions import db
from app.models import GradingRun, Status, utcnow
from worker.runs import HEARTBEAT_STALE, _dead_workers_clause

log = logging.getLogger(__name__)

# A queued run is only considered lost once it has waited this long and is not in the broker.
QUEUED_GRACE = timedelta(seconds=30)
# Without a broker we can look into, only a much older queued run is re-sent.
BLIND_GRACE = timedelta(minutes=10)


def broker_task_ids() -> set[str] | None:
    """Task ids waiting in or held from the grading queue; None when the broker can't be read."""
    url = current_app.config.get("REDIS_URL")
    if not url:
        return None
    import redis

    queue = current_app.config["GRADING_QUEUE"]
    client = redis.Redis.from_url(url, socket_timeout=2)
    ids: set[str] = set()
    raw = list(client.lrange(queue, 0, -1))
    # kombu's Redis transport keeps reserved-but-unacked messages in this hash.
    raw += [v for v in client.hvals("unacked")]
    for item in raw:
        try:
            msg = json.loads(item)
            if isinstance(msg, list):  # unacked entries are [message, exchange, routing_key]
                msg = msg[0]
            ids.add(msg["headers"]["id"])
        except (ValueError, KeyError, TypeError, IndexError):
            continue
    return ids


def sweep() -> list[int]:
    """Re-send lost runs; returns their ids."""
    from worker.tasks import enqueue_run

    now = utcnow()
    try:
        in_broker = broker_task_ids()
    except Exception as exc:  # noqa: BLE001 - broker down: nothing can be sent anyway
        log.warning("broker unreadable, sweep skipped: %s", exc)
        return []
    grace = QUEUED_GRACE if in_broker is not None else BLIND_GRACE
    candidates = db.session.scalars(
        select(GradingRun).where(
            or_(
                and_(GradingRun.status == Status.QUEUED.value, GradingRun.queued_at < now - grace),
                and_(
                    GradingRun.status == Status.RUNNING.value,
                    GradingRun.started_at < now - HEARTBEAT_STALE,
                    _dead_workers_clause(now),
                ),
            )
        )
    ).all()
    sent: list[int] = []
    for run in candidates:
        if in_broker is not None and any(t.startswith(f"run-{run.id}-") for t in in_broker):
            continue
        if run.status == Status.QUEUED.value:
            run.queued_at = now  # restart the grace period so one sweep does not resend it again
        sent.append(run.id)
    db.session.commit()
    for run_id in sent:
        enqueue_run(run_id)
    if sent:
        log.info("sweeper re-queued runs %s", sent)
    return sent
