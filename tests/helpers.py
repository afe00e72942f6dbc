"""Helpers shared by test modules (imported as modules, never from a conftest)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from rubric.loader import load_rubric
from rubric.scoring import score_categories, score_tests, total


def rubric_result(suite: str, failing: frozenset[str] | set[str] | tuple[str, ...] = frozenset(), *,
                  audit_score: float | None = None, grader_version: str = "test",
                  feedback: dict[str, Any] | None = None) -> dict:
    """The one fake grade result of the tests (docs/contracts.md §2), consistent by construction:
    every test of `rubric/<suite>/rubric.yaml` passed except `failing`, scored by rubric.scoring
    as the runner does. `feedback` sets the feedback of chosen tests."""
    rubric = load_rubric(suite)
    feedback = feedback or {}
    outcomes = {tid: {"outcome": "failed" if tid in failing else "passed",
                      "feedback": feedback.get(tid, f"{tid} failed: expected x, saw y" if tid in failing else None)}
                for tid in rubric.tests}
    tests = score_tests(rubric, outcomes)
    categories = score_categories(rubric, tests, audit_score)
    return {"status": "graded", "message": None, "total": total(categories),
            "max_total": rubric.max_total, "categories": categories, "tests": tests,
            "audit": None, "measurements": {"max_abs_error": 1e-12},
            "example_weights": {"student": None, "reference": None},
            "grader_version": grader_version, "duration_s": 0.9, "log": "instructor log"}


PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

REDIS_TEST_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

ROOT = Path(__file__).resolve().parent.parent


def pg_available() -> bool:
    try:
        with create_engine(PG_ADMIN_URL).connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:  # noqa: BLE001
        return False


def redis_available() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_TEST_URL, socket_timeout=1).ping())
    except Exception:  # noqa: BLE001
        return False


def make_app(tmp_dir: Path, db_url: str, **overrides):
    os.environ["DATA_DIR"] = str(tmp_dir)
    from app import create_testing_app

    return create_testing_app(SQLALCHEMY_DATABASE_URI=db_url, **overrides)


def empty_database(app) -> None:
    """Remove every row (PostgreSQL), keeping the migrated schema."""
    from app.extensions import db

    with app.app_context():
        tables = ", ".join(t.name for t in db.metadata.sorted_tables)
        db.session.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        db.session.commit()
