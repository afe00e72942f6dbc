"""Round 29, instructor workflows.

Idle stops (round 27's StudentIdle) were told apart on the student's result page only (round 28): the
instructor's run tables, the page of a test's failures and the compare page still badged them
"timeout", and the API and `autograder grade` gave no way to tell them from a time limit. Every view
now says it with one rule (grading.i18n.stop_of), zh and en."""

from __future__ import annotations

import re

from autograder.cli import format_result
from grading.i18n import localized, stop_of
from tests.web.helpers import realistic_result
from tests.web.test_api import bearer
from tests.web.test_texts_round28 import HIDDEN, IDLE, stopped
from tests.web.test_timeout_summary_round21 import SEEN

BADGES = {"en": ("stopped: idle", "timeout"), "zh": ("空闲被终止", "超时")}
VISIBLE = "test_row_sums_are_one"
NOT_RUN = {"en": "not run: attention.py hung 3 times already, so the remaining checks were skipped",
           "zh": "未运行：attention.py 已卡死 3 次，其余检查被跳过"}


def mixed() -> dict:
    """One test that met its time limit, every other stopped as idle (hidden ones included)."""
    return stopped(None, hung=1)


def badges(page: str, outcome: str = "timeout") -> list[str]:
    return re.findall(rf'<span class="badge {outcome}">([^<]*)</span>', page)


def graded(web, course, result: dict):
    sub = web.submit(course["alice"])
    web.grade(sub, result)
    return sub


def test_the_instructors_run_table_badges_an_idle_stop_as_the_students_page_does(client, web, course):
    sub = graded(web, course, mixed())
    web.login(client, course["teacher"])
    for lang, (idle, timeout) in BADGES.items():
        client.get(f"/lang/{lang}")
        page = client.get(f"/instructor/students/{course['alice'].id}?a={sub.assignment.slug}").get_data(as_text=True)
        assert sorted(set(badges(page))) == sorted({idle, timeout})
        assert badges(page).count(idle) == 31 and badges(page).count(timeout) == 1


def test_the_page_of_a_tests_failures_says_who_was_stopped_idle_and_who_met_the_limit(client, web, course):
    hung = realistic_result()
    for t in hung["tests"]:
        if t["id"] == VISIBLE:
            t.update(outcome="timeout", points=0, feedback=SEEN)
    sub = graded(web, course, mixed())        # alice: idle on every test but the first
    bob = web.submit(course["bob"])
    web.grade(bob, hung)                      # bob: the time limit
    web.login(client, course["teacher"])
    for lang, said in BADGES.items():
        client.get(f"/lang/{lang}")
        page = client.get(f"/instructor/tests/{VISIBLE}?a={sub.assignment.slug}").get_data(as_text=True)
        assert sorted(badges(page)) == sorted(said)


def test_the_compare_page_badges_an_idle_stop_and_lists_a_time_limit_turned_idle_as_a_change(client, web, course):
    hung = realistic_result()
    for t in hung["tests"]:
        if t["id"] == VISIBLE:
            t.update(outcome="timeout", points=0, feedback=SEEN)
    first = graded(web, course, hung)
    second = graded(web, course, stopped({VISIBLE}))
    web.login(client, course["teacher"])
    client.get("/lang/en")
    page = client.get(f"/submissions/compare?a={first.id}&b={second.id}").get_data(as_text=True)
    assert badges(page) == ["timeout", "stopped: idle"], badges(page)


def test_the_api_says_how_every_timeout_ended_to_instructors_and_students(client, web, course, factory):
    result = stopped({VISIBLE, HIDDEN})
    result["tests"][-1].update(outcome="timeout", points=0, feedback=SEEN)
    result["tests"][-2].update(outcome="timeout", points=0, feedback=NOT_RUN)
    sub = graded(web, course, result)
    for who, lang in (("teacher", "en"), ("teacher", "zh"), ("alice", "en"), ("alice", "zh")):
        body = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}", headers=bearer(factory.token(course[who])))
        tests = body.get_json()["result"]["tests"]
        got = {t["id"]: t.get("stopped") for t in tests if t["outcome"] == "timeout"}
        assert got == {VISIBLE: "idle", HIDDEN: "idle", tests[-1]["id"]: "time_limit", tests[-2]["id"]: "not_run"}, who
        assert all("stopped" not in t for t in tests if t["outcome"] != "timeout")


def test_autograder_grade_marks_an_idle_stop_and_a_skipped_check_apart_from_a_time_limit():
    result = stopped({VISIBLE}, hung=1)
    result["tests"][-1].update(outcome="timeout", points=0, feedback=NOT_RUN)
    for lang in ("en", "zh"):
        text = format_result(localized(result, lang))
        marks = re.findall(r"\[(\w+) *\] (\w+)", text)
        assert (("idle", VISIBLE) in marks and ("time", result["tests"][0]["id"]) in marks
                and ("skip", result["tests"][-1]["id"]) in marks), text


def test_a_stop_is_read_from_stored_json_text_and_from_a_students_view_flags():
    import json

    assert stop_of({"outcome": "timeout", "feedback": json.dumps(NOT_RUN)}) == "not_run"
    assert stop_of({"outcome": "timeout", "feedback": json.dumps(IDLE)}) == "idle"
    assert stop_of({"outcome": "timeout", "feedback": None, "idle": True}) == "idle"
    assert stop_of({"outcome": "timeout", "feedback": None}) == "time_limit"
    assert stop_of({"outcome": "failed", "feedback": IDLE}) is None


# The grader's reasons for a person to look at an attempt (result["review"]) were only in the run's log,
# inside a closed <details>: at a deadline nobody found the audits the checker failed on.
REASON = "the audit checker failed on this audit (traceback in the log): grade the audit by hand"
# As a zh page shows it (round 37: the stored English was shown on zh pages too).
SHOWN = {"en": REASON, "zh": "审计检查程序在这份审计上出错（错误追踪见日志）：请人工评阅审计"}


LOOK_AT = {"en": ("The grader asks you to look at this attempt:", "to look at"),
           "zh": ("评分器提请你查看这次提交：", "待查看")}


def test_the_students_page_shows_what_the_grader_asks_the_instructor_to_look_at(client, web, course):
    graded(web, course, realistic_result())                        # attempt 1: nothing to look at
    sub = graded(web, course, {**realistic_result(), "review": [REASON]})
    web.login(client, course["teacher"])
    for lang, (head, badge) in LOOK_AT.items():
        client.get(f"/lang/{lang}")
        page = client.get(f"/instructor/students/{course['alice'].id}?a={sub.assignment.slug}").get_data(as_text=True)
        boxes = re.findall(r"<div class=\"flash error\" data-review-reasons>(.*?)</div>", page, re.S)
        assert len(boxes) == 1 and head in boxes[0] and f"<li>{SHOWN[lang]}</li>" in boxes[0], boxes
        assert page.count(f'<span class="badge error" data-flagged>{badge}</span>') == 1
        assert page.index("data-flagged") > page.index('id="attempt-2"')   # on the flagged attempt, not the first
        assert page.index("data-flagged") < page.index('id="attempt-1"')


def test_the_dashboard_lists_the_counted_attempts_the_grader_flagged(client, web, course):
    from app.extensions import db

    graded(web, course, {**realistic_result(), "review": [REASON]})   # alice's only attempt: it counts
    bob = web.submit(course["bob"])
    web.grade(bob, realistic_result())
    web.login(client, course["teacher"])
    db.session.expire_all()
    for lang, head in (("en", "Counted attempts the grader asks you to look at (1)"),
                       ("zh", "评分器提请你查看的计分提交（1 份）")):
        client.get(f"/lang/{lang}")
        page = client.get("/instructor/").get_data(as_text=True)
        card = re.search(r'<section class="card" id="flagged">(.*?)</section>', page, re.S)
        assert card is not None and head in card.group(1) and SHOWN[lang] in card.group(1), page[:3000]
        assert course["alice"].email in card.group(1) or course["alice"].name in card.group(1)
        assert course["bob"].name not in card.group(1) and course["bob"].email not in card.group(1)


def test_a_flagged_attempt_whose_audit_the_instructor_reviewed_says_so(client, web, course):
    from app.extensions import db
    from app.models import AuditReview

    sub = graded(web, course, {**realistic_result(), "review": [REASON]})
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    card = re.search(r'id="flagged">(.*?)</section>', client.get("/instructor/").get_data(as_text=True), re.S)
    assert card is not None and "data-audit-reviewed" not in card.group(1)
    db.session.add(AuditReview(submission_id=sub.id, reviewer_id=course["teacher"].id, score=12, comment="ok"))
    db.session.commit()
    card = re.search(r'id="flagged">(.*?)</section>', client.get("/instructor/").get_data(as_text=True), re.S)
    assert card is not None and '<span class="badge graded" data-audit-reviewed>审计已复核</span>' in card.group(1)


def test_the_dashboard_says_when_counted_attempts_were_graded_by_other_grader_versions(client, web, course):
    """After the tests change (a new suite version), attempts graded before keep counting until a regrade."""
    graded(web, course, realistic_result())                                   # attn-2026.11.1
    web.login(client, course["teacher"])
    assert 'id="grader-versions"' not in client.get("/instructor/").get_data(as_text=True)
    bob = web.submit(course["bob"])
    web.grade(bob, realistic_result(grader_version="attn-2026.12.0"))         # graded after the change
    for lang, head, newest in (
            ("en", "The counted attempts were graded by 2 grader versions", "The newest grading used attn-2026.12.0."),
            ("zh", "计分提交由 2 个不同的评分器版本评分", "最近一次评分使用的是 attn-2026.12.0。")):
        client.get(f"/lang/{lang}")
        card = re.search(r'id="grader-versions">(.*?)</section>', client.get("/instructor/").get_data(as_text=True),
                         re.S)
        assert card is not None and head in card.group(1) and newest in card.group(1), card
        text = re.sub(r"<[^>]+>", "", card.group(1))
        colon = "：" if lang == "zh" else ": "     # round 31: the reader's colon
        assert text.index(f"attn-2026.12.0{colon}1") < text.index(f"attn-2026.11.1{colon}1"), text
