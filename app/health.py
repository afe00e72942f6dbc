"""`/healthz`: is the database reachable, the broker answering, upload storage writable, a worker alive?

Anyone may ask whether the service is up (`{"ok": true}`, 200 or 503, for load balancers). The
details (database dialect, broker transport, storage, worker host names) are shown only to
signed-in instructors and to the local host (the container's own healthcheck, an operator on the
box): they help an attacker map the deployment. The client address is the one after ProxyFix, so a
request relayed by the proxy is not "local". The worker count is of pool processes that beat
within HEARTBEAT_STALE_S (by the database's clock), so it drops when a worker dies.
"""

from __future__ import annotations

import ipaddress

from flask import Blueprint, current_app, jsonify, request
from flask_login import current_user
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


def may_see_details() -> bool:
    if current_user.is_authenticated and current_user.is_instructor:
        return True
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


@bp.get("/healthz")
def healthz():
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
    status = 200 if body["ok"] else 503
    if not may_see_details():
        return jsonify({"ok": body["ok"]}), status
    return jsonify(body), status
