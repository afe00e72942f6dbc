"""Round 21: a grading whose tests stopped at their time limit says so at the top of the result
page, in zh and en, with what was seen (the first visible test's own message), as a load failure
does. Before, the page went straight to the score: the reason was 32 rows down, in the table."""

from __future__ import annotations

import re

import pytest

from tests.helpers import load_rubric
from tests.web.helpers import realistic_result

# Gradings that wait for time limits, seconds each: slow lane (stop 40, fast lane < 10 min).
pytestmark = pytest.mark.slow

SEEN = {"en": "ScaledDotProductAttention.forward did not finish within 5 s",
        "zh": "ScaledDotProductAttention.forward 未在 5 秒内结束"}


def timed_out(timeouts: set[str] | None = None) -> dict:
    result = realistic_result()
    ids = [t["id"] for t in result["tests"]]
    chosen = set(ids) if timeouts is None else timeouts
    for t in result["tests"]:
        if t["id"] in chosen:
            t.update(outcome="timeout", points=0, feedback=SEEN)
    return result


def summary(html: str) -> str | None:
    m = re.search(r'<section class="card timeout-summary"[^>]*>(.*?)</section>', html, re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group(1))).strip() if m else None


@pytest.mark.parametrize("lang, head", [("en", "32 of the 32 tests stopped at their time limit"),
                                        ("zh", "32 个测试中有 32 个因超时被终止")])
def test_a_grading_whose_tests_timed_out_says_so_at_the_top_with_what_was_seen(client, web, course, lang, head):
    assert len(load_rubric("attention").tests) == 32
    sub = web.submit(course["alice"])
    web.grade(sub, timed_out())
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    text = summary(html)
    assert text is not None and head in text and SEEN[lang] in text, text
    assert html.index("timeout-summary") < html.index('aria-labelledby="score-title"')


def test_only_a_hidden_tests_timeout_shows_the_count_but_not_its_message(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub, timed_out({"test_gradients_match_reference"}))      # a hidden test
    web.login(client, course["alice"])
    client.get("/lang/en")
    text = summary(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert text is not None and "1 of the 32 tests stopped at their time limit" in text
    assert SEEN["en"] not in text


def test_a_grading_without_timeouts_has_no_timeout_summary(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))
    web.login(client, course["alice"])
    assert summary(client.get(f"/submissions/{sub.id}").get_data(as_text=True)) is None
