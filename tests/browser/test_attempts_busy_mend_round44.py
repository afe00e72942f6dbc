"""Mend round 44 (review RD, MED 3), in Chromium: a row's /status answered 429 (the service busy) was taken as no
answer and asked again at each poll (26 times in the 30 s its Retry-After asked to wait), nothing said. The rows now
wait the Retry-After and the card says the service is busy, as it does for the card's own 429; the note goes when a
row is answered."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_attempts_busy_round44 import BUSY, TOO_MANY
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_rows_status_429_is_said_busy_and_its_retry_after_waited(app, web, factory, live_server, browser, lang):
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    web.submit(alice, a)
    asks = []

    def serve(route) -> None:
        asks.append(1)
        route.fulfill(**TOO_MANY) if len(asks) == 1 else route.continue_()

    page = attempts_page(browser, live_server, alice.email, a.slug, lang,
                         watch=lambda p: p.route("**/submissions/*/status*", serve))
    note = page.locator("#attempts [data-attempts-busy]")
    run_clock(page, 5, until=lambda: note.count() > 0)
    expect(note).to_have_text(BUSY[lang])
    expect(page.locator("#attempts [data-attempts-down], #attempts [data-attempts-error]")).to_have_count(0)
    run_clock(page, 20)
    assert len(asks) == 1, asks         # the Retry-After (30 s) waited: before, asked each second
    run_clock(page, 15, until=lambda: len(asks) > 1 and note.count() == 0)
    assert len(asks) >= 2, asks
    expect(note).to_have_count(0)       # a row answered: the service no longer busy
    page.context.close()
