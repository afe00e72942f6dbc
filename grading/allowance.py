"""CPU allowances for the trusted code that reads a student's source: the suite's review, the runner's notes
and hooks, and the hints the test process adds to each failing test's feedback.

Each reads a file the student wrote, so a file can be built to make the reading slow (round 44, review RC: a
256 KiB file of 1,400 long names on the failing line cost the worker 2-3 s of CPU per grading, not flagged,
against ~0.1 s for an honest file). A reader past its allowance is stopped: its hint is left out, the
grading goes on."""
from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from autograder import settings

T = TypeVar("T")


class OutOfCpu(Exception):
    """Raised in the reader that ran past its CPU limit (an Exception: a hook's ``except Exception`` takes it)."""


_limited = threading.local()


@contextlib.contextmanager
def cpu_limit(seconds: float) -> Iterator[None]:
    """Raise OutOfCpu in this thread once it has used ``seconds`` of CPU (ITIMER_VIRTUAL: the process's
    user time, whatever the host's load; Celery's own alarms use ITIMER_REAL). Outside the main thread no
    signal can be delivered, and inside another limit the outer one holds: no new limit there."""
    if threading.current_thread() is not threading.main_thread() or getattr(_limited, "on", False):
        yield
        return

    def stop(signum, frame):
        raise OutOfCpu()

    previous = signal.signal(signal.SIGVTALRM, stop)
    _limited.on = True
    # and again every 10 ms after it: a reader that catches Exception (a hint's own net) is stopped at its next step
    signal.setitimer(signal.ITIMER_VIRTUAL, max(seconds, 1e-6), 0.01)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
        _limited.on = False


class Allowance:
    """CPU seconds shared by the source readers of one grading: each runs under what is left, and once it is
    spent the readers are not run (their default stands). Honest files use a few milliseconds of it."""

    def __init__(self, seconds: float) -> None:
        self.left = seconds
        self.stopped: list[str] = []     # the readers stopped or skipped, for the log

    def run(self, reader: Callable[..., T], *args, default: T = None, **kwargs) -> T:
        """``reader(*args, **kwargs)``, or ``default`` when the allowance ran out before or during it."""
        name = getattr(reader, "__name__", None) or getattr(getattr(reader, "func", None), "__name__", "reader")
        if self.left <= 0:
            self.stopped.append(name)
            return default
        t0 = time.process_time()
        try:
            with cpu_limit(self.left):
                return reader(*args, **kwargs)
        except OutOfCpu:
            self.stopped.append(name)
            self.left = 0
            return default
        finally:
            self.left -= time.process_time() - t0


_current: tuple[str, Allowance] | None = None


def source_allowance(source: str) -> Allowance:
    """The allowance of the grading of ``source`` in this process (a new one for a new source). The test process
    is forked from the worker's: it starts with what the worker's readers left of it."""
    global _current
    if _current is None or _current[0] != source:     # (`!=` is an identity check first)
        _current = (source, Allowance(settings.HINT_CPU_S))
    return _current[1]


def new_allowance(source: str) -> Allowance:
    """A fresh allowance for a grading of ``source`` (the worker starts one per grading: the same file graded
    again gets its hints again)."""
    global _current
    _current = (source, Allowance(settings.HINT_CPU_S))
    return _current[1]
