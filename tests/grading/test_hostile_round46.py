"""Round 46 of hostile submissions (the attacks: tests/grading/hostile_attacks_round46.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running.

Found open and fixed: builtins rebound for the whole process (``builtins.isinstance = ...``; the student's own module
has a copy and keeps working) broke the jail's loop, which looked them up at each call: such a file was graded 0 in
0.1 s, told it "stopped answering" or (exception classes rebound) "did not load: ... exited with code 0"
(tests/sandbox/test_private_builtins_round46.py holds the loop's own tests)."""

from __future__ import annotations

import json
import time

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round46 import ATTACKS, HELP_MODULES, LOOPS_BUILTINS_REBOUND, NOT_LOADING
from tests.grading.test_hostile_round31 import CORRECT, _nothing_left


def _grade(executor, code: str | bytes) -> dict:
    return grade(GradeInput(code=code if isinstance(code, bytes) else code.encode()), "attention", executor)


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_46_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    result = graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)
    if attack in NOT_LOADING:       # as at home, and said so
        assert result["total"] == 0 and NOT_LOADING[attack] in result["message"]["en"], result["message"]
        assert result["message"]["zh"] != result["message"]["en"]
        return
    # nothing else in these files stops their import or the jail's loop: whatever failed is said of a test, never as
    # the file's failing to load or the sandbox's ending
    text = json.dumps([result["message"], result["load_error"], result["tests"]])
    for said in ("did not load", "stopped answering", "exited with code", "sandbox ended"):
        assert said not in text, (said, text[:2000])


@pytest.mark.slow
def test_a_file_rebinding_the_builtins_only_the_jails_loop_calls_is_graded_on_its_code(served):
    """Before round 46: 0 of 85, "did not load: ... exited with code 0" (its ``except BaseException`` caught
    nothing), or "stopped answering" with the classes and functions rebound alone. 68 of 85 is what the honest code
    earns when it imports a module the static check cannot follow."""
    result = _grade(served, LOOPS_BUILTINS_REBOUND)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 68, json.dumps(result["tests"])[:2000]


@pytest.mark.slow
def test_help_modules_at_import_costs_little_and_the_file_is_graded_on_its_code(served):
    """Before round 46: pydoc's scan imported every package on sys.path in every session, to the import's CPU limit
    (10 s): 25-62 s of wall, and 0 ("stopped after using 10 s of CPU time") or 46 of 85 ("failed to load again after a
    crash") as the host's load went. Now the scan finds nothing (and says so on stderr): an honest grading's time."""
    started = time.monotonic()
    result = _grade(served, HELP_MODULES)
    wall = time.monotonic() - started
    assert result["status"] == "graded" and result["total"] == 85, json.dumps(result)[:2000]
    assert wall < 10, f"{wall:.1f} s"
