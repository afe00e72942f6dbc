"""Round 28: the result page's heading said "N of the M tests stopped at their time limit" when the
sandbox had stopped the calls because the student's code sat idle (grading.sandbox.StudentIdle, round
27): those met no time limit. An idle stop is now said as such (zh and en), counted apart from real
timeouts, hidden tests included. The messages are the engine's own (grading.proxy.idle_text)."""

from __future__ import annotations

import html

import pytest

from grading.i18n import msg, stopped_idle
from grading.proxy import idle_text
from grading.sandbox import StudentIdle
from rubric.scoring import student_view
from tests.web.helpers import realistic_result
from tests.web.test_timeout_summary_round21 import SEEN
from tests.web.test_timeout_summary_round21 import summary as summary_html

# Gradings that wait for time limits, seconds each: slow lane (stop 40, fast lane < 10 min).
pytestmark = pytest.mark.slow

WHAT = msg("ScaledDotProductAttention.forward", "ScaledDotProductAttention.forward")
IDLE = idle_text(WHAT, StudentIdle(2.0, "call", 0.01))
IDLE_TOTAL = idle_text(WHAT, StudentIdle(6.0, "call", 0.01, total=True))
HIDDEN = "test_gradients_match_reference"


def summary(page: str) -> str | None:
    text = summary_html(page)
    return None if text is None else html.unescape(text)


def stopped(idle: set[str] | None, hung: int = 0) -> dict:
    """Tests stopped as idle (``idle``: their ids, None for all) after ``hung`` that met their limit."""
    result = realistic_result()
    for i, t in enumerate(result["tests"]):
        if i < hung:
            t.update(outcome="timeout", points=0, feedback=SEEN)
        elif idle is None or t["id"] in idle:
            t.update(outcome="timeout", points=0, feedback=IDLE)
    return result


def page(client, web, course, result: dict, lang: str) -> str:
    sub = web.submit(course["alice"])
    web.grade(sub, result)
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    text = summary(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert text is not None
    return text


def test_both_idle_messages_are_told_from_a_timeout():
    assert stopped_idle(IDLE) and stopped_idle(IDLE_TOTAL) and not stopped_idle(SEEN)
    assert all(stopped_idle(m) for m in (IDLE["en"], IDLE_TOTAL["en"]))   # as a plain string too
    view = student_view(stopped({HIDDEN}))
    assert [t for t in view["tests"] if t.get("idle")] == [t for t in view["tests"] if t["id"] == HIDDEN]


@pytest.mark.parametrize("lang, head, not_said", [
    ("en", "32 of the 32 tests were stopped because your code sat idle", "time limit"),
    ("zh", "32 个测试中有 32 个因你的代码处于空闲（不占用 CPU）而被终止", "超时")])
def test_tests_stopped_as_idle_are_not_said_to_have_met_their_time_limit(client, web, course, lang, head, not_said):
    text = page(client, web, course, stopped(None), lang)
    assert text.startswith(head) and IDLE[lang] in text and not_said not in text, text


@pytest.mark.parametrize("lang, head, more", [
    ("en", "2 of the 32 tests stopped at their time limit", "30 more were stopped because your code sat idle"),
    ("zh", "32 个测试中有 2 个因超时被终止", "另有 30 个因评分器等待结果时你的代码处于空闲")])
def test_idle_stops_and_timeouts_are_counted_apart(client, web, course, lang, head, more):
    text = page(client, web, course, stopped(None, hung=2), lang)
    assert text.startswith(head) and more in text, text


def test_a_hidden_tests_idle_stop_is_said_without_its_message(client, web, course):
    text = page(client, web, course, stopped({HIDDEN}), "en")
    assert text.startswith("1 of the 32 tests were stopped because your code sat idle") and IDLE["en"] not in text


@pytest.mark.parametrize("lang, badge, timeout", [("en", "stopped: idle", "timeout"), ("zh", "空闲被终止", "超时")])
def test_the_table_badge_of_an_idle_stop_says_idle_and_a_timeout_still_says_timeout(client, web, course, lang, badge,
                                                                                     timeout):
    sub = web.submit(course["alice"])
    web.grade(sub, stopped(None, hung=1))
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    page_html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert page_html.count(f'<span class="badge timeout">{badge}</span>') == 31
    assert page_html.count(f'<span class="badge timeout">{timeout}</span>') == 1
