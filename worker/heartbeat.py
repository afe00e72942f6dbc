"""Liveness of grading processes, recorded in the database where every part can read it."""

from __future__ import annotations

import logging
import os
import threading
from datetime import timedelta

from flask import Flask
from sqlalchemy import delete, select

from app.extensions import db
from app.models import WorkerHeartbeat, utcnow

log = logging.getLogger(__name__)

INTERVAL_S = 5.0


def beat(name: str, grader_version: str = "") -> None:
    row = db.session.get(WorkerHeartbeat, name)
    now = utcnow()
    if row is None:
        db.session.add(WorkerHeartbeat(hostname=name, started_at=now, last_seen=now, grader_version=grader_version))
    else:
        row.last_seen = now
    db.session.commit()


def forget(name: str) -> None:
    db.session.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.hostname == name))
    db.session.commit()


def live_workers(window: timedelta = timedelta(seconds=30)) -> list[WorkerHeartbeat]:
    return list(db.session.scalars(select(WorkerHeartbeat).where(WorkerHeartbeat.last_seen >= utcnow() - window)))


def start_thread(app: Flask, name: str, grader_version: str = "") -> threading.Event:
    """Beat every few seconds until stopped or until the parent process is gone."""
    stop = threading.Event()
    parent = os.getppid()

    def loop() -> None:
        while not stop.is_set():
            if os.getppid() != parent:
                break  # orphaned pool process: stop claiming to be alive
            try:
                with app.app_context():
                    beat(name, grader_version)
            except Exception as exc:  # noqa: BLE001 - the database may be briefly away
                log.warning("heartbeat failed: %s", exc)
            stop.wait(INTERVAL_S)

    threading.Thread(target=loop, name="heartbeat", daemon=True).start()
    return stop
