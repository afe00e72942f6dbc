"""Liveness of grading processes, recorded in the database where every part can read it.

Each prefork pool process beats under ``host:pid`` every ``HEARTBEAT_INTERVAL_S`` (5 s). The row's
``started_at`` is the start of the process that beats, so a row left behind by a killed process
whose pid was later reused is not mistaken for the holder of the dead process's runs.

Both times are the database's (app/clock.py): a host with a skewed clock writes the same
`last_seen` as any other, and `check_host()` (the container healthcheck) measures the age with
the same clock.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

from flask import Flask
from sqlalchemy import delete, func, insert, select, update

from app.clock import db_now
from app.extensions import db
from app.models import WorkerHeartbeat

log = logging.getLogger(__name__)

def interval_s() -> float:
    from worker.runs import setting

    return setting("HEARTBEAT_INTERVAL_S")


def beat(name: str, grader_version: str = "", first: bool = False) -> None:
    """Record that ``name`` is alive. The ``first`` beat of a process also resets the row's start
    (a row left by an earlier process with the same reused pid). One UPDATE, and an INSERT only
    when the row does not exist yet (only this process beats under its name)."""
    values: dict[str, object] = {"last_seen": db_now()}
    if first:
        values["started_at"] = db_now()
    if grader_version:
        values["grader_version"] = grader_version
    table = WorkerHeartbeat.__table__
    res = db.session.execute(update(table).where(table.c.hostname == name).values(**values))
    if res.rowcount == 0:
        db.session.execute(insert(table).values(hostname=name, started_at=db_now(), last_seen=db_now(),
                                                grader_version=grader_version))
    db.session.commit()


def forget(name: str) -> None:
    db.session.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.hostname == name))
    db.session.commit()


def start_thread(app: Flask, name: str, grader_version: str = "", first_done: bool = False) -> threading.Event:
    """Beat every few seconds until stopped or until the parent process is gone.

    ``first_done``: the caller already wrote this process's first beat (its start)."""
    stop = threading.Event()
    parent = os.getppid()

    def loop() -> None:
        first = not first_done
        while not stop.is_set():
            if os.getppid() != parent:
                break  # orphaned pool process: stop claiming to be alive
            try:
                with app.app_context():
                    beat(name, grader_version, first=first)
                    pause = interval_s()
                first = False
            except Exception as exc:  # noqa: BLE001 - the database may be briefly away
                log.warning("heartbeat failed: %s", exc)
                pause = 1.0  # register soon after the database is back
            stop.wait(pause)

    threading.Thread(target=loop, name="heartbeat", daemon=True).start()
    return stop


def host_age_s(host: str | None = None) -> float | None:
    """Seconds since the freshest heartbeat of any pool process of ``host`` (this host by
    default), by the database's clock; None when it has none."""
    host = host or socket.gethostname()
    last = db.session.scalar(
        select(func.max(WorkerHeartbeat.last_seen)).where(WorkerHeartbeat.hostname.like(f"{host}:%"))
    )
    if last is None:
        return None
    now = db.session.scalar(select(db_now()))
    return (now - last).total_seconds()
