"""Round 36, in Chromium: a regrade's result swapped into an open result page brings its grading history, and
keeps open what the student opened.

Before, the live page replaced only the result block: "Grading history" did not list the regrade until a
reload, and the <details> the student had opened (the tests that were not run, under a load error) closed,
with the keyboard focus on its summary lost to the page."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission
from app.regrading import request_regrade
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login
from tests.browser.test_student_pages_browser import load_failure

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEXTS = {"en": ("A newer grading of this attempt is in", "Grading history", "regrade"),
         "zh": ("这次提交有了更新的评分", "评分历史", "重新评分")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_regrade_swapped_in_lists_its_run_and_keeps_open_details_open(app, web, factory, live_server, browser,
                                                                         lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    web.grade(sub, load_failure(full_result()))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/submissions/{sub.id}")
    arrived, history_title, regrade_word = TEXTS[lang]
    expect(page.locator("#history h2")).to_have_count(0)     # one run: no history yet
    summary = page.locator("#result details[data-keep=not-run] summary")
    summary.focus()
    page.keyboard.press("Enter")                               # opened by keyboard
    expect(page.locator("#result details[data-keep=not-run]")).to_have_attribute("open", "")

    run = request_regrade(db.session.get(Submission, sub.id))
    page.clock.run_for(61_000)                                 # the minute's check of a final page
    FakeWorker(app, run.id, load_failure(full_result(grader_version="attn-2026.12.1")), delay_running=0.1,
               delay_graded=0.1).start().join()
    newer = page.locator("[data-newer]")
    for _ in range(30):
        page.clock.run_for(1_000)
        if arrived in (newer.text_content() or ""):
            break
        time.sleep(0.2)
    expect(newer).to_contain_text(arrived)
    details = page.locator("#result details[data-keep=not-run]")
    expect(details).to_have_attribute("open", "")
    assert page.evaluate("() => document.activeElement && document.activeElement.tagName") == "SUMMARY"
    history = page.locator("#history")
    expect(history.locator("h2")).to_have_text(history_title)
    expect(history.locator("tbody tr, table tr:not(thead tr)")).to_have_count(2)
    expect(history).to_contain_text(f"#{run.id}")
    expect(history).to_contain_text(regrade_word)
    expect(history).to_contain_text("attn-2026.12.1")
    page.context.close()
