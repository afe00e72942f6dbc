"""What the web side reads about the workers: the heartbeats they write into the database."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.models import WorkerHeartbeat, utcnow


def live_workers(window: timedelta | None = None) -> list[WorkerHeartbeat]:
    """Pool processes whose last heartbeat is younger than HEARTBEAT_STALE_S."""
    if window is None:
        window = timedelta(seconds=float(current_app.config["HEARTBEAT_STALE_S"]))
    return list(db.session.scalars(select(WorkerHeartbeat).where(WorkerHeartbeat.last_seen >= utcnow() - window)))
