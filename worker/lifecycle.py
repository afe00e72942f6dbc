"""Worker process hooks: warm the sandbox before the first task, beat, sweep.

The sweeper runs in the worker's main process at start-up and then every ``SWEEP_INTERVAL_S``
(environment or Flask config; 20 s by default).
"""

from __future__ import annotations

import logging
import threading
import time

from celery import signals
from flask import Flask

log = logging.getLogger(__name__)

def connect(app: Flask) -> None:
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
        heartbeat.start_thread(app, runs.worker_name(), release)
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
        from worker.runs import setting
        from worker.sweeper import sweep

        def loop() -> None:
            # At start-up first (runs orphaned while no worker was up), then periodically.
            while True:
                try:
                    with app.app_context():
                        sweep()
                except Exception as exc:  # noqa: BLE001 - the database or broker may be away
                    log.warning("sweep failed: %s", exc)
                time.sleep(setting("SWEEP_INTERVAL_S"))

        threading.Thread(target=loop, name="sweeper", daemon=True).start()


def warm_suites() -> None:
    """Import and warm every acceptance suite before the first task (about 0.4 s each)."""
    from grading.suite_state import suite_state
    from rubric.loader import SUITE_ROOT

    for suite in sorted(SUITE_ROOT.glob("*/suite.py")):
        try:
            suite_state(suite.parent.name)
        except Exception as exc:  # noqa: BLE001 - a broken suite is reported when it is used
            log.warning("suite %s could not be warmed: %s", suite.parent.name, exc)
    # Figures (and legacy PDF audits) are decoded by children of a fork server: start it now,
    # not in the first grading that needs it.
    try:
        from grading.decode import warm

        warm()
    except Exception as exc:  # noqa: BLE001 - decoding then starts it on first use
        log.warning("the decoding server could not be started: %s", exc)
