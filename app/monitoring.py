"""What the web side reads about the workers: the heartbeats they write into the database."""

from __future__ import annotations

from flask import current_app
from sqlalchemy import select

from app.clock import db_now
from app.extensions import db
from app.models import WorkerHeartbeat


def live_workers(window_s: float | None = None) -> list[WorkerHeartbeat]:
    """Pool processes whose last heartbeat is younger than HEARTBEAT_STALE_S, by the database's
    clock: a dead worker drops out of the count within that window, whatever this host's clock says."""
    if window_s is None:
        window_s = float(current_app.config["HEARTBEAT_STALE_S"])
    return list(db.session.scalars(select(WorkerHeartbeat).where(WorkerHeartbeat.last_seen >= db_now(-window_s))))
