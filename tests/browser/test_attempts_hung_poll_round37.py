"""Round 37, in Chromium: a status poll of the attempts list that never gets an answer does not freeze the list.

On a flaky network (a laptop's sleep, a proxy holding the connection) one of the list's polls can stay unanswered.
The list skipped every later poll while one was under way, so the badge said "queued" for good after grading
ended: the submission page's poll has had a time limit since round 22, the list's had none. Each of the list's
requests now gives up after 15 s, and the next poll is asked.

Round 38: the rows are polled one by one only where the list's long poll is not held (here: no slot for it)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_an_unanswered_status_poll_is_given_up_and_the_badge_follows_the_grading(app, web, factory, live_server,
                                                                                 browser):
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0          # round 38 mend: the lists have their own slots
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    page = browser.new_context().new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/en")
    held: list = []

    def hold_the_first(route) -> None:
        if not held:
            held.append(route)          # never answered: the connection that died without a word
        else:
            route.continue_()

    page.route(f"**/submissions/{sub.id}/status*", hold_the_first)
    page.clock.install()
    page.goto(f"{live_server}/assignments/{a.slug}")
    for _ in range(50):
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the list did not poll the queued attempt"
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    badge = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] [data-status-cell] .badge")
    for _ in range(40):                 # 40 s of the page's clock, a second at a time
        page.clock.run_for(1_000)
        if (badge.text_content() or "").strip() == "graded":
            break
        time.sleep(0.1)
    expect(badge).to_have_text("graded")
    page.context.close()
