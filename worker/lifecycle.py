"""Worker process hooks: warm the sandbox before the first task, beat, sweep, flush the spool.

The sweeper runs in the worker's main process at start-up and then every ``SWEEP_INTERVAL_S``
(environment or Flask config; 20 s by default), and at once, with no grace period, each time the
consumer reconnects to the broker (`SweepOnConnect`): a Redis that restarted without persistence
lost the waiting messages, and the runs they carried are sent again right away.
"""

from __future__ import annotations

import logging
import threading

from celery import Celery, bootsteps, signals
from flask import Flask

log = logging.getLogger(__name__)

# The main process's sweeper, once the worker is ready (a reconnect wakes it).
_sweeper = None


class SweepOnConnect(bootsteps.StartStopStep):
    """A consumer step: Celery starts it after every (re)connection to the broker."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, c: object) -> None:
        if _sweeper is not None:
            log.info("connected to the broker: sweeping for runs it may have lost")
            _sweeper.wake(urgent=True)

def connect(app: Flask, celery_app: Celery | None = None) -> None:
    if celery_app is not None:
        celery_app.steps["consumer"].add(SweepOnConnect)

    @signals.worker_process_init.connect(weak=False)
    def init_pool_process(**_: object) -> None:
        from importlib.metadata import version

        from app.extensions import db
        from grading.executor import get_executor
        from worker import heartbeat, runs

        # Connections opened by the parent must not be shared with a forked child.
        with app.app_context():
            db.engine.dispose(close=False)
        try:
            release = version("autograder")
        except Exception:  # noqa: BLE001 - not installed as a package: still beat
            release = ""
        # The first beat (this process's start, by the database's clock) is written before any
        # claim this process can make; the thread writes it if the database is away right now.
        first_done = False
        try:
            with app.app_context():
                heartbeat.beat(runs.worker_name(), release, first=True)
                db.session.remove()
            first_done = True
        except Exception as exc:  # noqa: BLE001 - the database may be briefly away
            log.warning("first heartbeat failed: %s", exc)
        heartbeat.start_thread(app, runs.worker_name(), release, first_done=first_done)
        try:
            get_executor()  # pay the torch import now, not in the first student's grading
        except Exception as exc:  # noqa: BLE001 - reported per run as an infrastructure error
            log.error("sandbox executor could not start: %s", exc)
        warm_suites()

    @signals.worker_process_shutdown.connect(weak=False)
    def shutdown_pool_process(**_: object) -> None:
        from grading.executor import close_executor
        from worker import heartbeat, runs

        close_executor()
        try:
            with app.app_context():
                heartbeat.forget(runs.worker_name())
        except Exception:  # noqa: BLE001
            pass

    @signals.worker_ready.connect(weak=False)
    def start_sweeper(**_: object) -> None:
        from worker import spool
        from worker.sweeper import SweeperLoop

        global _sweeper
        # At start-up first (runs orphaned while no worker was up), then periodically.
        _sweeper = SweeperLoop(app).start()
        # Finished gradings kept while the database was away are stored within a second of its
        # return, before any other host could take their runs over.
        threading.Thread(target=spool.flush_forever, args=(app,), name="spool", daemon=True).start()


def warm_suites() -> None:
    """Import and warm every acceptance suite before the first task (about 0.4 s each), and
    configure and collect its pytest session once (grading.collected) for the forked children."""
    from grading.collected import collected_suite
    from grading.suite_state import suite_state
    from rubric.loader import SUITE_ROOT

    for suite in sorted(SUITE_ROOT.glob("*/suite.py")):
        try:
            collected_suite(suite.parent.name, suite_state(suite.parent.name).suite)
        except Exception as exc:  # noqa: BLE001 - a broken suite is reported when it is used
            log.warning("suite %s could not be warmed: %s", suite.parent.name, exc)
    # Figures (and legacy PDF audits) are decoded by children of a fork server: start it now,
    # not in the first grading that needs it.
    try:
        from grading.decode import warm

        warm()
    except Exception as exc:  # noqa: BLE001 - decoding then starts it on first use
        log.warning("the decoding server could not be started: %s", exc)
