"""Round 43 mend, in Chromium: the submission page's live status after the review of its refusals and errors.

A final page whose status errs while its tab is hidden checked once a minute in the background; a gateway's JSON 502
without the app's `code` was said as the app's error; a 429 (the service busy) was said "cannot reach the server" and
asked each second whatever its Retry-After; a 200 page without the result part (a captive portal's) was put into the
result block for good; one passing 404 stopped the page though this attempt's page still showed under this sign-in;
the spinner spun while the page asked who is signed in; a Retry-After had no upper bound."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_regrade_round37 import run_clock
from tests.browser.test_submission_refused_round43 import UNREACHABLE, _json, submission_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUSY = {"en": "The grading service is busy right now (HTTP 429), so this status may be out of date.",
        "zh": "评分服务现在很忙（HTTP 429），这里的状态可能不是最新的。"}
PORTAL = "<html><body><h1>Welcome to CampusWiFi</h1><form>Accept terms</form></body></html>"


def test_a_final_page_hidden_while_the_app_errs_asks_nothing_until_it_is_shown(app, web, factory, live_server,
                                                                                browser):
    """The minute's check in flight when the tab is hidden, the app answering 503: before, one check a minute in the
    background (6 in 400 s); now none until the tab is shown, which checks at once."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    asked = []

    def serve(route) -> None:
        asked.append(1)
        route.fulfill(**_json(503, "database_unavailable", {"Retry-After": "5"}))

    page = submission_page(browser, live_server, alice.email, sub.id, "en",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    page.evaluate("""() => { window.__hidden = false;
      Object.defineProperty(document, 'hidden', {configurable: true, get: () => window.__hidden});
      Object.defineProperty(document, 'visibilityState', {configurable: true,
                                                          get: () => window.__hidden ? 'hidden' : 'visible'});
      const f = window.fetch; window.fetch = function (u) { const p = f.apply(this, arguments);
        if (String(u).indexOf('/status') >= 0 && !window.__hidden) {
          window.__hidden = true; document.dispatchEvent(new Event('visibilitychange')); }
        return p; }; }""")
    run_clock(page, 400, step_ms=5_000)
    assert len(asked) == 1, asked
    page.evaluate("() => { window.__hidden = false; document.dispatchEvent(new Event('visibilitychange')); }")
    run_clock(page, 3, until=lambda: len(asked) > 1)
    assert len(asked) == 2, asked
    page.context.close()


def test_a_gateways_json_5xx_without_the_apps_code_is_an_outage(app, web, factory, live_server, browser):
    """An API gateway's 502 {"message": "Internal server error"}: before, "The grading service answered with an
    error", backed off to a minute; the app's JSON errors always carry a string `code`."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        route.fulfill(status=502, content_type="application/json", body='{"message": "Internal server error"}')

    page = submission_page(browser, live_server, alice.email, sub.id, "en",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    detail = page.locator("#live [data-detail]")
    run_clock(page, 10)
    expect(detail).to_contain_text(UNREACHABLE["en"] + " (HTTP 502)")
    expect(detail).not_to_contain_text("answered with an error")
    assert len(asked) >= 8, asked            # an outage: asked each second
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_429_is_said_as_the_service_busy_and_its_retry_after_is_waited(app, web, factory, live_server, browser,
                                                                         lang):
    """The deploy's connection limit answers the app's 429 too_many_connections with Retry-After: 5. Before: "cannot
    reach the server (HTTP 429)", asked each second (20 in 20 s)."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        route.fulfill(**_json(429, "too_many_connections", {"Retry-After": "5"}))

    page = submission_page(browser, live_server, alice.email, sub.id, lang,
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    detail = page.locator("#live [data-detail]")
    run_clock(page, 20)
    expect(detail).to_contain_text(BUSY[lang])
    expect(detail).not_to_contain_text(UNREACHABLE[lang])
    assert 2 <= len(asked) <= 5, asked       # no sooner than 5 s apart
    page.context.close()


def test_a_429_for_the_result_waits_its_retry_after_then_the_result_comes(app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        if len(asked) == 1:
            route.fulfill(**_json(429, "too_many_connections", {"Retry-After": "20"}))
        else:
            route.continue_()

    page = submission_page(browser, live_server, alice.email, sub.id, "en",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/result*", serve))
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    detail = page.locator("#live [data-detail]")
    run_clock(page, 10, until=lambda: bool(asked))
    page.wait_for_timeout(300)
    expect(detail).to_contain_text("The grading service is busy right now (HTTP 429), so the result could not be")
    run_clock(page, 15)
    assert len(asked) == 1, asked
    run_clock(page, 10, until=lambda: page.locator("#result [data-total]").count() > 0)
    expect(page.locator("#result [data-total]")).to_have_count(1)
    page.context.close()


def test_a_captive_portals_200_page_for_the_result_is_not_shown_and_the_result_is_asked_again(
        app, web, factory, live_server, browser):
    """Before: "Welcome to CampusWiFi" put into the result block, the result never asked again."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        if len(asked) == 1:
            route.fulfill(status=200, content_type="text/html", body=PORTAL)
        else:
            route.continue_()

    page = submission_page(browser, live_server, alice.email, sub.id, "en",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/result*", serve))
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 10, until=lambda: bool(asked))
    page.wait_for_timeout(300)
    expect(page.locator("#result")).not_to_contain_text("CampusWiFi")
    expect(page.locator("#live [data-detail]")).to_contain_text(UNREACHABLE["en"])
    run_clock(page, 30, until=lambda: page.locator("#result [data-total]").count() > 0)
    expect(page.locator("#result [data-total]")).to_have_count(1)
    expect(page.locator("#result")).not_to_contain_text("CampusWiFi")
    page.context.close()


def test_one_passing_404_while_this_attempts_page_still_shows_under_this_sign_in_keeps_following(
        app, web, factory, live_server, browser):
    """Before: "The server no longer finds this attempt", the result never loaded."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        route.fulfill(**_json(404, "not_found")) if len(asked) == 2 else route.continue_()

    page = submission_page(browser, live_server, alice.email, sub.id, "en",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    run_clock(page, 10)
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 30, until=lambda: page.locator("#result [data-total]").count() > 0)
    expect(page.locator("#result [data-total]")).to_have_count(1)
    expect(page.locator("#live [data-detail]")).not_to_contain_text("no longer finds")
    page.context.close()


def test_the_spinner_stops_while_the_page_asks_who_is_signed_in(app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    held = []

    def watch(p) -> None:
        p.route(f"**/submissions/{sub.id}/status*", lambda route: route.fulfill(**_json(404, "not_found")))
        p.route(f"**/submissions/{sub.id}?*", lambda route: held.append(route))   # the check: no answer yet

    page = submission_page(browser, live_server, alice.email, sub.id, "en", watch=watch)
    run_clock(page, 5, until=lambda: bool(held))
    page.wait_for_timeout(300)
    assert held
    expect(page.locator("#live .spinner")).to_be_hidden()
    held[0].abort()
    page.context.close()


def test_a_retry_after_of_a_day_is_held_to_five_minutes(app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        route.fulfill(**_json(503, "database_unavailable", {"Retry-After": "86400"})) if len(asked) == 1 \
            else route.continue_()

    page = submission_page(browser, live_server, alice.email, sub.id, "en",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    run_clock(page, 5, until=lambda: bool(asked))
    run_clock(page, 290, step_ms=5_000)
    assert len(asked) == 1, asked
    run_clock(page, 20, step_ms=1_000, until=lambda: len(asked) > 1)
    assert len(asked) == 2, asked
    page.context.close()
