"""Round 44 (builder D, item 3), in Chromium: the attempts card fetched again (an attempt ended) answered 429 (the
app's too_many_connections: the service busy) waited its Retry-After unsaid, where the submission page says "busy"
for its result. The card now says the service is busy, in en and zh, waits the Retry-After, and the note goes when
the card comes."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.test_attempts_outage_round41 import _scored
from tests.browser.test_attempts_refused_round42 import _ended_attempt_page
from tests.browser.test_attempts_regrade_round37 import run_clock

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUSY = {"en": "The grading service is busy right now (HTTP 429), so this list may be out of date. The page tries "
              "again by itself after the wait the service asked for, and updates when the service answers.",
        "zh": "评分服务现在很忙（HTTP 429），这个列表可能不是最新的。页面会按服务要求的时间等待后自动重试，服务回答后自动更新。"}
TOO_MANY = {"status": 429, "content_type": "application/json", "headers": {"Retry-After": "30"},
            "body": json.dumps({"error": "busy", "code": "too_many_connections", "message": {"en": "busy", "zh": "忙"}})}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_429_for_the_card_is_said_as_the_service_busy_until_the_card_comes(app, web, factory, live_server, browser,
                                                                            lang):
    """Before: no word on the card for the 30 s the Retry-After asked to wait."""
    cards = []

    def serve_card(route) -> None:
        cards.append(1)
        route.fulfill(**TOO_MANY) if len(cards) == 1 else route.continue_()

    page, sub = _ended_attempt_page(app, web, factory, live_server, browser, lang, serve_card)
    card = page.locator("#attempts")
    note = card.locator("[data-attempts-busy]")
    run_clock(page, 5, until=lambda: note.count() > 0)
    expect(note).to_have_text(BUSY[lang])
    expect(card.locator("[data-attempts-down], [data-attempts-error], [data-attempts-stopped]")).to_have_count(0)
    run_clock(page, 20)
    assert len(cards) == 1, cards       # its Retry-After waited
    run_clock(page, 30, until=lambda: _scored(card, sub.attempt).count() > 0)
    expect(_scored(card, sub.attempt)).to_have_count(1)
    expect(note).to_have_count(0)
    page.context.close()
