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

Every age is measured with the database's clock (app/clock.py). Right after the worker
(re)connects to the broker, ``sweep(grace_s=0)`` runs at once: a Redis that restarted without
persistence lost every waiting message, and the runs should not wait out the grace period.
`SweeperLoop` keeps sweeping whatever a sweep, or its pause, raises.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from flask import Flask, current_app
from sqlalchemy import and_, or_, select

from app.clock import db_now
from app.extensions import db
from app.idempotency import purge
from app.models import GradingRun, Status
from app.queue import enqueue_run, priority_of
from worker.runs import abandoned_clause, give_up_exhausted, local_dead_workers, setting

log = logging.getLogger(__name__)

# Without a broker we can look into, only a much older queued run is re-sent (seconds).
BLIND_GRACE_S = 600.0
# Expired idempotency keys are forgotten this often (seconds); a key lives 24 hours, so an hour
# late costs nothing, and the UPDATE over five tables runs 24 times a day, not every sweep.
PURGE_INTERVAL_S = 3600.0


def queued_grace_s() -> float:
    return setting("QUEUED_GRACE_S")


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


def sweep(grace_s: float | None = None) -> list[int]:
    """Re-send lost runs; returns their ids. ``grace_s`` overrides ``QUEUED_GRACE_S`` (0 right
    after a broker reconnect: whatever was waiting in a restarted Redis is gone)."""
    from worker import spool

    # Kept results of this host first: their runs are live, not abandoned.
    spool.flush()
    try:
        view = broker_view()
    except Exception as exc:  # noqa: BLE001 - broker down: nothing can be sent anyway
        log.warning("broker unreadable, sweep skipped: %s", exc)
        return []
    # A message reserved by a worker moments ago is about to be claimed, even right after a
    # reconnect (grace_s=0 is only about how old a queued run must be to be looked at).
    reserved_grace_s = queued_grace_s()
    if view is None:
        grace_s = BLIND_GRACE_S
    elif grace_s is None:
        grace_s = reserved_grace_s
    holders = db.session.scalars(
        select(GradingRun.worker).where(GradingRun.status == Status.RUNNING.value).distinct()
    ).all()
    dead = local_dead_workers(holders)
    give_up_exhausted(dead=dead)
    candidates = db.session.scalars(
        select(GradingRun).where(
            or_(
                and_(GradingRun.status == Status.QUEUED.value, GradingRun.queued_at <= db_now(-grace_s)),
                and_(GradingRun.status == Status.RUNNING.value, abandoned_clause(dead)),
            )
        )
    ).all()
    wall = time.time()
    sent: list[int] = []
    priorities: dict[int, int] = {}
    for run in candidates:
        prefix = f"run-{run.id}-"
        if view is not None:
            if any(t.startswith(prefix) for t in view.waiting):
                continue  # a worker will receive it
            if run.status == Status.QUEUED.value and any(
                t.startswith(prefix) and wall - at < reserved_grace_s for t, at in view.reserved.items()
            ):
                continue  # recently reserved by a worker that is about to claim it (or an ETA retry)
        if run.status == Status.QUEUED.value:
            run.queued_at = db_now()  # restart the grace period so one sweep does not resend it again
        sent.append(run.id)
        priorities[run.id] = priority_of(run.trigger)
    db.session.commit()
    for run_id in sent:
        enqueue_run(run_id, priority=priorities[run_id])
    if sent:
        log.warning("sweeper re-queued runs %s", sent)
    return sent


class SweeperLoop:
    """Sweep at start and at once when `wake()` is called (after a broker reconnect), both with
    no grace period, and every ``SWEEP_INTERVAL_S`` in between. Nothing a sweep or a pause raises ends the loop: a sweeper
    that died silently once left lost runs waiting for the 6-minute deadline."""

    def __init__(self, app: Flask, sweep_fn: Callable[..., list[int]] = sweep,
                 purge_fn: Callable[[], dict[str, int]] = purge) -> None:
        self.app = app
        self.sweep_fn = sweep_fn
        self.sweeps = 0  # completed sweeps (tests and logs read it)
        self.fallback_interval_s = 20.0  # the pause when SWEEP_INTERVAL_S cannot be read
        self._wake = threading.Event()
        # The first sweep has no grace either: whatever waits in the database with no message in
        # the broker when a worker starts was lost while no worker was up.
        self._urgent = True
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.purge_fn = purge_fn
        self.purge_interval_s = PURGE_INTERVAL_S
        self._last_purge: float | None = None

    def wake(self, urgent: bool = True) -> None:
        self._urgent = self._urgent or urgent
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def start(self) -> SweeperLoop:
        self.thread = threading.Thread(target=self.run, name="sweeper", daemon=True)
        self.thread.start()
        return self

    def _interval(self) -> float:
        try:
            return max(0.05, setting("SWEEP_INTERVAL_S"))
        except Exception:
            log.exception("SWEEP_INTERVAL_S unreadable; next sweep in %g s", self.fallback_interval_s)
            return self.fallback_interval_s

    def _purge_keys(self) -> None:
        """Forget expired idempotency keys (app/idempotency.purge) once every PURGE_INTERVAL_S: a
        key never sent again is otherwise kept for ever. Its failure is logged and retried at the
        next interval; it never stops the sweeps."""
        now = time.monotonic()
        if self._last_purge is not None and now - self._last_purge < self.purge_interval_s:
            return
        self._last_purge = now
        try:
            with self.app.app_context():
                try:
                    forgotten = self.purge_fn()
                finally:
                    db.session.remove()
            if any(forgotten.values()):
                log.info("forgot expired idempotency keys: %s", forgotten)
        except Exception as exc:  # noqa: BLE001 - the database may be away
            log.warning("idempotency key purge failed: %s: %s", exc.__class__.__name__, exc)

    def run(self) -> None:
        while not self._stop.is_set():
            try:
                urgent, self._urgent = self._urgent, False
                self._wake.clear()
                with self.app.app_context():
                    try:
                        if urgent:
                            self.sweep_fn(grace_s=0.0)
                        else:
                            self.sweep_fn()
                    finally:
                        db.session.remove()
                self.sweeps += 1
            except Exception as exc:  # noqa: BLE001 - the database or broker may be away
                log.warning("sweep failed: %s: %s", exc.__class__.__name__, exc)
            self._purge_keys()
            try:
                self._wake.wait(self._interval())
            except Exception:
                log.exception("sweeper pause failed")
                time.sleep(1.0)
