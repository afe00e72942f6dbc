"""Round 34: infrastructure faults the earlier rounds did not meet, each on real processes and
private servers (tests/reliability/services.py)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import GradingRun
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.factories import Factory
from tests.reliability.helpers import (
    CORRECT,
    CORRECT_TOTAL,
    all_finished,
    api_upload,
    assert_graded_exactly_once,
    http_server,
    make_rig,
    worker_log_tail,
)
from tests.reliability.test_failures import submit_many
from tests.reliability.test_outages import SLOW_CORRECT, private_pg, tokens_for  # noqa: F401 - the fixture
from tests.workers import (
    child_pids,
    running_worker,
    start_worker,
    stop,
    wait_for,
    wait_ready,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


@contextmanager
def read_only(pg) -> Iterator[None]:
    """The whole server refuses writes (SQLSTATE 25006), as a failed-over old primary or a server
    put in read-only mode does, on the connections already open too (a configuration reload)."""
    with psycopg.connect(f"host=127.0.0.1 port={pg.port} user=postgres dbname=postgres", autocommit=True) as admin:
        admin.execute("SET default_transaction_read_only = off")  # this session may still undo it
        admin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
        admin.execute("SELECT pg_reload_conf()")
        try:
            yield
        finally:
            admin.execute("ALTER SYSTEM RESET default_transaction_read_only")
            admin.execute("SELECT pg_reload_conf()")


def test_a_read_only_database_at_the_store_keeps_the_grading_and_stores_it_once_writable(
    private_pg, redis_url, tmp_path  # noqa: F811 - the imported fixture
):
    pg, db_url = private_pg
    rig = make_rig(tmp_path, db_url, redis_url)
    with rig.app.app_context():
        f = Factory()
        sub = submit(f.assignment(), f.student(), Upload("attention.py", SLOW_CORRECT),
                     store=BlobStore(rig.app.config["UPLOAD_DIR"])).id
        run_id = db.session.scalar(select(GradingRun.id).where(GradingRun.submission_id == sub))
        db.session.remove()
    log = rig.log("read-only")
    worker = start_worker(rig.env(db_url, IDLE_WINDOW_S=60, IDLE_TOTAL_S=120, HEARTBEAT_STALE_S=60), "ro", 1, log)
    try:
        wait_ready(worker, log, 120)
        wait_for(lambda: _status(rig.app, run_id) == "running", 120, interval=0.05, what="the grading to start")
        with read_only(pg):
            time.sleep(8)  # the grading ends (about 3 s) and its store meets the read-only server
        try:
            wait_for(lambda: all_finished(rig.app, [sub]), 20, interval=0.5, what="the run to be stored")
        except AssertionError:
            print(worker_log_tail(log))
            raise
    finally:
        stop(worker)
    (run,) = assert_graded_exactly_once(rig.app, {sub: CORRECT_TOTAL})
    assert run.tries == 1, "the finished grading was thrown away and graded again"
    assert "read-only" in log.read_text()  # the operator is told what the database answered


def test_an_upload_while_redis_is_frozen_is_answered_in_seconds_and_its_run_waits_queued(
    migrated_pg, private_redis, tmp_path
):
    """Redis accepts connections but answers nothing (stopped, swapped out, partitioned): the upload
    is still accepted within seconds, its run committed `queued` for the sweeper, not held for ever."""
    rig = make_rig(tmp_path, migrated_pg, private_redis.url)
    (token,) = tokens_for(rig.app, 1)
    with http_server(rig.app) as base:
        os.kill(private_redis.proc.pid, signal.SIGSTOP)
        try:
            start = time.monotonic()
            status, body = api_upload(base, token, CORRECT, timeout=30)
            took = time.monotonic() - start
        finally:
            os.kill(private_redis.proc.pid, signal.SIGCONT)
    assert status == 202 and took < 10, (status, round(took, 1))
    with rig.app.app_context():
        assert db.session.scalar(select(GradingRun.status).where(GradingRun.submission_id == body["id"])) == "queued"
        db.session.remove()


def test_a_zygote_killed_mid_grading_is_the_graders_failure_retried_not_the_students(rig):
    """The OOM killer's favourite process (it holds torch) dies mid-grading: the run is retried on a new
    zygote and graded as if nothing happened; no test blames the student's code for the lost sandbox."""
    (sub,) = submit_many(rig.app, [(b"import time\ntime.sleep(4)\n" + CORRECT, CORRECT_TOTAL)])
    env = rig.env(HEARTBEAT_STALE_S=600, SWEEP_INTERVAL_S=600, IDLE_WINDOW_S=60, IDLE_TOTAL_S=120)
    with running_worker(env, "zygote", 1, rig.log("zygote")):

        def zygote_of_the_holder() -> int | None:
            with rig.app.app_context():
                worker = db.session.scalar(select(GradingRun.worker).where(GradingRun.status == "running"))
                db.session.remove()
            if not worker:
                return None
            # The zygote once a jail of it imports the file (other children may name it in their argv).
            return next((p for p in child_pids(int(worker.rpartition(":")[2]))
                         if "grading.sandbox.zygote" in cmdline(p) and child_pids(p)), None)

        try:
            os.kill(wait_for(zygote_of_the_holder, 120, interval=0.05, what="a grading to start"), signal.SIGKILL)
            wait_for(lambda: all_finished(rig.app, [sub]), 120, what="the run to finish")
        except AssertionError:
            print(worker_log_tail(rig.log("zygote")))
            raise
    with rig.app.app_context():
        run = db.session.scalar(select(GradingRun).where(GradingRun.submission_id == sub))
        tries, total = run.tries, run.total
        db.session.remove()
    assert tries == 2, f"the grading that lost its sandbox was kept as the grade ({total} points)"
    assert_graded_exactly_once(rig.app, {sub: CORRECT_TOTAL})


def test_a_result_neither_database_nor_full_disk_takes_is_held_and_stored_once(private_pg, redis_url, tmp_path):  # noqa: F811
    """PostgreSQL is away past DB_RETRY_S and the worker's DATA_DIR takes no spool file either (full,
    or here: `spool` is a file): the finished grading is held by its task and stored once the
    database returns, not dropped and graded again after RUN_DEADLINE_S."""
    pg, db_url = private_pg
    rig = make_rig(tmp_path, db_url, redis_url)
    with rig.app.app_context():
        f = Factory()
        sub = submit(f.assignment(), f.student(), Upload("attention.py", SLOW_CORRECT),
                     store=BlobStore(rig.app.config["UPLOAD_DIR"])).id
        run_id = db.session.scalar(select(GradingRun.id).where(GradingRun.submission_id == sub))
        db.session.remove()
    (rig.data_dir / "spool").write_text("not a folder")
    log = rig.log("held")
    env = rig.env(db_url, IDLE_WINDOW_S=60, IDLE_TOTAL_S=120, HEARTBEAT_STALE_S=60, DB_RETRY_S=3)
    worker = start_worker(env, "held", 1, log)
    try:
        wait_ready(worker, log, 120)
        wait_for(lambda: _status(rig.app, run_id) == "running", 120, interval=0.05, what="the grading to start")
        with rig.app.app_context():
            db.engine.dispose()
        pg.stop()
        time.sleep(12)  # the grading ends (about 3 s) and its store outlasts DB_RETRY_S
        pg.start()
        try:
            wait_for(lambda: all_finished(rig.app, [sub]), 20, interval=0.5, what="the held result to land")
        except AssertionError:
            print(worker_log_tail(log))
            raise
    finally:
        stop(worker)
    (run,) = assert_graded_exactly_once(rig.app, {sub: CORRECT_TOTAL})
    assert run.tries == 1, "the finished grading was thrown away and graded again"
    assert "held in memory until the database returns" in log.read_text()


def _status(app, run_id: int) -> str:
    with app.app_context():
        status = db.session.get(GradingRun, run_id).status
        db.session.remove()
    return status
