"""Round 36, in Chromium: the assignment page's list of attempts follows a new attempt's grading.

Before, the list was rendered once: a student back on the assignment page after an upload saw "queued" until
a reload. Now each attempt still queued or running is asked for its status; its badge changes as it goes
(said once in a polite live region), and when it ends the card is fetched again: score, "counts" and the
comparison's choices, without reloading the page (the upload form keeps what was chosen)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEXTS = {"en": ("queued", "graded", "Attempt 2: graded."), "zh": ("排队中", "已评分", "第 2 次提交：已评分。")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_new_attempt_in_the_list_shows_its_grading_as_it_ends_without_a_reload(app, web, factory, live_server,
                                                                                   browser, lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    first = web.submit(alice, a)
    web.grade(first, full_result(failing=("test_large_logits_stable", "test_blocked_key_gets_zero_weight")))
    second = web.submit(alice, a)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()   # a phone
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/assignments/{a.slug}")
    queued, graded, said = TEXTS[lang]
    row = page.locator(f"#attempts tr[data-attempt='{second.attempt}']")
    expect(row.locator(".badge").first).to_have_text(queued)
    page.evaluate("() => { window.notReloaded = true; }")
    page.set_input_files("input[name=code]", files=[{"name": "attention.py", "mimeType": "text/x-python",
                                                      "buffer": b"x = 1\n"}])

    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.3, delay_graded=0.5).start().join()
    expect(row.locator("[data-status-cell] .badge")).to_have_text(graded, timeout=15_000)
    expect(row).to_contain_text("96")                              # its score, fetched with the card
    expect(row.locator(".badge.counts")).to_be_visible()           # the better attempt counts now
    expect(page.locator("[aria-live=polite].sr-only")).to_have_text(said)
    assert page.evaluate("() => window.notReloaded === true"), "the page was reloaded"
    assert page.evaluate("() => document.querySelector('input[name=code]').files.length") == 1
    page.context.close()
