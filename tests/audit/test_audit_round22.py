"""Audit red-team round 22.

1. A key named before its query with a verb between ("the last key gets most of q1's weight", "k2 takes 0.21 of q1's
   weight", 最后一个 key 得到了 q0 的大部分权重) was not read as a cell: a false one earned its sentence and was not
   flagged. Now it is checked against the weights the student's code computes, as "key 2 of query 1" was (round 21).
2. A test whose outcome is ``error`` (the grader's own problem, grading/plugin.py) refuted an audit claim as a failed
   one does ("your own code fails ..."): an error is no evidence about the student's code; only ``failed`` is.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, make_heatmap

FIGURE = make_heatmap()
OPENER = "My heatmap has rows q0, q1 and columns k0-k2.\n"


def misread(sentence: str, checklist) -> bool:
    r = grade_audit(OPENER + sentence + "\n", FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


# ------------------------------------------------------------------ 1. a key that gets a share of a query's weight
# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21] peaks at k1, q1 [0.09, 0.24, 0.67] peaks at k2 (the last key)

@pytest.mark.parametrize("sentence", [
    "The last key gets most of q0's weight.",
    "k2 gets most of q0's weight.",
    "k0 receives the largest share of q1's attention.",
    "k2 takes 0.21 of q1's weight.",
    "Key 0 gets 71% of query 0's attention.",
    "k2 gets most of q1's weight (0.24).",
    "k1 gets 58% of q0's attention and k2 gets 27% of q1's.",
    "最后一个 key 得到了 q0 的大部分权重。",
    "k0 拿到了 q1 最多的注意力。",
    "k2 分到了 q1 0.21 的权重。",
])
def test_a_false_key_that_gets_a_share_of_a_query_is_a_misread_cell(sentence, checklist):
    """Before: not read (no flag, the sentence kept its credit); after: flagged as a cell the figure does not show."""
    assert misread(sentence, checklist)


@pytest.mark.parametrize("sentence", [
    "The last key gets most of q1's weight.",
    "k1 receives the largest share of q0's attention.",
    "k2 takes 0.67 of q1's weight.",
    "Key 0 gets 21% of query 0's attention.",
    "k2 gets most of q1's weight (0.67).",
    "k1 gets 58% of q0's attention and k2 gets 67% of q1's.",
    "k2 does not get most of q0's weight.",
    "k1 and k2 get most of q0's weight.",
    "In the masked experiment k2 gets 0.0 of q1's weight.",
    "最后一个 key 得到了 q1 的大部分权重。",
    "k2 分到了 q1 0.67 的权重。",
])
def test_a_true_denied_shared_or_other_tensor_key_share_is_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)


# ------------------------------------------------------------------ 2. an error outcome is no evidence

CLAIM = "The mask is added to the scores before the softmax, so blocked keys get weight 0."


def _test_flags(outcome: str, checklist) -> list[dict]:
    tests = {"test_blocked_key_gets_zero_weight": outcome, "test_additive_mask_parity": outcome}
    return [f for f in grade_audit(CLAIM, None, {}, checklist, tests=tests)["flags"] if f["kind"] == "claim_vs_tests"]


@pytest.mark.parametrize("outcome", ["error", "timeout", "passed"])
def test_a_test_the_grader_could_not_complete_refutes_no_claim(outcome, checklist):
    """Before: outcome "error" flagged "your own code fails test_blocked_key_gets_zero_weight"; after: no flag."""
    assert _test_flags(outcome, checklist) == []


def test_a_failed_test_still_refutes_the_claim(checklist):
    flags = _test_flags("failed", checklist)
    assert len(flags) == 1 and "test_blocked_key_gets_zero_weight" in flags[0]["message"]["en"]
