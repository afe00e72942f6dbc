"""Round 22: a test skipped because the grading's budget is spent says which budget, as measured, in zh
and en, and guesses at no cause. It said "(endless loop, sleeps or far too much work?)" whatever had
happened; the earlier tests' own rows say what was seen."""

from __future__ import annotations

import dataclasses
import time

from grading.child import Budget
from grading.i18n import not_run


def test_a_spent_wall_budget_is_named_as_wall_time():
    budget = dataclasses.replace(Budget.start(wall=60, cpu=40), deadline=time.monotonic() + 0.1)
    assert budget.exhausted
    why = budget.why()
    assert not_run(why) and "60 s of wall time" in why["en"] and "60 秒运行时间" in why["zh"]
    assert "CPU" not in why["en"] + why["zh"]


def test_a_taken_cpu_budget_is_named_as_cpu_time():
    budget = dataclasses.replace(Budget.start(wall=60, cpu=40), cpu_left=0.1)
    assert budget.exhausted
    why = budget.why()
    assert not_run(why) and "40 s of CPU time" in why["en"] and "40 秒 CPU 时间" in why["zh"]
    assert "wall" not in why["en"] and "运行时间" not in why["zh"]


def test_the_message_guesses_at_no_cause():
    for budget in (dataclasses.replace(Budget.start(wall=60, cpu=40), deadline=time.monotonic()),
                   dataclasses.replace(Budget.start(wall=60, cpu=40), cpu_left=0.0)):
        why = budget.why()
        for guess in ("loop", "sleep", "too much", "?", "死循环", "计算量", "？"):
            assert guess not in why["en"] + why["zh"], (guess, why)
