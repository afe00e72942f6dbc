"""`autograder worker` keeps its Celery worker alive, whatever the orchestrator.

Why: kombu's Redis transport can end a Celery worker for good when the broker drops while
messages are unacknowledged (acks_late, a grading in progress). On the connection error Celery
calls ``Connection.collect()``: closing the channels restores their unacked messages, which fails
with a connection error on the first channel and leaves the others open, and then the transport
is detached (``transport.client = None``). When Celery's task-consumer shutdown closes one of the
channels left open, the restore builds a new Redis client from ``connection.client.hostname``
and raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``. Celery does not
count an AttributeError as a connection error, so it logs "Unrecoverable error" and exits.
`tests/reliability/test_kombu_crash.py` reproduces it with the pinned kombu 5.7.0 (kombu issues
#582 and #970 show the same path); no setting turns the Redis transport's restore off. The
message itself is not lost: Redis redelivers it, and the sweeper re-sends it far sooner.

So the supervisor runs the Celery worker as a child process and starts a new one whenever it
exits without being asked to (a crash, an OOM kill, that AttributeError), after a short backoff
(``WORKER_RESTART_BACKOFF_S`` doubling up to ``WORKER_RESTART_BACKOFF_MAX_S``; reset once a child
has run for a minute). SIGTERM, SIGINT, SIGQUIT and SIGHUP are passed on to the child, and the
supervisor exits with the child's code once it has stopped. The child gets SIGTERM if the
supervisor itself dies (``PR_SET_PDEATHSIG``), so it never outlives it.
"""

from __future__ import annotations

import ctypes
import logging
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

from autograder import settings

log = logging.getLogger("autograder.supervisor")

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)
PR_SET_PDEATHSIG = 1
STABLE_S = 60.0  # a child that ran this long resets the backoff


def die_with_parent() -> None:
    """``preexec_fn``: the child gets SIGTERM when the process that started it dies (runs between fork and exec)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def supervise(argv: Sequence[str]) -> int:
    """Run ``argv`` until asked to stop; restart it after any other exit. Returns the exit code."""
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s: %(levelname)s/Supervisor] %(message)s")
    stopping: list[int] = []
    child: subprocess.Popen | None = None

    def pass_on(signum: int) -> None:
        if child is not None and child.poll() is None:
            try:
                child.send_signal(signum)
            except ProcessLookupError:
                pass

    def forward(signum: int, _frame: object) -> None:
        stopping.append(signum)
        pass_on(signum)

    for sig in FORWARDED:
        signal.signal(sig, forward)

    backoff = settings.WORKER_RESTART_BACKOFF_S
    restarts = 0
    while True:
        started = time.monotonic()
        child = subprocess.Popen(list(argv), preexec_fn=die_with_parent)
        if stopping:
            # The stop came while the child was being started (``forward`` had no child to pass it
            # to): pass it now, or this process waits forever on a worker nobody asked to stop.
            pass_on(stopping[0])
        log.info("celery worker started (pid %s)%s", child.pid, f", restart {restarts}" if restarts else "")
        code = _wait(child)
        if stopping:
            log.info("celery worker stopped (exit %s) after signal %s", code, stopping[0])
            return 0 if code in (0, -stopping[0]) else code
        ran = time.monotonic() - started
        if ran >= STABLE_S:
            backoff = settings.WORKER_RESTART_BACKOFF_S
        log.error("celery worker exited with %s after %.0f s without being asked to; restarting in %.1f s",
                  code, ran, backoff)
        deadline = time.monotonic() + backoff
        while time.monotonic() < deadline and not stopping:
            time.sleep(0.1)
        if stopping:
            return 0
        backoff = min(backoff * 2, settings.WORKER_RESTART_BACKOFF_MAX_S)
        restarts += 1


def _wait(child: subprocess.Popen) -> int:
    while True:
        try:
            return child.wait()
        except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for old kernels
            continue


if __name__ == "__main__":  # pragma: no cover - `autograder worker` is the entry point
    sys.exit(supervise(sys.argv[1:]))
