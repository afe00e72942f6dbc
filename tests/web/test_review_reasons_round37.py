"""The grader's review reasons (why an attempt needs a person to look) were English on zh instructor pages
(round 37). Every reason is built here by its real builder (the runner's, the attention suite's), stored as
a worker stores it, and shown on the dashboard and the student's page in zh, with what the builder quoted
(names, calls, an error, limits) kept; en pages show the stored text."""

from __future__ import annotations

import html

import pytest

from tests.grading.test_review_codes_round39 import builders_reasons
from tests.web.helpers import realistic_result


def _reasons() -> list[dict]:
    reasons = builders_reasons()     # round 39: {code, params, text}, built by each builder
    assert len(reasons) == 9 and all(isinstance(r["text"], str) for r in reasons)
    return reasons


# What each zh text must keep of the stored one: the quoted parts (since the mend of round 39 the indirect names'
# places are told in zh, their code in backticks).
KEPT = ["20,000", "第 3 行：用计算得到的名字调用 `getattr`", "scaled_dot_product_attention`（2 次）", "ValueError('hook broke')"]


@pytest.fixture
def flagged(client, web, course):
    reasons = _reasons()
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": reasons})
    web.login(client, course["teacher"])
    return reasons, course["alice"].id


@pytest.mark.parametrize("page", ["dashboard", "student"])
def test_every_review_reason_is_shown_in_zh_on_zh_pages_and_as_stored_on_en_pages(client, flagged, page):
    reasons, alice = flagged
    url = "/instructor/" if page == "dashboard" else f"/instructor/students/{alice}"
    client.get("/lang/zh")
    zh = html.unescape(client.get(url).get_data(as_text=True))
    for reason in reasons:
        assert reason["text"] not in zh, reason
    for kept in KEPT:
        assert kept in zh, kept
    for text in ("attention.py 无法解析", "超出了源代码审阅能读的范围", "融合注意力检查无法追踪", "PyTorch 的现成注意力函数运行了",
                 "源代码审阅在用了", "源代码审阅出错", "结果审阅出错", "审计检查程序在这份审计上出错", "评分的时间预算"):
        assert text in zh, text
    client.get("/lang/en")
    en = html.unescape(client.get(url).get_data(as_text=True))
    for reason in reasons:
        assert reason["text"] in en, reason


def test_a_reason_no_pattern_knows_is_shown_as_stored(app):
    from app.review_text import localized

    with app.test_request_context("/", headers={"Accept-Language": "zh"}):
        assert localized("another suite's reason: x") == "another suite's reason: x"
