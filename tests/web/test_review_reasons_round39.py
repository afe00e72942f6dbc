"""Round 39: a review reason is stored as {"code", "params", "text"} and the pages and the API translate its
code through the catalogue, so a reworded English text changes nothing zh readers see (round 37 matched the
English by regex, and a rewording fell back to English silently). Rows stored before hold plain strings and
still show in zh; a code nothing translates (another suite's) shows its suite's zh, if stored, else its text."""

from __future__ import annotations

import html
import re

import pytest

from tests.grading.test_review_codes_round39 import builders_reasons
from tests.web.helpers import realistic_result

CJK = re.compile(r"[\u4e00-\u9fff]")

# Rows graded before round 39, as those builders wrote them (frozen: stored results are never rewritten).
OLD_ROWS = ["the audit checker failed on this audit (traceback in the log): grade the audit by hand",
            "attention.py reaches functions through computed or indirect names, which the fused-attention check "
            "cannot follow: line 3: getattr with a computed name",
            "the grading's budget (60 s, 30 s CPU) ran out; the remaining tests are timeout"]
OLD_ZH = ["审计检查程序在这份审计上出错", "融合注意力检查无法追踪", "评分的时间预算"]

OTHER = {"code": "other_suite.slow_loop", "params": {"n": "3"}, "text": "another suite's reason: 3 loops"}
DECLARED = {"code": "demo.loops", "params": {"n": "3"}, "text": "3 loops the review cannot bound",
            "zh": "3 个审阅无法限定的循环"}


def _in(app, lang: str, reason: object) -> str:
    from app.review_text import localized

    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def test_every_builders_code_has_a_zh_and_an_en_text(app):
    for reason in builders_reasons():
        en, zh = _in(app, "en", reason), _in(app, "zh", reason)
        assert en == reason["text"], reason
        assert zh != en and CJK.search(zh) and "%(" not in zh, (reason["code"], zh)
        # a reason listing places (findings) tells each in zh: its subjects are kept, not the English list
        quoted = [f["subject"] for f in reason["findings"]] if "findings" in reason else reason["params"].values()
        if reason["code"] == "attention.fused_unseen":   # each call's name as code, its count in zh (round 40)
            quoted = [call.split(" (")[0] for call in reason["params"]["calls"].split(", ")]
        assert all(value in zh for value in quoted), (reason, zh)


def test_a_reworded_english_text_changes_nothing_a_zh_reader_sees(app):
    for reason in builders_reasons():
        reworded = {**reason, "text": "Reworded: " + reason["text"].upper()}
        assert _in(app, "zh", reworded) == _in(app, "zh", reason), reason["code"]
        assert "Reworded" not in _in(app, "zh", reworded)


def _student_page(client, web, course, review: list, lang: str) -> str:
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": review})
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    return html.unescape(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))


def test_an_old_rows_plain_strings_still_show_in_zh_on_the_students_page_and_the_dashboard(client, web, course):
    page = _student_page(client, web, course, OLD_ROWS, "zh")
    dashboard = html.unescape(client.get("/instructor/").get_data(as_text=True))
    for shown in (page, dashboard):
        for text in OLD_ZH:
            assert text in shown, text
        # the listed place read back to its kind (round 41), no longer the English as stored
        assert "第 3 行：用计算得到的名字调用 `getattr`" in shown and "line 3: getattr" not in shown
        for old in OLD_ROWS:
            assert old not in shown, old


def test_a_code_nothing_translates_shows_its_text_and_a_suites_declared_zh_on_zh_pages(client, web, course):
    page = _student_page(client, web, course, [OTHER, DECLARED], "zh")
    assert f"<li>{OTHER['text']}</li>" in page and f"<li>{DECLARED['zh']}</li>" in page
    client.get("/lang/en")
    page = html.unescape(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))
    assert f"<li>{OTHER['text']}</li>" in page and f"<li>{DECLARED['text']}</li>" in page
    assert DECLARED["zh"] not in page


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_api_answers_each_review_reason_in_the_shape_its_spec_documents(client, factory, web, course, lang):
    from app.openapi import spec

    built = builders_reasons()
    review = [built[-1], OLD_ROWS[1], OTHER]
    sub = web.submit(course["alice"])
    web.grade(sub, {**realistic_result(), "review": review})
    schemas = spec()["components"]["schemas"]
    assert schemas["Submission"]["properties"]["result"]["properties"]["review"]["items"] == {
        "$ref": "#/components/schemas/ReviewReason"}
    documented = schemas["ReviewReason"]
    body = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}",
                      headers={"Authorization": f"Bearer {factory.token(course['teacher'])}"}).json
    got = body["result"]["review"]
    assert len(got) == 3
    for item in got:
        # every required key, and only documented ones ("findings" only for a reason listing places)
        assert set(documented["required"]) <= set(item) <= set(documented["properties"]), item
        assert all(isinstance(item[k], str) for k in ("code", "text", "message"))
        assert all(isinstance(v, str) for v in item["params"].values())
    assert [item["code"] for item in got] == ["engine.budget_spent", "attention.indirect_names", OTHER["code"]]
    assert got[1]["params"] == {"names": "line 3: getattr with a computed name"} and got[1]["text"] == OLD_ROWS[1]
    assert got[0]["text"] == built[-1]["text"] and got[2]["message"] == OTHER["text"]
    if lang == "zh":
        assert "评分的时间预算" in got[0]["message"] and "融合注意力检查无法追踪" in got[1]["message"]
    else:
        assert [item["message"] for item in got[:2]] == [built[-1]["text"], OLD_ROWS[1]]
