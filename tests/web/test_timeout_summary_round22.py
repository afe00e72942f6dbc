"""Round 22: the result page's timeout summary counts only the tests that met their own time limit.
Tests the engine then did not run (it gives up after the code hung several times, or once the grading's
budget is used up) share the outcome `timeout`, and were counted as stopped: "32 of the 32 tests
stopped at their time limit" when 3 had hung and 29 never started. They are now counted apart, with
the reason the engine gave, in zh and en. The messages are the engine's own (grading.proxy, grading.child)."""

from __future__ import annotations

import html

import pytest

from grading.child import Budget
from grading.i18n import not_run
from grading.proxy import gave_up_text
from tests.web.helpers import realistic_result
from tests.web.test_timeout_summary_round21 import SEEN
from tests.web.test_timeout_summary_round21 import summary as summary_html

# Gradings that wait for time limits, seconds each: slow lane (stop 40, fast lane < 10 min).
pytestmark = pytest.mark.slow


def summary(page: str) -> str | None:
    text = summary_html(page)
    return None if text is None else html.unescape(text)


def hung_then_skipped(hung: int, reason: dict) -> dict:
    """``hung`` visible tests met their limit, every later test carries the engine's not-run ``reason``."""
    result = realistic_result()
    for i, t in enumerate(result["tests"]):
        t.update(outcome="timeout", points=0, feedback=SEEN if i < hung else reason)
    return result


GAVE_UP = gave_up_text("attention.py", 3, ["hung"])
BUDGET = Budget.start(wall=60, cpu=40).why()


def test_the_engine_marks_its_skipped_checks_as_not_run_and_its_timeouts_not():
    assert not_run(GAVE_UP) and not_run(BUDGET) and not not_run(SEEN)


@pytest.mark.parametrize("lang, head, more", [
    ("en", "3 of the 32 tests stopped at their time limit", "29 more were not run."),
    ("zh", "32 个测试中有 3 个因超时被终止", "另有 29 个未运行。")])
def test_tests_skipped_after_hangs_are_not_counted_as_stopped_at_their_limit(client, web, course, lang, head, more):
    sub = web.submit(course["alice"])
    web.grade(sub, hung_then_skipped(3, GAVE_UP))
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    text = summary(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert text is not None and text.startswith(head) and more in text and GAVE_UP[lang] in text, text


@pytest.mark.parametrize("lang, head", [("en", "32 of the 32 tests were not run"),
                                        ("zh", "32 个测试中有 32 个未运行")])
def test_a_budget_used_up_before_any_test_says_not_run_with_the_reason(client, web, course, lang, head):
    sub = web.submit(course["alice"])
    web.grade(sub, hung_then_skipped(0, BUDGET))
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    text = summary(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert text is not None and text.startswith(head) and BUDGET[lang] in text, text
