"""Round 35, in Chromium: a student keeping a graded attempt's page open sees a later regrade.

The page stopped polling when grading ended: after the instructor's regrade it kept the old score, badge and
result until a reload. Now, once final, it checks the status once a minute while the tab is shown (and when it
is looked at again): a regrade waiting is said ("being graded again", the earlier result kept), and the new
result, once in, replaces the block with a note of the new and the old score, in zh and en.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission
from app.regrading import request_regrade
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEXTS = {"en": ("being graded again", "A newer grading of this attempt is in", "it was 96"),
         "zh": ("正在重新评分", "这次提交有了更新的评分", "之前是 96 分")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_open_graded_page_tells_of_a_regrade_and_shows_its_result(app, web, factory, live_server, browser, lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/submissions/{sub.id}")
    expect(page.locator("[data-total]")).to_contain_text("96 / 100")
    newer = page.locator("[data-newer]")
    expect(newer).to_be_hidden()

    run = request_regrade(db.session.get(Submission, sub.id))
    page.clock.run_for(61_000)                       # the minute's check of a final page
    waiting, arrived, was = TEXTS[lang]
    expect(newer).to_contain_text(waiting)
    expect(page.locator("#live [data-badge]")).to_have_class("badge queued")
    expect(page.locator("[data-total]")).to_contain_text("96 / 100")    # the earlier result, until the new one is in

    FakeWorker(app, run.id, full_result(failing=("test_large_logits_stable",)), delay_running=0.1,
               delay_graded=0.1).start().join()
    for _ in range(30):                              # the brisk polls again, on the page's clock
        page.clock.run_for(1_000)
        if arrived in (newer.text_content() or ""):
            break
        time.sleep(0.2)
    expect(newer).to_contain_text(arrived)
    expect(newer).to_contain_text(was)
    expect(page.locator("[data-total]")).not_to_contain_text("96 /")
    expect(page.locator("#live [data-badge]")).to_have_class("badge graded")
    page.context.close()


def test_a_final_page_hidden_makes_no_check_until_it_is_shown_again(app, web, factory, live_server, browser):
    """Review of round 35: the minute's check scheduled while the tab was shown still fired after it was hidden."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/submissions/{sub.id}")
    expect(page.locator("[data-total]")).to_contain_text("96 / 100")
    checks: list[str] = []
    page.on("request", lambda r: checks.append(r.url) if f"/submissions/{sub.id}/status" in r.url else None)
    page.clock.run_for(30_000)                       # half the minute, shown
    page.evaluate("""() => { Object.defineProperty(document, 'hidden', {get: () => true, configurable: true});
                             document.dispatchEvent(new Event('visibilitychange')); }""")
    page.clock.run_for(120_000)                      # two minutes in the background
    time.sleep(0.5)
    assert checks == [], checks
    page.evaluate("""() => { Object.defineProperty(document, 'hidden', {get: () => false, configurable: true});
                             document.dispatchEvent(new Event('visibilitychange')); }""")
    page.wait_for_timeout(300)
    page.clock.run_for(1_000)
    deadline = time.monotonic() + 5
    while not checks and time.monotonic() < deadline:
        time.sleep(0.1)
    assert checks, "looking at the tab again checks at once"
    page.context.close()
