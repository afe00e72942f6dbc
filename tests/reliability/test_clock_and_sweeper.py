"""One clock and a sweeper that cannot die: fast tests on the session's PostgreSQL, no worker processes.

Heartbeats, claims and deadlines are written and compared with the database's clock
(app/clock.py), so a host whose own clock is far ahead sees a live worker as live.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.clock import db_now, read_db_now
from app.extensions import db
from app.models import GradingRun, WorkerHeartbeat
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.reliability.helpers import CORRECT
from worker import heartbeat, runs, sweeper

pytestmark = [pytest.mark.postgres]


@pytest.fixture
def run_id(app, factory):
    sub = submit(factory.assignment(), factory.student(), Upload("attention.py", CORRECT),
                 store=BlobStore(app.config["UPLOAD_DIR"]))
    return sub.runs[0].id


def host_clock_ahead(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Every clock this process could read runs ``seconds`` ahead of the database's."""
    real_time = time.time

    def ahead() -> datetime:
        return datetime.now(UTC).replace(tzinfo=None) + timedelta(seconds=seconds)

    monkeypatch.setattr("app.models.utcnow", ahead)
    for module in ("worker.runs", "worker.sweeper", "worker.heartbeat", "app.monitoring"):
        monkeypatch.setattr(f"{module}.utcnow", ahead, raising=False)  # where older code read it
    monkeypatch.setattr(time, "time", lambda: real_time() + seconds)


def test_a_host_45_s_ahead_takes_over_no_live_run_and_sweeps_nothing(app, run_id, monkeypatch):
    app.config["HEARTBEAT_STALE_S"] = 30
    holder = "healthy-host:4242"
    heartbeat.beat(holder, first=True)
    assert runs.claim(run_id, holder, BlobStore(app.config["UPLOAD_DIR"])) is not None
    heartbeat.beat(holder)  # the holder keeps beating, with the database's clock

    host_clock_ahead(monkeypatch, 45)
    sent: list[int] = []
    monkeypatch.setattr("worker.sweeper.enqueue_run", lambda rid, countdown=None, priority=None: sent.append(rid) or True)
    assert runs.claim(run_id, "fast-host:1", BlobStore(app.config["UPLOAD_DIR"])) is None
    assert sweeper.sweep() == [] and sent == []
    db.session.expire_all()
    run = db.session.get(GradingRun, run_id)
    assert (run.status, run.worker, run.tries) == ("running", holder, 1)


def test_heartbeats_and_claims_carry_the_database_time_not_the_host_time(app, run_id, monkeypatch):
    host_clock_ahead(monkeypatch, 3600)
    heartbeat.beat("skewed-host:7", first=True)
    assert runs.claim(run_id, "skewed-host:7", BlobStore(app.config["UPLOAD_DIR"])) is not None
    db_time = read_db_now(db.session)
    hb = db.session.get(WorkerHeartbeat, "skewed-host:7")
    run = db.session.get(GradingRun, run_id)
    for written in (hb.last_seen, hb.started_at, run.started_at, run.queued_at):
        assert abs((db_time - written).total_seconds()) < 60, (written, db_time)


def test_a_silent_holder_is_taken_over_once_stale_by_the_database_clock(app, run_id):
    app.config["HEARTBEAT_STALE_S"] = 30
    holder = "gone-host:9"
    heartbeat.beat(holder, first=True)
    assert runs.claim(run_id, holder, BlobStore(app.config["UPLOAD_DIR"])) is not None
    assert runs.claim(run_id, "me:1", BlobStore(app.config["UPLOAD_DIR"])) is None  # alive
    # The holder fell silent a minute ago (ages set with the database's own clock).
    db.session.execute(db.update(WorkerHeartbeat).where(WorkerHeartbeat.hostname == holder)
                       .values(last_seen=db_now(-60), started_at=db_now(-120)))
    db.session.execute(db.update(GradingRun).where(GradingRun.id == run_id).values(started_at=db_now(-60)))
    db.session.commit()
    assert runs.claim(run_id, "me:1", BlobStore(app.config["UPLOAD_DIR"])) is not None


def test_the_sweeper_keeps_sweeping_after_exceptions_in_a_sweep_and_in_its_pause(app, monkeypatch):
    calls: list[float | None] = []
    fail = {"sweep": 2, "pause": 2}

    def flaky_sweep(grace_s: float | None = None) -> list[int]:
        calls.append(grace_s)
        if fail["sweep"]:
            fail["sweep"] -= 1
            raise RuntimeError("injected: database went away mid-sweep")
        return []

    real_setting = sweeper.setting

    def flaky_setting(name: str) -> float:
        if name == "SWEEP_INTERVAL_S":
            if fail["pause"]:
                fail["pause"] -= 1
                raise ValueError("injected: broken SWEEP_INTERVAL_S")
            return 0.05
        return real_setting(name)

    monkeypatch.setattr(sweeper, "setting", flaky_setting)
    loop = sweeper.SweeperLoop(app, flaky_sweep)
    loop.fallback_interval_s = 0.05
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while loop.sweeps < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert loop.sweeps >= 3, f"only {loop.sweeps} sweeps completed; calls {calls}"
        assert thread.is_alive()
        # A broker reconnect wakes it at once, with no grace period.
        monkeypatch.setattr(sweeper, "setting", lambda name: 3600.0)  # no periodic sweep meanwhile
        time.sleep(0.2)
        before = len(calls)
        loop.wake(urgent=True)
        deadline = time.monotonic() + 5
        while len(calls) == before and time.monotonic() < deadline:
            time.sleep(0.02)
        assert calls[before:] == [0.0]
    finally:
        loop.stop()
        thread.join(5)
    assert calls[0] == 0.0  # the first sweep after start has no grace either


def test_live_worker_count_uses_the_database_clock_and_drops_when_beats_stop(app, client, factory, monkeypatch):
    app.config["HEARTBEAT_STALE_S"] = 30
    heartbeat.beat("w-host:1", first=True)
    heartbeat.beat("w-host:2", first=True)
    host_clock_ahead(monkeypatch, 45)  # the web host's clock is ahead: both still count
    assert client.get("/healthz").get_json()["workers"]["count"] == 2
    db.session.execute(db.update(WorkerHeartbeat).where(WorkerHeartbeat.hostname == "w-host:2")
                       .values(last_seen=db_now(-31)))
    db.session.commit()
    body = client.get("/healthz").get_json()
    assert body["workers"]["count"] == 1 and body["workers"]["names"] == ["w-host:1"]
    assert db.session.scalar(select(WorkerHeartbeat.hostname).where(WorkerHeartbeat.hostname == "w-host:2"))
