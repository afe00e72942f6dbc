"""Helpers of the reliability tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis
from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun, Submission, TestResult
from tests.grading.helpers import PINNED_TOTALS
from tests.helpers import empty_database, make_app
from tests.workers import service_env

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"

CORRECT = (FIXTURES / "correct" / "reference.py").read_bytes()

# Known totals without an audit, checked against the grader in the fast lane.
FAULTY_TOTALS = PINNED_TOTALS

FAULTY = {name: (FIXTURES / "faulty" / f"{name}.py").read_bytes() for name in FAULTY_TOTALS}

CORRECT_TOTAL = 85

# Short timings so a lost run is found in seconds, not minutes.
FAST = dict(SWEEP_INTERVAL_S=1.5, QUEUED_GRACE_S=3, HEARTBEAT_STALE_S=6, HEARTBEAT_INTERVAL_S=1, RETRY_DELAY_S=0.5)

LOCK_KEY = "autograder:reliability-tests:lock"

# Redis databases these tests may take (one per concurrent test session), overridable.
CANDIDATE_DBS = [int(x) for x in os.environ.get("RELIABILITY_REDIS_DBS", "12,11,10,8,7,6,5,4").split(",")]


def clear_redis(client: redis.Redis) -> None:
    """Empty the database except our lock (a FLUSHDB would drop the lock too)."""
    for key in client.scan_iter(count=500):
        if key != LOCK_KEY.encode():
            client.delete(key)


@dataclass
class Rig:
    """The app (as the web process sees it) plus what it takes to start workers against it."""

    app: object
    db_url: str
    redis_url: str
    data_dir: Path
    logs: Path

    def env(self, db_url: str | None = None, **extra: object) -> dict[str, str]:
        return service_env(self.data_dir, db_url or self.db_url, self.redis_url, **{**FAST, **extra})

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url)


def make_rig(tmp_path: Path, db_url: str, redis_url: str, **overrides: object) -> Rig:
    data = tmp_path / "data"
    logs = tmp_path / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    app = make_app(data, db_url, CELERY_BROKER_URL=redis_url, REDIS_URL=redis_url, **overrides)
    empty_database(app)
    clear_redis(redis.Redis.from_url(redis_url))
    return Rig(app, db_url, redis_url, data, logs)


def statuses(app, sub_ids: list[int]) -> dict[int, str]:
    with app.app_context():
        rows = db.session.execute(select(Submission.id, Submission.status).where(Submission.id.in_(sub_ids)))
        out = dict(rows.all())
        db.session.remove()
        return out


def all_finished(app, sub_ids: list[int]) -> bool:
    s = statuses(app, sub_ids)
    return len(s) == len(sub_ids) and all(v in ("graded", "error") for v in s.values())


def run_statuses(app) -> dict[str, int]:
    with app.app_context():
        out = dict(db.session.execute(select(GradingRun.status, func.count()).group_by(GradingRun.status)).all())
        db.session.remove()
        return out


def assert_graded_exactly_once(app, expected: dict[int, float]) -> list[GradingRun]:
    """Every submission has exactly one run, graded with the expected total, one TestResult per test."""
    with app.app_context():
        runs = list(db.session.scalars(select(GradingRun).where(GradingRun.submission_id.in_(expected))))
        per_sub: dict[int, list[GradingRun]] = {}
        for run in runs:
            per_sub.setdefault(run.submission_id, []).append(run)
        assert set(per_sub) == set(expected), "a submission has no run"
        problems = []
        for sub_id, total in expected.items():
            (run,) = per_sub[sub_id]
            sub = db.session.get(Submission, sub_id)
            n_rows = db.session.scalar(select(func.count()).where(TestResult.run_id == run.id))
            n_distinct = db.session.scalar(
                select(func.count(func.distinct(TestResult.test_id))).where(TestResult.run_id == run.id)
            )
            if run.status != "graded" or sub.status != "graded":
                problems.append(f"submission {sub_id}: run {run.status} ({run.status_reason}), sub {sub.status}")
            elif run.total != total:
                problems.append(f"submission {sub_id}: total {run.total} != {total}")
            elif not (n_rows == n_distinct == len(run.result["tests"]) > 0):
                problems.append(f"submission {sub_id}: {n_rows} test rows, {len(run.result['tests'])} tests")
        assert not problems, "\n".join(problems)
        db.session.expunge_all()
        db.session.remove()
        return runs


def worker_log_tail(*paths: Path, chars: int = 4000) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-chars:]}" for p in paths if p.exists())


@contextmanager
def http_server(app) -> Iterator[str]:
    """The app behind werkzeug's threaded server on 127.0.0.1:<free port>; yields the base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, data) in files.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def api_upload(base: str, token: str, code: bytes, timeout: float = 60) -> tuple[int, dict]:
    """POST /api/v1/submissions over real HTTP; (status, JSON body)."""
    import json
    import urllib.error
    import urllib.request

    body, ctype = multipart({}, {"code": ("attention.py", code)})
    req = urllib.request.Request(
        f"{base}/api/v1/submissions",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": ctype, "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw or b"{}")
        except ValueError:
            return exc.code, {"raw": raw.decode(errors="replace")}
