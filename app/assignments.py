"""Assignments are rows naming a suite folder: adding one needs no code."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import select

from app.extensions import db
from app.models import Assignment

SUITES_DIR = Path(__file__).resolve().parent.parent / "grader_tests"


def ensure_assignment(
    slug: str,
    title: str,
    suite: str,
    deadline: datetime | None = None,
    cooldown: int = 0,
    *,
    late_penalty_per_day: float | None = None,
    late_days_allowed: int | None = None,
) -> Assignment:
    if not (SUITES_DIR / suite).is_dir():
        raise ValueError(f"no acceptance suite grader_tests/{suite}")
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    if a is None:
        a = Assignment(slug=slug, title=title, suite=suite)
        db.session.add(a)
    a.title, a.suite = title, suite
    if deadline is not None:
        a.deadline = deadline
    a.cooldown_seconds = cooldown
    if late_penalty_per_day is not None:
        a.late_penalty_per_day = late_penalty_per_day
    if late_days_allowed is not None:
        a.late_days_allowed = late_days_allowed
    db.session.commit()
    return a


def default_assignment() -> Assignment | None:
    return db.session.scalar(select(Assignment).where(Assignment.published.is_(True)).order_by(Assignment.id))
