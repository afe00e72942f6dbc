"""Round 37, in Chromium: an open list of attempts shows an instructor's regrade of a graded attempt.

The list polled only the attempts queued or running: after a real regrade the graded row kept its old score until
a reload. Now the whole list is checked once a minute while the tab is shown, one request for every row (a 304
when nothing changed), and a new score is shown and said in the page's language. Round 39: where no wait is held the
page tries again within seconds, backing off to that minute, so the tests move the page's clock a second at a time.

Round 38: the list is long-polled (tests/browser/test_attempts_follow_round38.py); the minute's check is what the
page falls back to where the server holds no wait for it, as here (`no_long_polls`: no slot for the list)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission
from app.regrading import request_regrade
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login


def attempts_page(browser, live_server: str, email: str, slug: str, lang: str = "en", *, clock: bool = True,
                  watch=None):
    """A new page on the assignment's attempts list, signed in as ``email`` in ``lang``, with the page's clock
    installed (``clock``) so a test moves the list's minute checks on by hand. With the clock, the page's first
    list request (answered at once where the server holds no wait) is answered before this returns. ``watch``:
    called with the new page before it loads anything (a test's request listeners)."""
    page = browser.new_context().new_page()
    if watch is not None:
        watch(page)
    if clock:
        page.clock.install()
    login(page, live_server, email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    if not clock:
        page.goto(f"{live_server}/assignments/{slug}")
        return page
    with page.expect_response(lambda r: "/attempts" in r.url, timeout=10_000):
        page.goto(f"{live_server}/assignments/{slug}")
    page.wait_for_timeout(300)   # the answer read: the next minute's check is set
    return page


def run_clock(page, seconds: float, until=None, step_ms: int = 1_000, pause_ms: int = 60) -> int:
    """Move the page's clock on by up to ``seconds`` in steps of ``step_ms``, with real time between the steps for
    the server's answers to arrive, and stop once ``until()`` is true. Returns the whole steps moved. Round 39: the
    page tries a wait the server did not hold again within seconds, and each request's 15 s limit runs on the page's
    clock: a minute moved in one step aborted the request sent at its start before its answer could come."""
    steps = 0
    while steps * step_ms < seconds * 1_000:
        if until is not None and until():
            break
        page.clock.run_for(step_ms)
        steps += 1
        page.wait_for_timeout(pause_ms)
    return steps


@pytest.fixture
def no_long_polls(app):
    """No long-poll slot for the attempts list: the server answers its waits at once, the page checks each minute."""
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0          # round 38 mend: the lists have their own slots


pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAID = {"en": "the score is now 94 of 100", "zh": "分数现在是 94 / 100"}


def _requests(page, *parts: str) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []
    page.on("response", lambda r: seen.append((r.url, r.status)) if any(p in r.url for p in parts) else None)
    return seen


def _answered(page, seen: list, n: int) -> None:
    """Wait (real time, events delivered) for the n-th answer: the next minute's check is set once the previous
    one is answered."""
    for _ in range(150):
        if len(seen) >= n:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(500)  # the answer's body read and compared: only then is the next check set


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_open_list_shows_a_regrade_of_a_graded_attempt_with_checks_backing_off_to_one_a_minute(
        app, web, factory, live_server, browser, lang, no_long_polls):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first, second = web.submit(alice, a), web.submit(alice, a)
    web.grade(first, full_result())
    web.grade(second, full_result())
    page = attempts_page(browser, live_server, alice.email, a.slug, lang)
    row = page.locator(f"#attempts tr[data-attempt='{first.attempt}']")
    expect(row.locator("td.num strong")).to_have_text("96")
    seen = _requests(page, "/attempts", "/status")

    # Nothing changed: one list request per check, a 304 (the page has the tag). No wait is held for the list, so
    # the page tries again within seconds (round 39: a slot freed meanwhile was left unused for a minute), backing
    # off to one check a minute at most: 1-2 s, 2-4 s, 4-8 s, 8-16 s, 16-32 s, then 60-70 s (round 39 mend: 30-60 s
    # asked more often than the minute's check it replaced).
    at: list[int] = []                             # the page's second of each answer
    moved = 0
    while moved < 180:
        moved += run_clock(page, 1)
        at.extend([moved] * (len(seen) - len(at)))
    assert {s for _u, s in seen} == {304}, seen
    assert at[0] <= 3, at                          # the first try again within seconds, not a minute
    assert 6 <= len(at) <= 8, at                   # no storm: 6-7 checks in three minutes, as the back-off allows
    gaps = [y - x for x, y in zip(at, at[1:], strict=False)]
    assert all(g <= 71 for g in gaps), at          # never longer than 70 s (below longpoll.TURN_S, 75 s)
    assert all(g >= 59 for g in gaps[4:]), at      # backed off: the later ones 60-70 s apart, never more often

    run = request_regrade(db.session.get(Submission, first.id))
    FakeWorker(app, run.id, full_result(failing=("test_large_logits_stable",)), delay_running=0.05,
               delay_graded=0.05).start().join()
    strong = row.locator("td.num strong")
    run_clock(page, 71, until=lambda: (strong.text_content() or "") not in ("", "96"))
    expect(strong).not_to_have_text("96", timeout=10_000)
    expect(page.locator("#attempts + p[aria-live]")).to_contain_text(SAID[lang])
    assert all("/attempts" in u for u, _s in seen), "graded rows were asked for one by one"
    page.context.close()


def test_a_regrade_queued_makes_its_row_polled_until_its_result_is_in(app, web, factory, live_server, browser,
                                                                     no_long_polls):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    page = attempts_page(browser, live_server, alice.email, a.slug)
    run = request_regrade(db.session.get(Submission, sub.id))
    badge = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] [data-status-cell] .badge")
    run_clock(page, 61, until=lambda: (badge.first.text_content() or "").strip() == "queued")   # the list's check
    expect(badge.first).to_have_text("queued", timeout=10_000)
    FakeWorker(app, run.id, full_result(failing=("test_large_logits_stable",)), delay_running=0.05,
               delay_graded=0.05).start().join()
    strong = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] td.num strong")
    for _ in range(30):                            # the row's brisk polls, on the page's clock
        page.clock.run_for(1_000)
        if (strong.text_content() or "") not in ("", "96"):
            break
        time.sleep(0.2)
    expect(strong).to_have_text("94")
    page.context.close()


def test_an_attempt_sent_from_another_tab_joins_the_list_and_is_followed_to_its_result(app, web, factory,
                                                                                       live_server, browser,
                                                                                       no_long_polls):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    web.grade(web.submit(alice, a), full_result())
    page = attempts_page(browser, live_server, alice.email, a.slug)
    second = web.submit(alice, a)                  # the other tab's upload
    badge = page.locator(f"#attempts tr[data-attempt='{second.attempt}'] [data-status-cell] .badge")
    run_clock(page, 61, until=lambda: badge.count() > 0)                        # the list's check (within a minute)
    expect(badge).to_have_text("queued", timeout=10_000)
    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    for _ in range(10):                            # the new row's brisk polls: seconds, not the next minute's check
        page.clock.run_for(1_000)
        if (badge.text_content() or "").strip() == "graded":
            break
        time.sleep(0.2)
    expect(badge).to_have_text("graded")
    page.context.close()
