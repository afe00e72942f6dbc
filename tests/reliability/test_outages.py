"""Redis restarts, a PostgreSQL outage and a crashed Celery worker, on private servers.

A private `redis-server` without persistence and a private PostgreSQL cluster (tests/reliability/
services.py) can be restarted and stopped without disturbing anyone else. Workers are real
`autograder worker` processes (supervisor + Celery worker + pool + sandbox).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest
from flask_migrate import upgrade
from sqlalchemy import select

from app.extensions import db
from app.models import GradingRun
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.factories import Factory
from tests.helpers import make_app
from tests.reliability.helpers import (
    CORRECT,
    CORRECT_TOTAL,
    FAULTY,
    FAULTY_TOTALS,
    all_finished,
    api_upload,
    assert_graded_exactly_once,
    http_server,
    make_rig,
    worker_log_tail,
)
from tests.reliability.services import PrivatePostgres, can_run_private_postgres
from tests.workers import BIN, child_pids, descendant_pids, start_worker, stop, wait_for, wait_ready

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

# A correct submission whose import takes 2 s: a grading that is surely in progress when a fault hits.
SLOW_CORRECT = b"import time\ntime.sleep(2)\n" + CORRECT


@pytest.fixture(scope="module")
def private_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PrivatePostgres, str]]:
    if reason := can_run_private_postgres():
        pytest.skip(reason)
    pg = PrivatePostgres().init()
    pg.start()
    try:
        url = pg.create_database("autograder")
        app = make_app(tmp_path_factory.mktemp("pg-migrate"), url)
        with app.app_context():
            upgrade()
            db.engine.dispose()
        yield pg, url
    finally:
        pg.destroy()


def tokens_for(app, n: int) -> list[str]:
    with app.app_context():
        f = Factory()
        f.assignment()
        out = [f.token(f.student()) for _ in range(n)]
        db.session.remove()
    return out


def celery_children(supervisor: subprocess.Popen) -> set[int]:
    return child_pids(supervisor.pid)


def test_repeated_redis_restarts_during_a_burst_refuse_no_upload_and_lose_no_worker(
    migrated_pg, private_redis, tmp_path
):
    """Redis (no persistence) is killed and restarted three times while 24 students upload: every
    upload is accepted (202, never a 500), every one is graded exactly once, both workers are
    still alive and consuming afterwards, and the uploads lost with Redis are graded without
    waiting for the periodic sweeper (its grace period and interval are two minutes here)."""
    rig = make_rig(tmp_path, migrated_pg, private_redis.url)
    env = rig.env(QUEUED_GRACE_S=120, SWEEP_INTERVAL_S=120)
    items = [(CORRECT, CORRECT_TOTAL) if i % 3 else (FAULTY["no_scale"], FAULTY_TOTALS["no_scale"])
             for i in range(24)]
    tokens = tokens_for(rig.app, len(items) + 4)
    logs = [rig.log("redis-a"), rig.log("redis-b")]
    workers = [start_worker(env, "redis-a", 1, logs[0]), start_worker(env, "redis-b", 1, logs[1])]
    results: list[tuple[int, dict] | None] = [None] * len(items)
    try:
        for proc, log in zip(workers, logs, strict=True):
            wait_ready(proc, log, 120)
        with http_server(rig.app) as base:

            def burst() -> None:
                for i, (code, _) in enumerate(items):
                    results[i] = api_upload(base, tokens[i], code, timeout=30)
                    time.sleep(0.4)

            uploader = threading.Thread(target=burst)
            uploader.start()
            for _ in range(3):
                time.sleep(2.5)
                private_redis.restart(down_s=1.5)
            uploader.join(120)
            last_restart = time.monotonic()
            statuses = [r[0] if r else None for r in results]
            assert statuses == [202] * len(items), statuses
            expected = {r[1]["id"]: total for r, (_, total) in zip(results, items, strict=True)}
            try:
                wait_for(lambda: all_finished(rig.app, list(expected)), 90, what="every accepted upload graded")
            except AssertionError:
                print(worker_log_tail(*logs))
                raise
            recovered_s = time.monotonic() - last_restart
            # Still consuming: four more uploads after the last restart are graded promptly.
            after = [api_upload(base, tokens[len(items) + i], CORRECT) for i in range(4)]
            assert [s for s, _ in after] == [202] * 4, after
            wait_for(lambda: all_finished(rig.app, [b["id"] for _, b in after]), 60, what="uploads after the restarts")
        expected.update({b["id"]: CORRECT_TOTAL for _, b in after})
        assert_graded_exactly_once(rig.app, expected)
        assert recovered_s < 60, f"lost uploads took {recovered_s:.0f} s after the last restart"
        for proc, log in zip(workers, logs, strict=True):
            assert proc.poll() is None, f"worker exited:\n{worker_log_tail(log)}"
            assert celery_children(proc), "the supervisor has no Celery worker"
            text = log.read_text(errors="replace")
            assert text.count("sweeping for runs it may have lost") >= 2, worker_log_tail(log)
        crashes = sum(log.read_text(errors="replace").count("Unrecoverable error") for log in logs)
        print(f"all graded {recovered_s:.1f} s after the last restart; Celery crashes survived: {crashes}")
    finally:
        for proc in workers:
            stop(proc)


def test_postgres_stopped_for_90_s_leaves_no_run_running_30_s_after_it_returns(private_pg, redis_url, tmp_path):
    """The database goes away while a grading is in progress, for longer than the task keeps
    retrying its store (DB_RETRY_S, 60 s). The finished grading is kept on the worker's disk and
    stored within seconds of the database's return: it is not graded again, and nothing is
    left `running`."""
    pg, db_url = private_pg
    outage_s = float(os.environ.get("PG_OUTAGE_S", 90))
    rig = make_rig(tmp_path, db_url, redis_url)
    with rig.app.app_context():
        f = Factory()
        a = f.assignment()
        store = BlobStore(rig.app.config["UPLOAD_DIR"])
        slow = submit(a, f.student(), Upload("attention.py", SLOW_CORRECT), store=store).id
        others = [submit(a, f.student(), Upload("attention.py", CORRECT), store=store).id for _ in range(3)]
        slow_run = db.session.scalar(select(GradingRun.id).where(GradingRun.submission_id == slow))
        db.session.remove()
    log = rig.log("pg-outage")
    # The slow file sleeps at import: sitting idle that long is stopped since round 27 (IDLE_WINDOW_S), and
    # this test needs a correct grading that surely takes seconds.
    worker = start_worker(rig.env(db_url, IDLE_WINDOW_S=60, IDLE_TOTAL_S=120), "pg-outage", 1, log)
    try:
        wait_ready(worker, log, 120)

        def slow_is_running() -> bool:
            with rig.app.app_context():
                status = db.session.get(GradingRun, slow_run).status
                db.session.remove()
            return status == "running"

        wait_for(slow_is_running, 120, interval=0.05, what="the slow grading to start")
        with rig.app.app_context():
            db.session.remove()
            db.engine.dispose()
        pg.stop()
        time.sleep(outage_s)
        pg.start()
        back = time.monotonic()
        try:
            wait_for(lambda: all_finished(rig.app, [slow, *others]), 30, interval=0.5,
                     what="every run to finish within 30 s of the database's return")
        except AssertionError:
            print(worker_log_tail(log))
            raise
        print(f"all finished {time.monotonic() - back:.1f} s after PostgreSQL returned")
    finally:
        stop(worker)
    runs = assert_graded_exactly_once(rig.app, {sid: CORRECT_TOTAL for sid in [slow, *others]})
    assert {r.id: r.tries for r in runs}[slow_run] == 1, "the kept result was thrown away and graded again"
    assert "until it returns" in log.read_text() and "kept result stored" in log.read_text()
    assert not list((rig.data_dir / "spool").glob("run-*.json"))


def test_a_crashed_celery_worker_is_restarted_by_autograder_worker(rig):
    log = rig.log("crash-restart")
    worker = start_worker(rig.env(), "crash-restart", 1, log)
    try:
        wait_ready(worker, log, 120)
        env = rig.env()
        healthy = subprocess.run([str(BIN), "worker", "--check"], env=env, capture_output=True, text=True)
        assert healthy.returncode == 0, healthy.stderr
        (first,) = celery_children(worker)
        os.kill(first, signal.SIGKILL)  # as an OOM kill or an unrecoverable error would end it
        wait_for(lambda: celery_children(worker) - {first}, 30, what="a new Celery worker")
        wait_for(lambda: log.read_text().count(" ready.") >= 2, 120, what="the new Celery worker to be ready")
        with rig.app.app_context():
            f = Factory()
            sub = submit(f.assignment(), f.student(), Upload("attention.py", CORRECT),
                         store=BlobStore(rig.app.config["UPLOAD_DIR"]))
            sub_id = sub.id
            db.session.remove()
        wait_for(lambda: all_finished(rig.app, [sub_id]), 60, what="a grading by the restarted worker")
        assert worker.poll() is None
        assert "restarting in" in log.read_text()
    finally:
        stop(worker)
    assert not descendant_pids(worker.pid)
    # With no worker left on this host, the healthcheck fails once the heartbeats are stale.
    time.sleep(float(rig.env()["HEARTBEAT_STALE_S"]) + 1)
    unhealthy = subprocess.run([str(BIN), "worker", "--check"], env=rig.env(), capture_output=True, text=True)
    assert unhealthy.returncode == 1 and "unhealthy" in unhealthy.stderr
