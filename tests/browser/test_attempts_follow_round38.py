"""Round 38, in Chromium: the attempts list follows a regrade within seconds (a long poll), one request at a time,
and a cancelled regrade that puts an attempt back to "error" says nothing.

Before, the list was checked once a minute: a regrade's score showed up to 60 s late. Now the page's first request
is a long poll carrying the rendered list's tag, answered as soon as the list changes. A regrade of an attempt that
had ended in error, cancelled before a worker took it, went back to "error" and was said "Attempt n: error." though
nothing was graded; the page now compares the newest run with the row's last final run."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from app import regrading
from app.extensions import db
from app.models import RegradeBatch, Status, Submission
from app.regrading import request_regrade
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_regrade_round37 import attempts_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAID = {"en": "the score is now 94 of 100", "zh": "分数现在是 94 / 100"}


def _in_flight(seen: dict, page, *parts: str) -> None:
    """Counts the page's requests whose URL has one of ``parts`` into ``seen``: how many at most were under way at
    once (from the page's first request on), and which."""
    seen.update(now=0, max=0, urls=[])

    def start(r) -> None:
        if any(p in r.url for p in parts):
            seen["now"] += 1
            seen["max"] = max(seen["max"], seen["now"])
            seen["urls"].append(r.url)

    def end(r) -> None:
        if any(p in r.url for p in parts):
            seen["now"] -= 1

    page.on("request", start)
    page.on("requestfinished", end)
    page.on("requestfailed", end)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_open_list_shows_a_regrade_within_seconds_with_one_request_at_a_time(app, web, factory, live_server,
                                                                                browser, lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    flight: dict = {}
    page = attempts_page(browser, live_server, alice.email, a.slug, lang, clock=False,
                         watch=lambda p: _in_flight(flight, p, "/attempts", "/status"))
    strong = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] td.num strong")
    expect(strong).to_have_text("96")
    page.wait_for_timeout(1_000)                   # the long poll under way
    t0 = time.monotonic()
    run = request_regrade(db.session.get(Submission, sub.id))
    FakeWorker(app, run.id, full_result(failing=("test_large_logits_stable",)), delay_running=0.3,
               delay_graded=0.3).start().join()
    expect(strong).to_have_text("94", timeout=8_000)
    took = time.monotonic() - t0
    expect(page.locator("#attempts + p[aria-live]")).to_contain_text(SAID[lang])
    assert took < 5, f"the regrade showed {took:.1f} s after it was queued"
    assert flight["max"] == 1, flight          # never two list or status requests at once (pages left included)
    assert not [u for u in flight["urls"] if "/status" in u], flight  # the rows were not asked one by one
    assert all("wait=20" in u for u in flight["urls"] if "/attempts" in u), flight
    page.context.close()


def _errored(web, student, assignment) -> Submission:
    """An attempt whose grading ended in error (the worker gave up)."""
    sub = web.submit(student, assignment)
    run = sub.latest_run
    run.status, run.status_reason, run.tries = Status.ERROR.value, "worker lost (gave up after 3 tries)", 3
    sub.status = Status.ERROR.value
    db.session.commit()
    return sub


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_cancelled_regrade_back_to_error_is_not_said(app, web, factory, live_server, browser, lang):
    a = factory.assignment()
    alice, teacher = factory.student(email="alice@example.edu"), factory.instructor()
    sub = _errored(web, alice, a)
    page = attempts_page(browser, live_server, alice.email, a.slug, lang, clock=False)
    badge = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] [data-status-cell] .badge").first
    said = page.locator("#attempts + p[aria-live]")
    error = {"en": "error", "zh": "出错"}[lang]
    expect(badge).to_have_text(error)
    page.wait_for_timeout(1_000)                   # the long poll under way
    batch = regrading.start(a, regrading.plan(a, "submission", submission_id=sub.id), teacher)
    expect(badge).not_to_have_text(error, timeout=5_000)       # queued, seen within seconds
    assert regrading.cancel(db.session.get(RegradeBatch, batch.id), teacher).cancelled == 1
    expect(badge).to_have_text(error, timeout=5_000)
    page.wait_for_timeout(1_500)                   # the card fetched again after the row ended
    expect(badge).to_have_text(error)
    assert error not in (said.text_content() or ""), said.text_content()
    page.context.close()


def test_a_queued_attempt_is_followed_by_the_wait_alone_to_its_result(app, web, factory, live_server, browser):
    """The rows queued or running were polled one by one beside the list's wait until its first answer: two
    requests at once for a page opened while an attempt is being graded."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    flight: dict = {}
    page = attempts_page(browser, live_server, alice.email, a.slug, clock=False,
                         watch=lambda p: _in_flight(flight, p, "/attempts", "/status"))
    badge = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] [data-status-cell] .badge").first
    expect(badge).to_have_text("queued")
    page.wait_for_timeout(2_500)                   # a row's own poll would have gone by now (1 s)
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.3, delay_graded=0.3).start().join()
    expect(badge).to_have_text("graded", timeout=5_000)
    assert not [u for u in flight["urls"] if "/status" in u], flight
    assert flight["max"] == 1, flight
    page.context.close()
