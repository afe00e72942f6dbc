"""Round 22, in Chromium at 360 px (a small Android phone), zh and en: the result page's tests table
and audit checklist fit the card, so each test's pass/fail and points are in view and no line of
feedback is cut at the screen's edge. One long name in a cell (the rubric's own description
"float32 output matches torch.nn.functional.scaled_dot_product_attention ...", the audit hint that
names the same function) set the table's minimum width: 461 px in a 313 px card, the Result and
Points columns off screen and every line of the first column cut, in both languages. The note under
an overridden test's points ("changed by the instructor") wraps too: 348 px in en before it did."""

from __future__ import annotations

import pytest

from tests.browser.helpers import full_result
from tests.browser.test_browser_flows import login

pytestmark = pytest.mark.browser

FITS = """(sel) => { const t = document.querySelector(sel); const box = t.closest('.table-scroll') || t;
  const last = t.querySelector('tbody tr td:last-child, tr td:last-child');
  return {table: Math.round(t.scrollWidth), card: box.clientWidth,
          lastRight: Math.round(last.getBoundingClientRect().right), viewport: document.documentElement.clientWidth}; }"""


@pytest.mark.parametrize("lang, locale", [("zh", "zh-CN"), ("en", "en-US")])
def test_result_tables_fit_a_360px_phone(app, web, factory, live_server, browser, lang, locale):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    result = full_result(failing=("test_output_parity_reference", "test_blocked_key_gets_zero_weight"))
    result["audit"]["items"].append({
        "id": "parity_numbers", "label": {"en": "Reference parity numbers", "zh": "报告 reference parity 的数值"},
        "found": False, "points": 0, "max_points": 3,
        "feedback": {"en": "Report max_abs_error of your output vs torch.nn.functional.scaled_dot_product_attention.",
                     "zh": "请报告输出与 torch.nn.functional.scaled_dot_product_attention 的 max_abs_error。"}})
    sub = web.submit(alice, a)
    web.grade(sub, result)
    # an instructor's override of one test: its row carries a note under the points
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    client = app.test_client()
    web.login(client, teacher)
    assert client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "test:test_blocked_key_gets_zero_weight", "points": "2",
                             "comment": "旧的 mask 测试有误", "seen": "0"}).status_code == 302
    ctx = browser.new_context(viewport={"width": 360, "height": 800}, locale=locale, timezone_id="Asia/Shanghai")
    page = ctx.new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/submissions/{sub.id}")
    # the long name is on the page (the case this test is about)
    assert "torch.nn.functional.scaled_dot_product_attention" in page.inner_text("#tests-title ~ * table")
    sizes = {sel: page.evaluate(FITS, sel) for sel in ("#tests-title ~ * table", "#audit-title ~ * table")}
    ctx.close()
    for sel, s in sizes.items():
        assert s["table"] <= s["card"] + 1, (sel, s)
        assert s["lastRight"] <= s["viewport"], (sel, s)
