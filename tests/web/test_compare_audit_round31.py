"""Round 31, walked in Chromium: two attempts whose audits differed compared as "Audit explanation 14 -> 11"
and "32 unchanged" with nothing saying which audit item moved, nor which audit file each attempt was graded
with. The comparison now lists the audit items whose result changed (in the reader's language, with the newer
attempt's advice) and names each attempt's audit."""

from __future__ import annotations

import html

from app.extensions import db
from app.models import AuditReview
from tests.web.helpers import realistic_result


def _worse_audit() -> dict:
    result = realistic_result()
    result["audit"]["items"][0].update(found=False, points=0,
                                       feedback={"en": "Report the row sums you measured.", "zh": "请报告测得的行和。"})
    result["audit"]["score"] = 7
    result["categories"]["audit"]["score"] = 7
    result["total"] -= 4
    return result


def _audit_card(client, a, b) -> str:
    page = html.unescape(client.get(f"/submissions/compare?a={a.id}&b={b.id}").get_data(as_text=True))
    return page[page.index('id="cmp-audit-card"'):]


def test_a_comparison_names_the_audit_item_that_moved_and_each_attempts_audit_in_both_languages(client, web, course):
    alice, a = course["alice"], course["assignment"]
    first = web.submit(alice, a)
    web.grade(first, realistic_result())
    second = web.submit(alice, a, audit=False)     # the audit is kept from attempt 1
    web.grade(second, _worse_audit())
    web.login(client, alice)
    said = {"en": ("Audit items whose result changed", "Reports row sums", "Report the row sums you measured.",
                   "Attempt 1: audit.md", "Attempt 2: audit.md", "kept from attempt 1"),
            "zh": ("结果有变化的审计检查项", "报告行和", "请报告测得的行和。", "第 1 次提交：audit.md", "第 2 次提交：audit.md",
                   "沿用第 1 次提交")}
    for lang, texts in said.items():
        client.get(f"/lang/{lang}")
        card = _audit_card(client, first, second)
        for text in texts:
            assert text in card, (lang, text, card[:2000])
        row = card[card.index("<tbody>"):card.index("</tbody>")]
        assert "4 / 4" in row and "0 / 4" in row and "-4" in row
        assert "Weights are not causal importance" not in row and "权重不是因果重要性" not in row   # unchanged


def test_a_comparison_with_the_same_audit_result_says_so_and_an_instructor_review_is_named(client, web, course):
    alice, a = course["alice"], course["assignment"]
    first = web.submit(alice, a)
    web.grade(first, realistic_result())
    second = web.submit(alice, a)
    web.grade(second, realistic_result())
    web.login(client, alice)
    client.get("/lang/en")
    card = _audit_card(client, first, second)
    assert "Every audit item has the same result in both attempts." in card and "<tbody>" not in card
    db.session.add(AuditReview(submission_id=second.id, reviewer_id=course["teacher"].id, score=13, comment=""))
    db.session.commit()
    card = _audit_card(client, first, second)
    assert "Attempt 2: your instructor set the audit score to 13 after reviewing it." in card
