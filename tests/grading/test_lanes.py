"""Two lanes: a grading's tests in two test processes at once, each against its own jail.

The second lane (hidden tests, fresh-session comparisons, source-only checks) must change nothing
a student or instructor sees: the same outcomes and points as one lane, nothing of a hidden test in
a visible test's feedback, and a lost session recovered as before."""

from __future__ import annotations

import json

import pytest

from grading.child import core_idle, plan_lanes
from grading.collected import collected_suite
from grading.runner import GradeInput, grade
from grading.suite_state import suite_state
from tests.grading.helpers import SUBMISSIONS, use_lanes
from tests.grading.test_tamper_hostile import CORRECT, DROPOUT, LEAK_HIDDEN_INPUTS, MEMOISE

CORPUS = [SUBMISSIONS / "correct" / "reference.py", *sorted((SUBMISSIONS / "faulty").glob("*.py"))]

# The third forward call of every session ends the process: each session is lost once it has
# served two calls, so the grading goes on only through fresh sessions.
CRASH_ON_THIRD_CALL = '''
import os as _os
_calls = [0]
_honest = ScaledDotProductAttention.forward
def _crashing(self, *a, **k):
    _calls[0] += 1
    if _calls[0] == 3:
        _os._exit(3)
    return _honest(self, *a, **k)
ScaledDotProductAttention.forward = _crashing
'''


def _grade(executor, code: str | bytes) -> dict:
    result = grade(GradeInput(code=code.encode() if isinstance(code, str) else code), "attention", executor)
    json.dumps(result, allow_nan=False)
    return result


def _outcomes(result: dict) -> dict[str, tuple[str, float]]:
    return {t["id"]: (t["outcome"], t["points"]) for t in result["tests"]}


def test_the_second_lane_holds_the_hidden_fresh_session_and_source_only_tests():
    state = suite_state("attention")
    hidden = frozenset(t for t, spec in state.rubric.tests.items() if spec.hidden)
    first, second = plan_lanes(collected_suite("attention", state.suite), hidden)
    assert hidden <= second and not hidden & first
    assert "test_deterministic" in second            # compares against a fresh session
    assert "test_no_fused_attention_static" in second  # reads only the source
    assert first | second == set(state.rubric.tests) and not first & second


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_two_lanes_grade_every_corpus_submission_exactly_as_one_lane(executor, monkeypatch, path):
    use_lanes(monkeypatch, 1)
    one = _grade(executor, path.read_bytes())
    use_lanes(monkeypatch, 2)
    two = _grade(executor, path.read_bytes())
    assert "lanes:" in two["log"] and "lanes:" not in one["log"]
    assert (two["status"], two["total"]) == (one["status"], one["total"])
    assert _outcomes(two) == _outcomes(one)
    assert two["measurements"].keys() == one["measurements"].keys()
    if one["tests"] and _outcomes(one)["test_deterministic"][0] == "passed":
        assert two["example_weights"] == one["example_weights"]   # a random submission draws anew


def test_two_lanes_use_one_more_session_than_one_lane(executor, monkeypatch):
    use_lanes(monkeypatch, 2)
    result = _grade(executor, CORRECT)
    assert result["total"] == 85 and result["review"] == []
    # lane 1: the visible tests; lane 2: its visible tests, then the fresh session (lent to the
    # determinism check first) for the hidden tests
    assert "sessions used: 3" in result["log"]


def test_no_second_lane_while_every_core_is_busy(executor, monkeypatch):
    use_lanes(monkeypatch, 2)
    monkeypatch.setattr("grading.child.core_idle", lambda: False)
    result = _grade(executor, CORRECT)
    assert result["total"] == 85
    assert "lanes:" not in result["log"] and "sessions used: 2" in result["log"]


def test_core_idle_reads_the_runnable_tasks_of_this_machine():
    assert isinstance(core_idle(), bool)


def test_with_two_lanes_nothing_observed_in_a_hidden_test_reaches_visible_feedback(executor, monkeypatch):
    use_lanes(monkeypatch, 2)
    result = _grade(executor, CORRECT + LEAK_HIDDEN_INPUTS)
    assert result["status"] == "graded", result["message"]
    assert "lanes:" in result["log"]
    shown = [json.dumps(t["feedback"], ensure_ascii=False) for t in result["tests"] if not t["hidden"]]
    assert any("SEEN" in text for text in shown), "the attack ran"
    assert not any("float64" in text for text in shown if "SEEN" in text)  # float64: hidden tests only


def test_with_two_lanes_memoising_answers_does_not_hide_dropout(executor, monkeypatch):
    use_lanes(monkeypatch, 2)
    result = _grade(executor, DROPOUT + MEMOISE)
    assert result["status"] == "graded", result["message"]
    assert next(t["outcome"] for t in result["tests"] if t["id"] == "test_deterministic") == "failed"


def test_a_session_lost_in_a_lane_is_followed_by_fresh_sessions_as_with_one_lane(executor, monkeypatch):
    use_lanes(monkeypatch, 1)
    one = _grade(executor, CORRECT + CRASH_ON_THIRD_CALL)
    use_lanes(monkeypatch, 2)
    two = _grade(executor, CORRECT + CRASH_ON_THIRD_CALL)
    for result in (one, two):
        assert result["status"] == "graded", result["message"]
        assert {t["id"] for t in result["tests"]} == set(suite_state("attention").rubric.tests)
        assert 0 < result["total"] < 85
        assert "child 2:" in result["log"]           # the run went on in a fresh child and session
    assert "lanes:" in two["log"]
