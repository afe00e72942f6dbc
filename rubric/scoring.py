"""Apply a rubric to test outcomes.  Pure functions on plain data (no torch, no sandbox, no I/O)."""

from __future__ import annotations

import copy
from typing import Any

from grading.i18n import not_run, stopped_idle
from rubric.loader import Rubric

OUTCOMES = ("passed", "failed", "error", "timeout")
NOT_RUN = "not run: the grader did not run this check"


def score_tests(rubric: Rubric, outcomes: dict[str, dict]) -> list[dict]:
    """``outcomes``: ``{test_id: {"outcome": str, "feedback": str | None}}``.

    Returns one entry per rubric test, in rubric order, with the points earned.  A rubric test
    without an outcome counts as an ``error`` with no points (it never silently passes)."""
    rows = []
    for spec in rubric.tests.values():
        got = outcomes.get(spec.id) or {"outcome": "error", "feedback": NOT_RUN}
        outcome = got.get("outcome")
        if outcome not in OUTCOMES:
            outcome = "error"
        rows.append({
            "id": spec.id,
            "category": spec.category,
            "outcome": outcome,
            "points": spec.points if outcome == "passed" else 0,
            "max_points": spec.points,
            "feedback": got.get("feedback"),
            "hidden": spec.hidden,
        })
    return rows


def score_categories(rubric: Rubric, tests: list[dict], audit_score: float | None) -> dict:
    """Category scores from scored test rows plus the audit checker's score (``None`` -> 0).
    The audit score is clamped into ``[0, max]`` so a buggy checker cannot exceed the rubric."""
    cats = {}
    for cat in rubric.categories.values():
        if cat.source == "audit":
            score = min(max(float(audit_score or 0), 0.0), cat.max)
        else:
            score = sum(t["points"] for t in tests if t["category"] == cat.name)
        cats[cat.name] = {"score": num(score), "max": num(cat.max)}
    return cats


def total(categories: dict) -> float:
    return num(sum(c["score"] for c in categories.values()))


def zero_categories(rubric: Rubric) -> dict:
    return {c.name: {"score": 0, "max": num(c.max)} for c in rubric.categories.values()}


def num(x: float, places: int = 4) -> float | int:
    """``x`` rounded to ``places`` decimals, as an int when whole (25.0 -> 25): how scores are
    stored (4 places) and shown (2 places, app/scores.py)."""
    x = round(float(x), places)
    return int(x) if x == int(x) else x


def student_view(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """The grade JSON a student may see: no instructor log, hidden tests reduced to their outcome
    (pass/fail) with no feedback, and no review reasons: only ``instructor_review``, whether the grader
    asked a person to look. The one place this rule lives (pages, API, CLI)."""
    if result is None:
        return None
    view = copy.deepcopy(result)
    view.pop("log", None)
    # The reasons name the grader's blind spots (names the source review cannot follow, a fused call it
    # missed, its limits) and grader paths in exception text: a map for getting past it, so a student
    # learns only that a person will look.
    view["instructor_review"] = bool(view.pop("review", None))
    for test in view.get("tests") or []:
        if test.get("hidden"):
            # Whether the engine ran a hidden check at all (it skips the rest once the code hung too
            # often or the budget is used up) is the grading's story, not the check's: it stays, so a
            # page can count such tests apart from those that met their own time limit.
            if not_run(test.get("feedback")):
                test["not_run"] = True
            # Likewise whether it was stopped as idle rather than at its time limit (the page's heading).
            if stopped_idle(test.get("feedback")):
                test["idle"] = True
            test["feedback"] = None
    return view
