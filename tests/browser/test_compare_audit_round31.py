"""Round 31, the student's walk in Chromium: comparing two attempts whose audits differed showed only "Audit
explanation 14 -> 11". The comparison now lists the audit items that moved; on a phone in Chinese and on a desktop
in English it reads whole (nothing cut off, the table scrolls in its card and is reached with the keyboard), with
no serious axe-core violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import axe_violations, overflow
from tests.browser.helpers import full_result, tab_to
from tests.browser.test_browser_flows import login
from tests.browser.test_student_pages_browser import new_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def worse_audit() -> dict:
    result = full_result()
    item = result["audit"]["items"][1]
    item.update(found=False, points=0, feedback={"en": "Report the row sums and the largest error you measured.",
                                                 "zh": "请报告测得的行和与最大误差。"})
    result["audit"]["score"] -= 4
    result["categories"]["audit"]["score"] -= 4
    result["total"] -= 4
    return result


@pytest.mark.parametrize(("width", "locale", "said"), [
    (390, "zh-CN", ("结果有变化的审计检查项", "报告行和与最大绝对误差", "请报告测得的行和与最大误差。")),
    (1280, "en-US", ("Audit items whose result changed", "Row sums and max abs error reported",
                     "Report the row sums and the largest error you measured.")),
], ids=["phone-zh", "desktop-en"])
def test_the_audit_item_that_moved_is_listed_whole_on_a_phone_and_a_desktop(app, web, factory, live_server, browser,
                                                                          width, locale, said):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    first = web.submit(alice, a)
    web.grade(first, full_result())
    second = web.submit(alice, a, audit=False, figure=False)
    web.grade(second, worse_audit())
    ctx, page = new_page(browser, width, locale)
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    page.goto(f"{live_server}/submissions/compare?a={first.id}&b={second.id}")
    card = page.locator("#cmp-audit-card")
    for text in said:
        expect(card).to_contain_text(text)
    expect(card.locator("tbody tr")).to_have_count(1)
    expect(card.locator("tbody .diff-down")).to_have_text("-4")
    # the attempts' headers read on one line: at 390 px "第 1 次提交" broke after 提 and 变化 into two lines
    lines = page.evaluate("""() => [...document.querySelectorAll('main thead th')].filter(th => th.textContent.trim())
        .map(th => { const r = document.createRange(); r.selectNodeContents(th);
                     return [th.textContent.trim(), new Set([...r.getClientRects()].map(x => Math.round(x.top))).size]; })""")
    assert [t for t, n in lines if n > 1 and ("提交" in t or "Attempt" in t or t in ("变化", "Change"))] == [], lines
    tab_to(page, "el.closest('#cmp-audit-card')", "the audit comparison")
    problems = overflow(page) + [f"{v['id']}: {v['nodes']}" for v in axe_violations(page)]
    ctx.close()
    assert problems == []
