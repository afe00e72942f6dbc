"""Mend of round 48 (review RC MEDIUM-2): the slow attack tests' bound on a grading's wall takes the trusted side's own
time from the honest grading's wall measured in the same run, not a literal 5 s. The round-47 ``__del__`` attack,
graded in 62.1 s at load 13-15 once the budget's whole length was enforced, failed that literal (40 + 15 + 5 = 60 s);
before that fix the round-47 attacks took 71.1 and 72.5 s at load 5-9 with an honest grading of 5.6-8.6 s there.
"""

from __future__ import annotations

import pytest

from autograder.settings import GRADING_BUDGET_S, GRADING_LOAD_CREDIT_S, HINT_CPU_S, REVIEW_CPU_S
from grading.sandbox.client import END_STATUS_WAIT_S
from tests.grading.helpers import (
    GRADING_SESSIONS,
    HONEST_WALL_DRIFT,
    Honest,
    assert_attack_bounded,
    trusted_allowance,
)

_GRADED = {"status": "graded", "total": 10, "message": "", "tests": []}


def test_the_trusted_sides_allowance_grows_with_the_honest_wall_and_holds_the_readers_and_session_end_waits():
    assert trusted_allowance(0.0) == pytest.approx(REVIEW_CPU_S + HINT_CPU_S + GRADING_SESSIONS * END_STATUS_WAIT_S)
    assert trusted_allowance(8.0) - trusted_allowance(4.0) == pytest.approx(4.0 * HONEST_WALL_DRIFT)


@pytest.mark.parametrize("wall, honest_wall, bounded", [
    (62.1, 0.6, True),      # the __del__ attack with the budget's whole length enforced, load 13-15 (honest: 0.6 s
                            # warm at load 10, this mend's fixture)
    (71.1, 0.6, False),     # the recursion before it: a session ran 3 times its wall
    (72.5, 0.6, False),     # the __del__ attack before it
    (GRADING_BUDGET_S + GRADING_LOAD_CREDIT_S + 0.5, 0.3, True),   # a fast idle host: the budget, no more
], ids=["after_fix_at_load_13", "recursion_before_fix", "del_before_fix", "idle_host"])
def test_an_attack_is_bounded_by_the_budget_the_credit_and_the_trusted_sides_measured_share(wall, honest_wall,
                                                                                            bounded):
    check = lambda: assert_attack_bounded(_GRADED, 10, wall, 0.1, 0.1, honest_wall)   # noqa: E731
    if bounded:
        check()
    else:
        with pytest.raises(AssertionError, match="against"):
            check()


def test_an_honest_cost_unpacks_as_before_and_carries_its_wall():
    honest = Honest(85.0, 0.2, 7.5)
    total, cpu = honest
    assert (total, cpu, honest[0], honest.wall) == (85.0, 0.2, 85.0, 7.5)
