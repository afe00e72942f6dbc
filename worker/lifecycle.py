"""Worker process hooks: warm the sandbox before the first task, beat, sweep, flush the spool.

The sweeper runs in the worker's main process at start-up and then every ``SWEEP_INTERVAL_S``
(environment or Flask config; 20 s by default), and at once, with no grace period, each time the
consumer reconnects to the broker (`SweepOnConnect`): a Redis that restarted without persistence
lost the waiting messages, and the runs they carried are sent again right away.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from celery import Celery, bootsteps, signals
from celery.concurrency.prefork import TaskPool as PreforkPool
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


class WarmupStop:
    """Ends the pool processes still warming up (torch import, zygote, suites: 5-25 s on a loaded
    host) as soon as the pool is stopped.

    Why: Celery's warm shutdown closes the pool and joins its processes, and a process still in its
    initializer reads the pool's stop only once that initializer returns: the first Ctrl-C of
    `autograder run` (or a `docker stop`) waited out the whole warm-up, measured 25.7 s, for a process
    that held no task. Such a process has nothing to lose; a process that already holds a grading is
    left to finish it, as before (warm shutdown).

    How: a pipe made in the Celery main process before the pool forks. Each pool process closes its
    copy of the write end and, while it warms up, a thread waits on the read end. The main process
    closes its write end once the pool is closed (:class:`TaskPool`: no process is started in place of
    one that ends), the read end sees EOF, and the thread ends the process (``os._exit``, after
    ``on_stop``): an exception raised into the warming thread instead landed inside imports (numpy
    then refused to load again) or in code that swallowed it and warmed on. Its zygote, if started,
    ends when its control socket closes; `run` kills what is left of the worker's process group."""

    def __init__(self) -> None:
        self._owner = os.getpid()
        self._r, self._w = os.pipe()

    def pool_stopped(self) -> None:
        """In the Celery main process, once its pool is closed."""
        if os.getpid() == self._owner and self._w >= 0:
            os.close(self._w)
            self._w = -1

    @contextmanager
    def warming(self, on_stop: Callable[[], None]) -> Iterator[None]:
        """Around a pool process's warm-up: when the pool is stopped meanwhile, ``on_stop()`` then exit."""
        if os.getpid() != self._owner and self._w >= 0:
            os.close(self._w)        # this process's copy: the main process's close alone must end the pipe
            self._w = -1
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                if select.select([self._r], [], [], 0.2)[0]:
                    if done.is_set():
                        return
                    log.info("the pool was stopped while this process warmed up: it ends now (it holds no task)")
                    try:
                        on_stop()
                    finally:
                        os._exit(0)

        watcher = threading.Thread(target=watch, name="warmup-stop", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()


_warmup: WarmupStop | None = None


class TaskPool(PreforkPool):
    """Celery's prefork pool (``worker_pool``, worker/entry.py) whose stop ends the processes still
    warming up (:class:`WarmupStop`), after closing the pool so that none is started in their place."""

    def on_stop(self) -> None:
        if self._pool is not None:
            self._pool.close()       # billiard's close is idempotent: on_stop's own close does nothing more
        if _warmup is not None:
            _warmup.pool_stopped()
        super().on_stop()


def connect(app: Flask, celery_app: Celery | None = None) -> None:
    if celery_app is not None:
        celery_app.steps["consumer"].add(SweepOnConnect)
    global _warmup
    _warmup = warmup = WarmupStop()
    from app.extensions import db
    from worker.runs import treat_read_only_as_unavailable

    with app.app_context():
        # Before the pool forks: every process of the worker (main, pool) shares the engine object.
        treat_read_only_as_unavailable(db.engine)

    def forget_beat() -> None:
        """This pool process's heartbeat row goes: it takes no more work."""
        from worker import heartbeat, runs

        try:
            with app.app_context():
                heartbeat.forget(runs.worker_name())
        except Exception:  # noqa: BLE001 - the row goes stale by itself
            pass

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
        with warmup.warming(on_stop=forget_beat):
            try:
                get_executor()  # pay the torch import now, not in the first student's grading
            except Exception as exc:  # noqa: BLE001 - reported per run as an infrastructure error
                log.error("sandbox executor could not start: %s", exc)
            warm_suites()

    @signals.worker_process_shutdown.connect(weak=False)
    def shutdown_pool_process(**_: object) -> None:
        from grading.executor import close_executor

        close_executor()
        forget_beat()

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
