"""Round 48: a grading's sessions end within its wall budget and the load credit it gives back.

The zygote moves a session's wall limit on by the time host load took from its jail, up to ``WALL_BACKSTOP`` times the
limit (Jail.wall_over). The grading's budget gives back at most ``GRADING_LOAD_CREDIT_S`` of such time, but the
session it reserved could last three times its wall: round 47's self-reviving ``__del__`` and its million-deep
recursion were graded in 71-72 s at load 5-9 (40 s budget, 15 s credit; an honest grading 5.6-8.6 s there), each
told "the 55 s of wall time this grading gives your code were used up". Now ``Budget.reserve`` cuts the session's
whole length (``Limits.wall_hard``) to what is left of the budget and of the credit, and the zygote's backstop to it.
"""

from __future__ import annotations

import time

import pytest

from autograder import settings
from grading.child import Budget
from grading.sandbox.client import Limits
from grading.sandbox.zygote import session_backstop


def test_the_first_session_lasts_no_longer_than_the_budget_and_the_whole_load_credit():
    budget = Budget.start(wall=40.0, cpu=30.0)
    limits = budget.reserve(Limits(wall=30.0, wall_backstop=3.0))
    assert limits.wall == 30.0
    assert limits.session_hard() <= 40.0 + settings.GRADING_LOAD_CREDIT_S + 0.01, limits.session_hard()
    assert limits.session_hard() >= 40.0 + settings.GRADING_LOAD_CREDIT_S - 1.0     # the credit is still there to give


def test_a_session_after_the_credit_was_given_back_gets_no_more_than_the_budget_left():
    budget = Budget.start(wall=40.0, cpu=30.0)
    budget.credit = settings.GRADING_LOAD_CREDIT_S + 5.0      # earlier sessions' jails waited that long for a CPU
    budget.deadline = time.monotonic() + 10.0                 # 10 s of the 40 left
    limits = budget.reserve(Limits(wall=30.0, wall_backstop=3.0))
    left = 10.0 + settings.GRADING_LOAD_CREDIT_S
    assert limits.wall == pytest.approx(left, abs=0.1)
    assert limits.session_hard() == pytest.approx(left, abs=0.1), limits.session_hard()


def test_the_zygote_cuts_its_backstop_to_the_sessions_whole_length():
    job = Limits(wall=30.0, wall_backstop=3.0, wall_hard=45.0).as_job()
    assert session_backstop(job, 30.0) == pytest.approx(1.5)
    assert session_backstop(Limits(wall=30.0, wall_backstop=3.0).as_job(), 30.0) == 3.0    # no budget: as before
    # never under the wall itself (the zygote's own limit), never over the backstop
    assert session_backstop(Limits(wall=30.0, wall_backstop=3.0, wall_hard=10.0).as_job(), 30.0) == 1.0
    assert session_backstop(Limits(wall=30.0, wall_backstop=3.0, wall_hard=500.0).as_job(), 30.0) == 3.0
