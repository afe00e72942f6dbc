"""Round 42 mend, in Chromium: the attempts card tells the app's refusals from a proxy's, and another sign-in.

Round 42 stopped following an attempt on any 404 of its /status, and stopped the whole page on any 403 or 404 of the
card or the list, a proxy's page too (a deploy's, a misrouted request's): the attempt's score never came, the note
stayed. Only the app's answer (its JSON code, its error page) is final now; a proxy's is asked again. Another account
signed in in another tab made the card fetched again show that account's attempts, unsaid: the page stops and says
so. And: a row gone in the poll where another row ended kept that ending unsaid; two attempts gone read "attempt 1,
2"; the app's 503 asked for the card again within 2 s whatever its Retry-After."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_outage_round41 import _scored
from tests.browser.test_attempts_refused_round42 import _app_page, _ended_attempt_page
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROXY_PAGE = "<html><head><title>{0}</title></head><body><h1>{0}</h1><hr>nginx</body></html>"
APP_NOT_FOUND = '{"error": "Page not found", "code": "not_found"}'
OTHER_SIGN_IN = {"en": "This browser is now signed in differently (in another tab or window), so this list no "
                       "longer updates. Reload the page to see the attempts of the current sign-in.",
                 "zh": "这个浏览器已在另一个标签页或窗口中换了登录，这个列表不再更新。请刷新页面，查看当前登录的账号的提交。"}


def _no_list_slot(app) -> None:
    app.config["LONGPOLL_SLOTS"] = 0               # the rows polled one by one
    app.config["LONGPOLL_LIST_SLOTS"] = 0


def test_a_proxys_404_on_a_rows_status_is_asked_again_and_the_score_comes(app, web, factory, live_server, browser):
    """Before: "no longer finds attempt 1 ... not followed" for good after one proxy 404; the score never came."""
    _no_list_slot(app)
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = {"n": 0}

    def serve(route) -> None:
        asked["n"] += 1
        if asked["n"] == 1:
            route.fulfill(status=404, content_type="text/html", body=PROXY_PAGE.format("404 Not Found"))
        else:
            route.continue_()

    page = attempts_page(browser, live_server, alice.email, a.slug,
                         watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    card = page.locator("#attempts")
    run_clock(page, 10, until=lambda: asked["n"] >= 2)
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 60, until=lambda: _scored(card, sub.attempt).count() > 0)
    expect(_scored(card, sub.attempt)).to_have_count(1)
    expect(card.locator("[data-attempts-gone], [data-attempts-stopped]")).to_have_count(0)
    page.context.close()


@pytest.mark.parametrize("status", [403, 404])
def test_a_proxys_403_or_404_for_the_card_is_asked_again_not_said_as_refused(app, web, factory, live_server, browser,
                                                                             status):
    """Before: "the server refused this list" / "no longer finds this assignment", the page stopped for good."""
    state = {"cards": 0}

    def serve_card(route) -> None:
        state["cards"] += 1
        if state["cards"] <= 2:
            route.fulfill(status=status, content_type="text/html", body=PROXY_PAGE.format(f"{status} Error"))
        else:
            route.continue_()

    page, sub = _ended_attempt_page(app, web, factory, live_server, browser, "en", serve_card)
    card = page.locator("#attempts")
    run_clock(page, 60, until=lambda: _scored(card, sub.attempt).count() > 0)
    expect(_scored(card, sub.attempt)).to_have_count(1)
    assert state["cards"] >= 3, state
    expect(card.locator("[data-attempts-stopped]")).to_have_count(0)
    page.context.close()


@pytest.mark.parametrize("status", [403, 404])
def test_a_proxys_403_or_404_for_the_list_is_asked_again_within_seconds(app, web, factory, live_server, browser,
                                                                        status):
    """Before: the list stopped at its first answer, "refused" or "no longer found" said."""
    _no_list_slot(app)
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    web.grade(web.submit(alice, a), full_result())
    lists = []

    def serve(route) -> None:
        if not route.request.frame.url.split("?")[0].endswith(f"/assignments/{a.slug}"):
            return route.continue_()             # the pages on the way there (the home page lists it too)
        lists.append(1)
        if len(lists) == 1:
            route.fulfill(status=status, content_type="text/html", body=PROXY_PAGE.format(f"{status} Error"))
        else:
            route.continue_()

    page = attempts_page(browser, live_server, alice.email, a.slug, watch=lambda p: p.route("**/attempts?*", serve))
    run_clock(page, 10, until=lambda: len(lists) >= 2)
    assert len(lists) >= 2, lists                            # the back-off's first try: 1-2 s
    expect(page.locator("#attempts [data-attempts-stopped]")).to_have_count(0)
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_another_account_signed_in_in_this_browser_stops_the_list_and_says_so(app, web, factory, live_server,
                                                                              browser, lang):
    """Alice's page open, Bob signs in in another tab: before, Alice's row 404 (not Bob's) fetched the card again and
    it showed Bob's attempts, no word."""
    _no_list_slot(app)
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    bob = factory.student(email="bob@example.edu")
    sub = web.submit(alice, a)
    bsub = web.submit(bob, a)
    web.grade(bsub, full_result())
    page = attempts_page(browser, live_server, alice.email, a.slug, lang)
    card = page.locator("#attempts")
    other = browser.new_context().new_page()
    login(other, live_server, bob.email)
    other.wait_for_load_state()
    # this browser now signed in as Bob, as another tab would: his session cookie replaces Alice's at once (no moment
    # signed out, which a request under way could meet)
    page.context.add_cookies(other.context.cookies())
    other.context.close()
    note = card.locator("[data-attempts-stopped]")
    run_clock(page, 30, until=lambda: note.count() > 0)
    expect(note).to_have_text(OTHER_SIGN_IN[lang])
    expect(card.locator(f"tr[data-id='{bsub.id}']")).to_have_count(0)      # Bob's attempts not shown
    expect(card.locator(f"tr[data-id='{sub.id}']")).to_have_count(1)
    expect(card.locator("[data-attempts-gone]")).to_have_count(0)          # its 404s were Bob's sign-in's
    page.context.close()


def test_a_rows_404_in_the_poll_where_another_row_ends_keeps_that_end_said(app, web, factory, live_server, browser):
    """Before: the gone row's path fetched the card and returned before the other row's "Attempt 2: graded." """
    _no_list_slot(app)
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first, second = web.submit(alice, a), web.submit(alice, a)
    page = attempts_page(browser, live_server, alice.email, a.slug, watch=lambda p: p.route(
        f"**/submissions/{first.id}/status*",
        lambda route: route.fulfill(status=404, content_type="application/json", body=APP_NOT_FOUND)))
    # the second ends before the rows' first poll (the page's clock stands still): both answered in one poll
    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    card = page.locator("#attempts")
    run_clock(page, 10, until=lambda: _scored(card, second.attempt).count() > 0)
    expect(card.locator("[data-attempts-gone]")).to_have_count(1)
    expect(page.locator("#attempts + p.sr-only")).to_contain_text(f"Attempt {second.attempt}: graded")
    page.context.close()


def test_two_attempts_gone_are_said_in_the_plural(app, web, factory, live_server, browser):
    _no_list_slot(app)
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first, second = web.submit(alice, a), web.submit(alice, a)

    def watch(p) -> None:
        for sub in (first, second):
            p.route(f"**/submissions/{sub.id}/status*", lambda route: route.fulfill(
                status=404, content_type="application/json", body=APP_NOT_FOUND))

    page = attempts_page(browser, live_server, alice.email, a.slug, watch=watch)
    gone = page.locator("#attempts [data-attempts-gone]")
    run_clock(page, 10, until=lambda: "2" in (gone.text_content() if gone.count() else ""))
    expect(gone).to_have_text("The server no longer finds attempts 1, 2 for the current sign-in (HTTP 404), so their "
                              "statuses are no longer followed here; the other attempts still are.")
    page.context.close()


def test_the_apps_503_retry_after_is_the_cards_next_wait(app, web, factory, live_server, browser):
    """Before: asked again after the back-off's 1-2 s whatever the Retry-After the app's 503 page sent."""
    cards = []
    body = {**_app_page(app, 503, "en"), "headers": {"Retry-After": "40"}}

    def serve_card(route) -> None:
        cards.append(1)
        route.fulfill(**body) if len(cards) == 1 else route.continue_()

    page, sub = _ended_attempt_page(app, web, factory, live_server, browser, "en", serve_card)
    card = page.locator("#attempts")
    run_clock(page, 35)
    assert len(cards) == 1, cards
    run_clock(page, 20, until=lambda: _scored(card, sub.attempt).count() > 0)
    expect(_scored(card, sub.attempt)).to_have_count(1)
    assert len(cards) == 2, cards
    page.context.close()
