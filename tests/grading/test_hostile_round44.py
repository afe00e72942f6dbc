"""Round 44 of hostile submissions (the attacks: tests/grading/hostile_attacks_round44.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running.

Found open: a source whose tree parses (an expression of 1,400 terms is under the parser's limit) but is nested
past what a recursive reader of the tree recurses through raised RecursionError out of ``grade()`` (a grader error,
never the student's points): the runner called the suite's ``nothing_defined`` hook unguarded, and the attention
suite's ``no_contract_class`` walks the tree recursively. Every other suite hook the runner calls was already
guarded; this one now is too, and a failing shortcut runs the tests as for any other file."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round44 import ATTACKS, CORRECT
from tests.grading.test_hostile_round31 import _nothing_left


def _grade(executor, code: str | bytes) -> dict:
    return grade(GradeInput(code=code if isinstance(code, bytes) else code.encode()), "attention", executor)


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_44_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)


@pytest.mark.parametrize("attack", ["a_binop_chain_of_1400_terms_deep_for_a_recursive_visitor",
                                    "the_chain_alone_defining_neither_contract_class"])
def test_a_source_nested_past_a_recursive_readers_depth_is_graded_never_a_grader_error(served, attack):
    """Before round 44 both raised RecursionError out of grade(). The first still earns the tests its code passes
    (only the static check, which cannot read it, is lost); the second is told it defines neither class."""
    result = _grade(served, ATTACKS[attack])
    assert result["status"] == "graded", result["message"]
    if attack.startswith("the_chain_alone"):
        assert result["total"] == 0
        assert "defines neither ScaledDotProductAttention nor MultiHeadAttention" in result["message"]["en"]
    else:
        assert 0 < result["total"] < 85
        lost = {t["id"] for t in result["tests"] if t["outcome"] != "passed"}
        assert "test_no_fused_attention_static" in lost, lost


def test_a_suite_shortcut_that_raises_runs_the_tests_as_for_any_other_file(served, monkeypatch):
    """The class, not the one file: whatever the suite's ``nothing_defined`` hook raises on a source, the file is
    run and graded as usual."""
    import dataclasses

    import grading.runner

    def broken(source: str):
        raise RecursionError("maximum recursion depth exceeded")

    real = grading.runner.suite_state

    def state(assignment: str):
        got = real(assignment)
        return dataclasses.replace(got, suite=dataclasses.replace(got.suite, nothing_defined=broken))

    monkeypatch.setattr(grading.runner, "suite_state", state)
    result = _grade(served, CORRECT)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 85
