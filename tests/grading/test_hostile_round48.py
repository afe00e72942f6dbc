"""Round 48 of hostile submissions (the attacks: tests/grading/hostile_attacks_round48.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running; an honest file
graded after it earns its full score (nothing it did outlived its jail).

Found open and fixed (round 47's leftovers):
- a zero-element result with a dimension of 2^62 was told NumPy's "array is too big" (tests/sandbox/
  test_huge_dimension_round48.py);
- a session could outlast the grading's wall budget and load credit by its backstop: 71-72 s at load 5-9 against
  40 + 15 (tests/grading/test_grading_budget_round48.py);
- a file that lowered its own RLIMIT_DATA / RLIMIT_STACK was told failed allocations and a failed loop with no word of
  the limit it set (tests/sandbox/test_lowered_limits_round48.py; here, the grading of round 47's file).
"""

from __future__ import annotations

import json

import pytest

from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round47 import ATTACKS as ROUND_47
from tests.grading.hostile_attacks_round48 import ATTACKS, NOT_LOADING
from tests.grading.test_hostile_round31 import CORRECT, _nothing_left
from tests.grading.test_hostile_round47 import _grade

# What no round 48 attack's feedback may say: NumPy's words for a shape (round 47), the sandbox's for an end it names
# no cause of, and a load failure (every attack file loads as it would at home, NOT_LOADING aside).
NEVER_SAID = ("array is too big", "sandbox ended", "did not load")


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_48_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_behind(served, honest, attack):
    result = graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)
    again = _grade(served, CORRECT)         # nothing the attack did outlived its grading
    assert (again["status"], again["total"]) == ("graded", honest[0]), json.dumps(again)[:2000]
    expected = NOT_LOADING.get(attack)
    if expected is not None:
        assert result["total"] == 0 and expected in result["message"]["en"], result["message"]
        return
    text = json.dumps([result["message"], result["load_error"], result["tests"]])
    assert [said for said in NEVER_SAID if said in text] == [], text[:2000]


# Results the encoder cannot carry: each is told what it was, in both languages (measured: 20 of 85, the tests that
# read no result of the single-head forward's weights).
NOT_CARRIED = {
    "results_as_quantized_qint8_tensors": ("tensor dtype torch.qint8 is not allowed", "无法传回"),
    "results_as_float8_tensors": ("tensor dtype torch.float8_e4m3fn is not allowed", "无法传回"),
    "results_as_complex_tensors": ("tensor dtype torch.complex64 is not allowed", "无法传回"),
    "results_as_meta_tensors_of_the_right_shapes": ("a tensor on the meta device", "`meta` 设备"),
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(NOT_CARRIED))
def test_a_result_the_grader_cannot_carry_is_told_what_it_was(served, attack):
    result = _grade(served, ATTACKS[attack])
    en, zh = NOT_CARRIED[attack]
    told = [t["feedback"] for t in result["tests"] if t["feedback"] and en in t["feedback"]["en"]]
    assert told and all(zh in f["zh"] for f in told), json.dumps(result["tests"])[:3000]


@pytest.mark.slow
def test_a_file_that_cut_its_own_data_and_stack_limits_is_told_the_limits_it_set(served):
    """Round 47's file: graded 41 with "can't allocate memory: you tried to allocate 1536 bytes" and "the loop that
    reads its requests and writes its replies failed (exit code 71)", no word of the limits it had set at import."""
    result = _grade(served, ROUND_47["the_data_and_stack_rlimits_cut_to_what_is_used_at_import"])
    assert result["status"] == "graded"
    # Whether its allocations fail at all varies run to run (graded 41-68; at 68 only the import rule fails tests):
    # the note is checked where a refused allocation is said, and absent elsewhere (mend round 48, review RC HIGH-1).
    failed = [t["feedback"] for t in result["tests"] if t["outcome"] == "failed"]
    for feedback in failed:
        told = "code in your process had lowered its data-segment limit (RLIMIT_DATA)" in feedback["en"]
        memory = any(m in feedback["en"] for m in ("can't allocate memory", "raised MemoryError", "Cannot allocate"))
        assert told == memory or "exit code 71" in feedback["en"], feedback
        assert told == ("数据段上限（`RLIMIT_DATA`）降到了" in feedback["zh"]), feedback
