"""The grader's review reasons (why an attempt needs a person to look) were English on zh instructor pages
(round 37). Every reason is built here by its real builder (the runner's, the attention suite's), stored as
a worker stores it, and shown on the dashboard and the student's page in zh, with what the builder quoted
(names, calls, an error, limits) kept; en pages show the stored text."""

from __future__ import annotations

import html

import pytest

from grader_tests.attention import static
from grading import runner
from grading.suite import Suite
from tests.web.helpers import realistic_result

FUSED = {"test_no_fused_attention_static": {"outcome": "passed"},
         "test_no_fused_attention_runtime": {"outcome": "failed", "feedback": {
             "en": static.RUNTIME_FUSED_EN + "torch.nn.functional.scaled_dot_product_attention (2x): write it", "zh": ""}}}


def _raising(source: str, *_outcomes: object) -> list[str]:
    raise ValueError("hook broke")


def _reasons() -> list[dict]:
    suite = Suite(version="t", student_file="a.py", module_name="a", categories=(), review=_raising,
                  outcome_review=_raising)
    reasons = [
        *static.review_reasons("def f(:\n"),
        *static.review_reasons("x = " + "1 + " * 25000 + "1\n"),
        *static.review_reasons('import torch.nn.functional as F\nname = "soft" + "max"\nf = getattr(F, name)\n'),
        *static.outcome_review("import torch\n", FUSED),
        runner.review_stopped_reason(),
        *runner._review(suite, "x = 1\n"),
        *runner._outcome_review(suite, "x = 1\n", {}),
        runner.AUDIT_FAILED_REASON,
        runner.budget_reason(),
    ]
    assert len(reasons) == 9 and all(isinstance(r["text"], str) for r in reasons)   # round 39: {code, params, text}
    return reasons


# What each zh text must keep of the stored one: the quoted parts.
KEPT = ["20,000", "line 3: getattr with a computed name", "scaled_dot_product_attention (2x)", "ValueError('hook broke')"]


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
