"""Round 37, in Chromium: a cancelled class regrade puts its attempt back to "graded" in an open list of attempts
without saying "Attempt n: graded." (nothing was graded again: same graded run, same score); a real grading that
ends is still said."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from app import regrading
from app.extensions import db
from app.models import RegradeBatch
from tests.browser.helpers import full_result
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_cancelled_regrade_shows_graded_again_without_saying_it_was_graded(app, web, factory, live_server,
                                                                               browser):
    app.config["LONGPOLL_SLOTS"] = 0               # the minute's checks (round 38: the list is long-polled elsewhere)
    app.config["LONGPOLL_LIST_SLOTS"] = 0          # round 38 mend: the lists have their own slots
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    teacher = factory.instructor()
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    page = attempts_page(browser, live_server, alice.email, a.slug)
    row = page.locator(f"#attempts tr[data-attempt='{sub.attempt}']")
    badge = row.locator("[data-status-cell] .badge").first
    said = page.locator("#attempts + p[aria-live]")
    batch = regrading.start(a, regrading.plan(a, "all"), teacher)
    run_clock(page, 61, until=lambda: (badge.text_content() or "").strip() == "queued")   # the list's check sees it
    expect(badge).to_have_text("queued", timeout=10_000)
    expect(said).to_contain_text("queued")
    assert regrading.cancel(db.session.get(RegradeBatch, batch.id), teacher).cancelled == 1
    for _ in range(30):                            # the row's brisk polls, on the page's clock
        page.clock.run_for(1_000)
        if (badge.text_content() or "").strip() == "graded":
            break
        time.sleep(0.2)
    expect(badge).to_have_text("graded")
    page.wait_for_timeout(500)                     # the card fetched again after the row ended
    expect(row.locator("td.num strong")).to_have_text("96")
    assert "graded" not in (said.text_content() or ""), said.text_content()
    page.context.close()
