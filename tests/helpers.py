"""Helpers shared by test modules (imported as modules, never from a conftest)."""

from __future__ import annotations

from rubric.loader import load_rubric
from rubric.scoring import score_categories, score_tests, total


def rubric_result(suite: str, failing: frozenset[str] | set[str] = frozenset(), *,
                  audit_score: float | None = None, grader_version: str = "test") -> dict:
    """A grade result (docs/contracts.md §2) as the runner builds it from `rubric/<suite>/`:
    every rubric test passed except `failing`, scored by rubric.scoring."""
    rubric = load_rubric(suite)
    outcomes = {tid: {"outcome": "failed" if tid in failing else "passed",
                      "feedback": f"{tid} failed: expected x, saw y" if tid in failing else None}
                for tid in rubric.tests}
    tests = score_tests(rubric, outcomes)
    categories = score_categories(rubric, tests, audit_score)
    return {"status": "graded", "message": None, "total": total(categories),
            "max_total": rubric.max_total, "categories": categories, "tests": tests,
            "audit": None, "measurements": {"max_abs_error": 1e-12},
            "example_weights": {"student": None, "reference": None},
            "grader_version": grader_version, "duration_s": 0.9, "log": "instructor log"}
