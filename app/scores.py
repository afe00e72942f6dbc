"""Scores as people see them: the student view of a result, overrides, late penalty.

Pure functions on plain data so the pages, the API, the gradebook and the tests agree. The one
rule, in order:

1. test overrides replace a test's points (the category moves by the difference, kept in
   [0, category max]);
2. the audit review, then category overrides, replace a whole category's score;
3. the late penalty (penalty_per_day × late days, at most 100 %) is taken off the total.

Late days are counted against the deadline in force for the student: their extension's deadline,
or the assignment's deadline plus their extra days (`deadline_for`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from app.coursework import RubricView, rubric_for
from rubric.scoring import num
from rubric.scoring import student_view as _student_view

T = TypeVar("T")

# What a student reads when the grading of an attempt failed. The engine's message and the worker's
# reason ("grader configuration error: FileNotFoundError('/srv/...')", "submission files unreadable:
# [Errno 5] ...") are for the staff: English, and the grader's internals. A grader error is the
# grader's by contract (a submission cannot cause one: docs/contracts.md §2); a run given up only
# says that it did not complete, and how many times it was tried.
GRADER_FAILED = {
    "en": "The grader failed on the server's side, not because of your files. An instructor can grade "
          "this attempt again; you do not need to submit it again.",
    "zh": "评分程序在服务器端出错，并非你的文件造成。老师可以重新评分这次提交；你不需要重新提交。",
}


def grading_stopped(tries: int) -> dict[str, str]:
    return {
        "en": f"Grading of this attempt did not complete (it was tried {tries} time(s)). An instructor can "
              "grade it again; you do not need to submit it again.",
        "zh": f"这次提交的评分没有完成（已尝试 {tries} 次）。老师可以重新评分；你不需要重新提交。",
    }


def student_view(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """rubric.scoring.student_view (no instructor log, no hidden feedback), and a grader error's
    message replaced by GRADER_FAILED."""
    view = _student_view(result)
    if view is not None and view.get("status") == "error":
        view["message"] = dict(GRADER_FAILED)
    return view


def failure_for_student(run: Any) -> dict[str, str] | None:
    """{"en", "zh"}: why the student has no grade for this run (None unless it ended in error)."""
    if run is None or run.status != "error":
        return None
    if run.result is not None and run.result.get("status") == "error":
        return dict(GRADER_FAILED)
    return grading_stopped(max(1, run.tries or 1))

# Effective scores are shown with 2 decimals; stored results keep 4 (rubric.scoring.num).


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
    # Overrides applied: {"kind", "target", "points", "was", "comment", "by", "at"}.
    overrides: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "raw_total": num(self.raw_total, 2),
            "max_total": num(self.max_total, 2),
            "audit_auto": None if self.audit_auto is None else num(self.audit_auto, 2),
            "audit_override": None if self.audit_override is None else num(self.audit_override, 2),
            "late_days": self.late_days,
            "penalty_fraction": round(self.penalty_fraction, 4),
            "penalty_points": num(self.penalty_points, 2),
            "total": num(self.total, 2),
            "categories": self.categories,
            "overrides": [
                {**o, "at": o["at"].isoformat() + "Z" if isinstance(o.get("at"), datetime) else o.get("at")}
                for o in self.overrides
            ],
        }


def overridden_test_points(points: float, max_points: float | None) -> float:
    """The points a test override gives, as they count: clamped to 0..the test's max (no max: 0).
    The one rule for the score (`effective`) and the rows that show each test (`counted_tests`)."""
    return min(max(float(points), 0.0), float(max_points or 0))


def counted_tests(tests: dict[str, dict], score: Effective | None) -> dict[str, dict]:
    """Each graded test (id -> row with "points", "max_points") with "counted": its points as the score
    counts them, an override of the test in force in `score` replacing them."""
    given = {o["target"]: o["points"] for o in (score.overrides if score else []) if o["kind"] == "test"}
    return {tid: {**t, "counted": overridden_test_points(given[tid], t["max_points"]) if tid in given else t["points"]}
            for tid, t in tests.items()}


def effective(
    total: float | None,
    max_total: float | None,
    categories: dict[str, Any] | None,
    *,
    rubric: RubricView,
    late_days: int = 0,
    penalty_per_day: float = 0.0,
    audit_override: float | None = None,
    overrides: Iterable[OverrideView] = (),
    tests: dict[str, dict] | None = None,
) -> Effective | None:
    """None when there is no graded total. See the module docstring for the order of the rules.
    The audit review replaces the rubric's audit category (clamped to its max; ignored when the
    assignment has no audit). `overrides` are the overrides in force; `tests` maps a test id to
    its graded {"category", "points", "max_points"} (needed only for test overrides)."""
    if total is None:
        return None
    cats = {k: dict(v) for k, v in (categories or {}).items()}
    audit = rubric.audit_category
    auto = None
    raw = float(total)
    applied: list[dict] = []
    overrides = list(overrides)
    for o in overrides:
        if o.kind != "test" or o.points is None:
            continue
        t = (tests or {}).get(o.target)
        if t is None or t.get("category") not in cats:
            continue  # the test is not in this run (renamed or removed): nothing to replace
        new = overridden_test_points(o.points, t.get("max_points"))
        cat = cats[t["category"]]
        before = float(cat.get("score") or 0)
        after = min(max(before + new - float(t.get("points") or 0), 0.0), float(cat.get("max") or before))
        raw += after - before
        cats[t["category"]] = {**cat, "score": num(after, 2)}
        applied.append(o.as_applied(was=t.get("points")))
    if audit is not None and audit in cats:
        auto = float(cats[audit].get("score") or 0)
    if audit is None:
        audit_override = None
    if audit_override is not None:
        top = float(cats.get(audit, {}).get("max") or rubric.audit_max or 0)
        override = min(max(float(audit_override), 0.0), top)
        raw = raw - (auto or 0.0) + override
        cats[audit] = {"max": num(top, 2), **cats.get(audit, {}), "score": num(override, 2),
                       "auto": None if auto is None else num(auto, 2)}
    for o in overrides:
        if o.kind != "category" or o.points is None or o.target not in cats:
            continue
        cat = cats[o.target]
        before = float(cat.get("score") or 0)
        after = min(max(float(o.points), 0.0), float(cat.get("max") or 0))
        raw += after - before
        cats[o.target] = {**cat, "score": num(after, 2), "overridden": True}
        applied.append(o.as_applied(was=num(before, 2)))
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
        overrides=applied,
    )


@dataclass(frozen=True)
class OverrideView:
    """One override in force, as plain data (from a ScoreOverride row)."""

    kind: str          # "test" | "category"
    target: str
    points: float | None
    comment: str = ""
    by: str = ""
    at: datetime | None = None

    def as_applied(self, was: float | None) -> dict:
        return {"kind": self.kind, "target": self.target, "points": num(self.points or 0, 2),
                "was": None if was is None else num(was, 2), "comment": self.comment, "by": self.by,
                "at": self.at}


def overrides_in_force(rows: Iterable[Any]) -> list[OverrideView]:
    """The newest row per (kind, target) wins; a row with points None clears the override.
    `rows` are ScoreOverride rows (or anything with the same attributes), oldest first."""
    newest: dict[tuple[str, str], Any] = {}
    for r in rows:
        newest[(r.kind, r.target)] = r
    out = []
    for r in newest.values():
        if r.points is None:
            continue
        author = getattr(r, "author", None)
        out.append(OverrideView(r.kind, r.target, float(r.points), r.comment or "",
                                author.display_name if author is not None else "", r.created_at))
    return out


def run_tests(run) -> dict[str, dict]:
    """Graded points of each test of a run, from its stored result."""
    tests = ((run.result or {}).get("tests") or []) if run is not None else []
    return {t["id"]: {"category": t.get("category"), "points": t.get("points"), "max_points": t.get("max_points")}
            for t in tests if isinstance(t, dict) and "id" in t}


def effective_for(submission, run) -> Effective | None:
    """Effective score of one graded run of a submission (ORM objects)."""
    if run is None or run.total is None:
        return None
    review = submission.audit_review
    overrides = overrides_in_force(submission.overrides)
    return effective(
        run.total,
        run.max_total,
        run.categories,
        rubric=rubric_for(submission.assignment.suite),
        late_days=submission.late_days,
        penalty_per_day=submission.assignment.late_penalty_per_day,
        audit_override=review.score if review else None,
        overrides=overrides,
        tests=run_tests(run) if any(o.kind == "test" for o in overrides) else None,
    )


def best_of(scored: Sequence[tuple[T, Effective]]) -> tuple[T, Effective] | None:
    """The attempt that counts, as (attempt, its score): the highest effective total (after the
    late penalty and the audit review); on a tie the later attempt. Items have `.attempt`."""
    if not scored:
        return None
    return max(scored, key=lambda pair: (pair[1].total, pair[0].attempt))


# --- deadlines ------------------------------------------------------------------------------------


def deadline_for(deadline: datetime | None, ext_deadline: datetime | None = None,
                 extra_days: int = 0) -> datetime | None:
    """The deadline in force for one student: their extension's own deadline if it has one, else
    the assignment's deadline moved by their extra days. An extension never makes it earlier than
    the class's: a deadline moved past an extension's own leaves that student the class's."""
    if ext_deadline is not None:
        return ext_deadline if deadline is None else max(ext_deadline, deadline)
    if deadline is None:
        return None
    try:
        return deadline + timedelta(days=max(0, extra_days or 0))
    except OverflowError:  # a deadline stored near year 9999 before deadlines were bounded
        return datetime.max


def late_days_at(deadline: datetime | None, when: datetime) -> int:
    """Started days between the deadline and `when` (0 when on time or without a deadline)."""
    if deadline is None or when <= deadline:
        return 0
    return math.ceil((when - deadline) / timedelta(days=1))


def fmt(x: float | None) -> str:
    if x is None:
        return "—"
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"
