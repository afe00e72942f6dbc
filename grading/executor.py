"""One warm sandbox executor per grading process, started before the first task arrives."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

log = logging.getLogger(__name__)

_lock = threading.Lock()
_executor = None
_owner_pid: int | None = None


def get_executor():
    """The executor of this process; a forked child never reuses its parent's zygote."""
    global _executor, _owner_pid
    with _lock:
        if _executor is None or _owner_pid != os.getpid() or not _executor.alive:
            from grading.sandbox import Executor

            if _executor is not None and _owner_pid == os.getpid():
                _executor.close()
            # Starts the zygote: one torch import, and one of every package a suite offers students.
            _executor = Executor(preload=suite_packages())
            _owner_pid = os.getpid()
        return _executor


def suite_packages() -> tuple[str, ...]:
    """The packages every assignment plug-in declares (Suite.packages), torch excepted (the zygote
    imports it anyway); a suite that does not load adds nothing (grading reports it)."""
    from grading.suite import load_suite, suite_names

    names: set[str] = set()
    for suite in suite_names():
        try:
            names.update(load_suite(suite).packages)
        except Exception:
            log.warning("suite %s does not load; its packages are not preloaded", suite, exc_info=True)
    return tuple(sorted(names - {"torch"}))


def close_executor() -> None:
    global _executor
    with _lock:
        if _executor is not None and _owner_pid == os.getpid():
            _executor.close()
        _executor = None


def grade_with_warm_executor(inputs: Any) -> dict[str, Any]:
    from grading.runner import GradeInput, grade

    return grade(
        GradeInput(
            code=inputs.code,
            audit=inputs.audit,
            audit_filename=inputs.audit_filename,
            figure=inputs.figure,
            figure_filename=inputs.figure_filename,
            audit_text=getattr(inputs, "audit_text", None),
            # Stored uploads were accepted by the web's bounded validator (app/submitting.py).
            figure_validated=True,
        ),
        assignment=inputs.suite,
        executor=get_executor(),
    )
