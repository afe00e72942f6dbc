"""Liveness of grading processes, recorded in the database where every part can read it.

Each prefork pool process beats under ``host:pid`` every ``HEARTBEAT_INTERVAL_S`` (5 s). The row's
``started_at`` is the start of the process that beats, so a row left behind by a killed process
whose pid was later reused is not mistaken for the holder of the dead process's runs.
"""

from __future__ import annotations

import logging
import os
import threading
from datetime import datetime

from flask import Flask
from sqlalchemy import delete

from app.extensions import db
from app.models import WorkerHeartbeat, utcnow

log = logging.getLogger(__name__)

def interval_s() -> float:
    from worker.runs import setting

    return setting("HEARTBEAT_INTERVAL_S")


def beat(name: str, grader_version: str = "", started_at: datetime | None = None) -> None:
    """Record that ``name`` is alive. ``started_at`` (the process start) resets the row's start."""
    row = db.session.get(WorkerHeartbeat, name)
    now = utcnow()
    if row is None:
        db.session.add(
            WorkerHeartbeat(hostname=name, started_at=started_at or now, last_seen=now, grader_version=grader_version)
        )
    else:
        row.last_seen = now
        if started_at is not None:
            row.started_at = started_at
        if grader_version:
            row.grader_version = grader_version
    db.session.commit()


def forget(name: str) -> None:
    db.session.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.hostname == name))
    db.session.commit()


def start_thread(app: Flask, name: str, grader_version: str = "") -> threading.Event:
    """Beat every few seconds until stopped or until the parent process is gone."""
    stop = threading.Event()
    parent = os.getppid()
    started = utcnow()  # before any claim this process can make

    def loop() -> None:
        first = True
        while not stop.is_set():
            if os.getppid() != parent:
                break  # orphaned pool process: stop claiming to be alive
            try:
                with app.app_context():
                    beat(name, grader_version, started_at=started if first else None)
                    pause = interval_s()
                first = False
            except Exception as exc:  # noqa: BLE001 - the database may be briefly away
                log.warning("heartbeat failed: %s", exc)
                pause = 1.0  # register soon after the database is back
            stop.wait(pause)

    threading.Thread(target=loop, name="heartbeat", daemon=True).start()
    return stop
