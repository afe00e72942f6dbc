"""Scores as people see them: the student view of a result, late penalty and audit override.

Pure functions on plain data so the pages, the API, the gradebook and the tests agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from app.coursework import RubricView, rubric_for
from rubric.scoring import student_view  # noqa: F401 - re-exported for the views

T = TypeVar("T")


def _num(x: float) -> float | int:
    x = round(float(x), 2)
    return int(x) if x == int(x) else x


@dataclass
class Effective:
    """A run's score after the instructor's audit review and the late penalty."""

    raw_total: float
    max_total: float
    categories: dict[str, dict] = field(default_factory=dict)   # audit already overridden
    audit_auto: float | None = None
    audit_override: float | None = None
    late_days: int = 0
    penalty_fraction: float = 0.0
    penalty_points: float = 0.0
    total: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "raw_total": _num(self.raw_total),
            "max_total": _num(self.max_total),
            "audit_auto": None if self.audit_auto is None else _num(self.audit_auto),
            "audit_override": None if self.audit_override is None else _num(self.audit_override),
            "late_days": self.late_days,
            "penalty_fraction": round(self.penalty_fraction, 4),
            "penalty_points": _num(self.penalty_points),
            "total": _num(self.total),
            "categories": self.categories,
        }


def effective(
    total: float | None,
    max_total: float | None,
    categories: dict[str, Any] | None,
    *,
    rubric: RubricView,
    late_days: int = 0,
    penalty_per_day: float = 0.0,
    audit_override: float | None = None,
) -> Effective | None:
    """None when there is no graded total. The override replaces the rubric's audit category
    (clamped to its max; ignored when the assignment has no audit); the late penalty
    (penalty_per_day × late_days, at most 100 %) is then taken off the whole total."""
    if total is None:
        return None
    cats = {k: dict(v) for k, v in (categories or {}).items()}
    audit = rubric.audit_category
    auto = None
    raw = float(total)
    if audit is not None and audit in cats:
        auto = float(cats[audit].get("score") or 0)
    if audit is None:
        audit_override = None
    if audit_override is not None:
        top = float(cats.get(audit, {}).get("max") or rubric.audit_max or 0)
        override = min(max(float(audit_override), 0.0), top)
        raw = raw - (auto or 0.0) + override
        cats[audit] = {"max": _num(top), **cats.get(audit, {}), "score": _num(override),
                       "auto": None if auto is None else _num(auto)}
    fraction = min(1.0, max(0.0, float(penalty_per_day or 0) * max(0, late_days)))
    penalty = raw * fraction
    return Effective(
        raw_total=raw,
        max_total=float(max_total or rubric.max_total),
        categories=rubric.ordered(cats),
        audit_auto=auto,
        audit_override=audit_override,
        late_days=late_days,
        penalty_fraction=fraction,
        penalty_points=penalty,
        total=max(0.0, raw - penalty),
    )


def effective_for(submission, run) -> Effective | None:  # noqa: ANN001
    """Effective score of one graded run of a submission (ORM objects)."""
    if run is None or run.total is None:
        return None
    review = submission.audit_review
    return effective(
        run.total,
        run.max_total,
        run.categories,
        rubric=rubric_for(submission.assignment.suite),
        late_days=submission.late_days,
        penalty_per_day=submission.assignment.late_penalty_per_day,
        audit_override=review.score if review else None,
    )


def best_of(scored: Sequence[tuple[T, Effective]]) -> tuple[T, Effective] | None:
    """The attempt that counts, as (attempt, its score): the highest effective total (after the
    late penalty and the audit review); on a tie the later attempt. Items have `.attempt`."""
    if not scored:
        return None
    return max(scored, key=lambda pair: (pair[1].total, pair[0].attempt))


def fmt(x: float | None) -> str:
    if x is None:
        return "—"
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"
