"""`/healthz`: is the database reachable, the broker answering, upload storage writable, a worker alive?

The worker count is of pool processes that beat within HEARTBEAT_STALE_S (by the database's
clock), so it drops when a worker dies."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify
from sqlalchemy import text

from app.extensions import db
from app.monitoring import live_workers
from app.storage import storage_report

bp = Blueprint("health", __name__)


def broker_ok() -> tuple[bool, str]:
    url = current_app.config["CELERY_BROKER_URL"]
    try:
        if url.startswith("redis"):
            import redis

            redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping()
        else:
            conn = current_app.extensions["celery"].connection_for_write()
            conn.ensure_connection(max_retries=1)
            conn.release()
        return True, url.split("://", 1)[0]
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return False, f"{exc.__class__.__name__}"


@bp.get("/healthz")
def healthz():  # noqa: ANN201
    body: dict = {}
    try:
        db.session.execute(text("SELECT 1"))
        body["database"] = {"ok": True, "dialect": db.engine.dialect.name}
        workers = live_workers()
        body["workers"] = {"ok": bool(workers), "count": len(workers), "names": [w.hostname for w in workers]}
    except Exception as exc:  # noqa: BLE001
        db.session.rollback()
        body["database"] = {"ok": False, "error": exc.__class__.__name__}
        body["workers"] = {"ok": False, "count": 0, "names": []}
    ok, detail = broker_ok()
    body["broker"] = {"ok": ok, "transport": detail}
    # Uploads are refused (503 "storage unavailable") while their storage cannot take a write.
    body["storage"] = storage_report(
        current_app.config["SQLALCHEMY_DATABASE_URI"], float(current_app.config["STORAGE_RETRY_AFTER_S"])
    )
    body["ok"] = body["database"]["ok"] and ok and bool(body["storage"]["ok"])
    # Workers being down is degraded service, not an unhealthy web process.
    return jsonify(body), 200 if body["ok"] else 503
