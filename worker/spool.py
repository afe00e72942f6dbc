"""Finished gradings that could not reach the database: kept on this host's disk until they land.

A grading is about 10 KiB of JSON and costs a sandbox run to redo, so when the final store (or a
retry decision) cannot reach the database within ``DB_RETRY_S``, the task writes what it would
have stored into ``$DATA_DIR/spool/`` and is acknowledged. The worker's main process stores each
kept result as soon as the database answers again (`flush_forever`, every
``SPOOL_FLUSH_INTERVAL_S``; the sweeper also flushes before it sweeps). The run stays ``running``
meanwhile, held by a pool process that keeps beating, so no other worker takes it over, and the
guarded UPDATE of `worker.runs.store_result` still stores it at most once: if the run was taken
over in the meantime, the kept result is dropped and the new holder's result counts.

Files are written to a temporary name, fsynced and renamed: a crash never leaves half an entry.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from sqlalchemy.exc import InterfaceError, OperationalError

from app.extensions import db
from app.queue import enqueue_run
from worker import runs

log = logging.getLogger(__name__)

STORE = "store"  # a finished grading: runs.store_result
RETRY = "retry"  # a grader failure: runs.requeue_for_retry, then send the run again


def spool_dir(app: Flask | None = None) -> Path:
    app = app or current_app
    return Path(app.config["DATA_DIR"]) / "spool"


def keep(run_id: int, worker: str, kind: str, result: dict[str, Any], reason: str | None = None) -> Path:
    """Write one pending database write; raises OSError when the disk refuses it too."""
    folder = spool_dir()
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"run_id": run_id, "worker": worker, "kind": kind, "result": result, "reason": reason}
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f, ensure_ascii=False)
            f.flush()
            os.fsync(f.fileno())
        target = folder / f"run-{run_id}-{kind}-{time.time_ns()}.json"
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    log.warning("run %s: database unavailable; result kept in %s until it returns", run_id, target)
    return target


def pending(app: Flask | None = None) -> list[Path]:
    folder = spool_dir(app)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("run-*.json"))


def holds(run_id: int) -> bool:
    """Is a result of this run kept here, waiting for the database? (Then a redelivered message
    of the run must not grade it again: the kept result is stored as soon as it can be.)"""
    folder = spool_dir()
    return folder.is_dir() and any(folder.glob(f"run-{run_id}-*.json"))


def _apply(entry: dict[str, Any]) -> str:
    run_id, worker, result = int(entry["run_id"]), str(entry["worker"]), entry["result"]
    if entry["kind"] == STORE:
        return "stored" if runs.store_result(run_id, worker, result) else "dropped (run no longer held)"
    again = runs.requeue_for_retry(run_id, worker, entry.get("reason") or "grader error", result)
    if again:
        enqueue_run(run_id, countdown=runs.setting("RETRY_DELAY_S"))
    return "requeued" if again else "closed"


def flush(app: Flask | None = None) -> int:
    """Apply every kept write in order; stop at the first database error. Returns how many landed."""
    done = 0
    for path in pending(app):
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.error("spool entry %s unreadable (%s); moved aside", path.name, exc)
            path.rename(path.with_suffix(".bad"))
            continue
        try:
            outcome = _apply(entry)
        except (OperationalError, InterfaceError) as exc:
            db.session.rollback()
            log.info("database still unavailable (%s); %d result(s) kept", exc.__class__.__name__,
                     len(pending(app)))
            break
        path.unlink(missing_ok=True)
        done += 1
        log.warning("run %s: kept result %s after the database returned", entry["run_id"], outcome)
    return done


def flush_forever(app: Flask) -> None:
    """The main process's flusher: cheap when the spool is empty (one directory listing)."""
    while True:
        try:
            if pending(app):
                with app.app_context():
                    try:
                        flush(app)
                    finally:
                        db.session.remove()
        except Exception:
            log.exception("spool flush failed")
        try:
            time.sleep(runs.setting("SPOOL_FLUSH_INTERVAL_S"))
        except Exception:  # noqa: BLE001
            time.sleep(1.0)
