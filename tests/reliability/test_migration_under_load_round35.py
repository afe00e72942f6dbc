"""Round 35: a migration applied while a worker grades. A deployment runs `autograder db upgrade` while the
workers of the running version are busy (a deadline is no time to drain them). The newest revision adds
a table whose foreign key points at grading_runs: PostgreSQL takes a lock on grading_runs for it, which
waits for every open transaction on that table. A worker that held a transaction through its sandbox
run would stall the migration for the whole grading, and every writer queued behind the migration's
lock (uploads, heartbeats) with it. Workers release their session before the jail runs (docs/contracts.md),
so the upgrade goes through while the grading is in progress, and the grading is stored once."""

from __future__ import annotations

import time

import pytest
from flask_migrate import upgrade
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import OperationalError

from app.extensions import db
from app.models import GradingRun
from app.storage import BlobStore
from app.submitting import Upload, submit
from autograder import settings
from tests.factories import Factory
from tests.helpers import make_app, scratch_pg_database
from tests.reliability.helpers import (
    CORRECT_TOTAL,
    Rig,
    all_finished,
    assert_graded_exactly_once,
    clear_redis,
    worker_log_tail,
)
from tests.reliability.test_outages import SLOW_CORRECT
from tests.workers import start_worker, stop, wait_for, wait_ready

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

BEFORE_NEWEST = "0013_clean_names"   # the revision before the newest, which adds a table referencing grading_runs


def _run_status(app, run_id: int) -> str | None:
    with app.app_context():
        status = db.session.scalar(select(GradingRun.status).where(GradingRun.id == run_id))
        db.session.remove()
        return status


def test_an_upgrade_during_a_grading_goes_through_at_once_and_the_grading_is_stored_once(redis_url, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.setattr(settings, "MIGRATION_LOCK_TIMEOUT_S", 3)
    with scratch_pg_database("autograder_migrate") as url:
        data, logs = tmp_path / "data", tmp_path / "logs"
        logs.mkdir()
        app = make_app(data, url, CELERY_BROKER_URL=redis_url, REDIS_URL=redis_url)
        with app.app_context():
            upgrade(revision=BEFORE_NEWEST)
            f = Factory()
            sub = submit(f.assignment(), f.student(), Upload("attention.py", SLOW_CORRECT),
                         store=BlobStore(app.config["UPLOAD_DIR"])).id
            run_id = db.session.scalar(select(GradingRun.id).where(GradingRun.submission_id == sub))
            db.session.remove()
        rig = Rig(app, url, redis_url, data, logs)
        clear_redis(rig.redis())
        log = rig.log("migrate")
        env = rig.env(url, HEARTBEAT_INTERVAL_S=0.5)
        worker = start_worker(env, "migrate", 1, log)
        try:
            wait_ready(worker, log, 120)
            wait_for(lambda: _run_status(app, run_id) == "running", 120, interval=0.05, what="the grading to start")
            # Applied from this process (a CLI's cold start would outlast the grading), with the migrations' lock
            # timeout (MIGRATION_LOCK_TIMEOUT_S): were the lock held by the worker, the upgrade would fail after it.
            migrator = make_app(tmp_path / "migrator", url)
            start = time.monotonic()
            with migrator.app_context():
                upgrade()
                db.engine.dispose()
            took = time.monotonic() - start
            still_running = _run_status(app, run_id) == "running"
            try:
                wait_for(lambda: all_finished(app, [sub]), 60, interval=0.2, what="the run to be stored")
            except AssertionError:
                print(worker_log_tail(log))
                raise
        finally:
            stop(worker)
        assert still_running, "the grading ended before the upgrade did: nothing overlapped (make it slower)"
        assert took < 4, f"the upgrade took {took:.1f} s while a grading ran"
        with app.app_context():
            assert db.session.scalar(text("SELECT version_num FROM alembic_version")) != BEFORE_NEWEST
            db.session.remove()
        (run,) = assert_graded_exactly_once(app, {sub: CORRECT_TOTAL})
        assert run.tries == 1
        with app.app_context():
            db.engine.dispose()


def test_an_upgrade_that_meets_a_long_transaction_fails_after_the_lock_timeout_with_nothing_applied(tmp_path,
                                                                                                   monkeypatch, capfd):
    """A transaction left open on grading_runs (a stuck script, a psql session): the upgrade gives up after
    MIGRATION_LOCK_TIMEOUT_S, the database unchanged, instead of waiting with every later writer of
    grading_runs queued behind it; once the transaction ends the same upgrade goes through."""
    monkeypatch.setattr(settings, "MIGRATION_LOCK_TIMEOUT_S", 1.5)
    with scratch_pg_database("autograder_migrate") as url:
        app = make_app(tmp_path, url)
        with app.app_context():
            upgrade(revision=BEFORE_NEWEST)
            db.engine.dispose()
        holder = create_engine(url)
        try:
            with holder.connect() as conn:
                conn.execute(text("UPDATE grading_runs SET tries = tries"))   # ROW EXCLUSIVE until rollback
                start = time.monotonic()
                with app.app_context(), pytest.raises(OperationalError, match="lock timeout"):
                    upgrade()
                took = time.monotonic() - start
                with app.app_context():
                    db.engine.dispose()
                conn.rollback()
            assert 1.4 < took < 6, took
            assert "run `autograder db upgrade` again" in capfd.readouterr().err   # the operator is told what to do
            with app.app_context():
                assert db.session.scalar(text("SELECT version_num FROM alembic_version")) == BEFORE_NEWEST
                assert not db.session.scalar(text("SELECT to_regclass('answered_regrade_keys') IS NOT NULL"))
                db.session.remove()
                upgrade()
                assert db.session.scalar(text("SELECT version_num FROM alembic_version")) != BEFORE_NEWEST
                # the timeout was the migration's own: the app's pooled connection does not keep it (SET LOCAL)
                assert db.session.scalar(text("SHOW lock_timeout")) == "0"
                db.session.remove()
                db.engine.dispose()
        finally:
            holder.dispose()
