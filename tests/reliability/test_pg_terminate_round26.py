"""PostgreSQL connections killed (pg_terminate_backend) while a worker claims, grades and stores a
burst: what a failover, a pooler restart or an administrator's kill does to live connections, without
the server going away (test_outages stops the server; here every pooled connection dies at once,
again and again, while the server keeps answering new ones)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import create_engine, text

from tests.reliability.helpers import all_finished, assert_graded_exactly_once, run_statuses, worker_log_tail
from tests.reliability.test_failures import corpus, submit_many
from tests.workers import running_worker, wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

APP_NAME = "autograder-killed-worker"


def test_worker_connections_killed_mid_burst_grade_everything_exactly_once(rig, migrated_pg):
    expected = submit_many(rig.app, corpus(8))
    ids = list(expected)
    sep = "&" if "?" in migrated_pg else "?"
    env = rig.env(db_url=f"{migrated_pg}{sep}application_name={APP_NAME}")
    admin = create_engine(migrated_pg, isolation_level="AUTOCOMMIT")
    killed: list[int] = []
    stop_killing = threading.Event()

    def killer() -> None:
        # Only the worker's connections (by application_name): the test's own stay up.
        while not stop_killing.is_set():
            try:
                with admin.connect() as conn:
                    n = conn.execute(text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE application_name = :a AND pid <> pg_backend_pid()"), {"a": APP_NAME}).scalar()
                killed.append(int(n or 0))
            except Exception:  # noqa: BLE001 - keep killing
                pass
            stop_killing.wait(0.3)

    with running_worker(env, "killed", concurrency=2, log=rig.log("killed")):
        try:
            wait_for(lambda: run_statuses(rig.app).get("running", 0) >= 1, 120, interval=0.1,
                     what="a grading to start")
            thread = threading.Thread(target=killer, daemon=True)
            thread.start()
            time.sleep(25)
            stop_killing.set()
            thread.join(timeout=10)
            wait_for(lambda: all_finished(rig.app, ids), 180, what="every submission to end")
        except AssertionError:
            print(worker_log_tail(rig.log("killed")), run_statuses(rig.app))
            raise
        finally:
            stop_killing.set()
            admin.dispose()
    print(f"connections killed: {sum(killed)} in {len(killed)} rounds; runs {run_statuses(rig.app)}")
    assert sum(killed) > 0
    assert_graded_exactly_once(rig.app, expected)
