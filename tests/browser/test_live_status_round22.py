"""Round 22, in Chromium: a student waiting on the attempt's page hears when grading ends. The
status line's detail is the page's only live region (aria-live="polite"); it said "queued"/"running"
but went silent at the end (the badge that changes to "graded" is not announced, and the result
block is inserted without a word), so a screen-reader user never learned that the score was in.
It now says the score, the same number as the result below it, in zh and en."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang, locale, words", [("zh", "zh-CN", "评分完成"), ("en", "en-US", "Grading finished")])
def test_live_region_announces_the_score_when_grading_ends(app, web, factory, live_server, browser, lang, locale,
                                                          words):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    page = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale).new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/submissions/{sub.id}")
    live = page.locator("#live [aria-live]")
    expect(live).not_to_be_empty()                       # queued: it says where the attempt is
    FakeWorker(app, sub.latest_run.id, full_result(failing=("test_large_logits_stable",)), delay_running=0.2,
               delay_graded=0.3).start().join()
    page.wait_for_selector("[data-total]", timeout=15000)
    total = page.locator("[data-total]").inner_text().split("/")[0].strip()
    expect(live).to_contain_text(words, timeout=5000)
    assert f"{total} " in live.inner_text() and "100" in live.inner_text()
    page.context.close()
