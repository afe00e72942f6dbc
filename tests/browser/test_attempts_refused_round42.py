"""Round 42, in Chromium: the attempts card when the server refuses it or the app errs.

A card fetched again (an attempt ended) answered 403 or 404 was asked again about once a minute for good and the
student was told nothing; the list answered 403 or 404 likewise; a row's /status answered 404 stopped the whole list.
Now a 403 (of the card, the list or a row) says the current sign-in was refused, with the way to sign in again, and
stops; a 404 of the card or the list says the assignment is no longer found and stops; a row's 404 stops following
that attempt alone, said on the card. And the app's own error page (error.html, a 500 it rendered) for the card was
taken as the server unreachable: it is said as the service's error, distinct from the outage note, and the card is
asked again on its back-off until it comes."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from app.errors import error_response
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_outage_mend_round40 import _counting, _note_samples
from tests.browser.test_attempts_outage_round41 import _is_card, _scored
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# round 42 mend: the app answers a student's GET it may not see with a 404, so a 403 guesses no "sign in again"
FORBIDDEN = {"en": "The server refused this list to the current sign-in (HTTP 403), so it no longer updates.",
             "zh": "服务器拒绝当前登录的账号查看这个列表（HTTP 403），列表不再更新。"}
PAGE_GONE = {"en": "The server no longer finds this assignment for the current sign-in (HTTP 404), so this list no "
                   "longer updates.",
             "zh": "对当前登录的账号，服务器上已找不到这个作业（HTTP 404），这个列表不再更新。"}
ATTEMPT_GONE = {"en": "The server no longer finds attempt 1 for the current sign-in (HTTP 404), so its status is no "
                      "longer followed here; the other attempts still are.",
                "zh": "对当前登录的账号，服务器上已找不到第 1 次提交（HTTP 404），这里不再跟踪它的状态；其他提交仍在跟踪。"}
APP_ERROR = {"en": "The grading service answered with an error (HTTP 500), so the result could not be loaded.",
             "zh": "评分服务出错（HTTP 500），结果未能载入。"}


def _app_page(app, status: int, lang: str = "en") -> dict:
    """The app's own error page for ``status`` (error.html, as its error handlers render it), to be served by a route."""
    with app.test_request_context(f"/assignments/x?lang={lang}", headers={"Accept": "text/html"}):
        body, code, _headers = error_response(status)
    return {"status": code, "body": body, "content_type": "text/html; charset=utf-8"}


def _ended_attempt_page(app, web, factory, live_server, browser, lang: str, serve_card):
    """An attempt queued, no list slot (its row polled), the page open; the attempt ends, so the card is fetched
    again, and ``serve_card(route)`` answers each fetch of it. Returns the page, once the badge says "graded"."""
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    slug = a.slug

    def serve(route) -> None:
        if not _is_card(route.request, slug):
            return route.continue_()
        serve_card(route)

    page = attempts_page(browser, live_server, alice.email, slug, lang,
                         watch=lambda p: p.route(f"**/assignments/{slug}?*", serve))
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    badge = page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] [data-status-cell] .badge")
    run_clock(page, 20, until=lambda: (badge.get_attribute("class") or "").endswith("graded"))
    return page, sub


@pytest.mark.parametrize(("status", "lang"), [(403, "en"), (403, "zh"), (404, "en"), (404, "zh")])
def test_a_card_fetch_answered_403_or_404_says_so_and_is_not_asked_again(app, web, factory, live_server, browser,
                                                                        status, lang):
    """Before: no word, and the card asked again on its back-off for good (about once a minute)."""
    cards = []
    page_body = _app_page(app, status, lang)

    def serve_card(route) -> None:
        cards.append(1)
        route.fulfill(**page_body)

    page, _sub = _ended_attempt_page(app, web, factory, live_server, browser, lang, serve_card)
    note = page.locator("#attempts [data-attempts-stopped]")
    run_clock(page, 10, until=lambda: note.count() > 0)
    expect(note).to_contain_text(FORBIDDEN[lang] if status == 403 else PAGE_GONE[lang])
    expect(note.locator("a")).to_have_count(0)
    counts = {"status": 0, "list": 0}
    _counting(page, counts)
    run_clock(page, 200)
    assert len(cards) == 1, len(cards)
    assert counts == {"status": 0, "list": 0}, counts
    expect(page.locator("#attempts [data-attempts-down]")).to_have_count(0)
    page.context.close()


@pytest.mark.parametrize("status", [403, 404])
def test_the_list_answered_403_or_404_says_so_and_stops(app, web, factory, live_server, browser, status):
    """The list's own request refused (the graded attempt's page open): before, asked again each minute, no word."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    web.grade(web.submit(alice, a), full_result())
    counts = {"status": 0, "list": 0}

    def watch(p) -> None:
        _counting(p, counts)
        code = "forbidden" if status == 403 else "not_found"    # the app's answer (round 42 mend: not a proxy's)
        p.route("**/attempts?*", lambda route: route.fulfill(status=status, content_type="application/json",
                                                             body=json.dumps({"error": "no", "code": code})))

    page = attempts_page(browser, live_server, alice.email, a.slug, "zh", watch=watch)
    note = page.locator("#attempts [data-attempts-stopped]")
    run_clock(page, 5, until=lambda: note.count() > 0)
    expect(note).to_contain_text(FORBIDDEN["zh"] if status == 403 else PAGE_GONE["zh"])
    expect(note.locator("a")).to_have_count(0)
    asked = counts["list"]
    run_clock(page, 200)
    assert counts["list"] == asked, (asked, counts)
    page.context.close()


def test_a_rows_404_stops_following_that_attempt_alone_and_says_so(app, web, factory, live_server, browser):
    """Two attempts queued, no list slot (rows polled), the first's /status answers 404: before, the whole list
    stopped (the second attempt's end never shown); now only the first is left, said, and the second is followed to
    its result."""
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first, second = web.submit(alice, a), web.submit(alice, a)
    asked = {"first": 0}

    def serve(route) -> None:
        asked["first"] += 1
        route.fulfill(status=404, content_type="application/json", body='{"error": "gone", "code": "not_found"}')

    page = attempts_page(browser, live_server, alice.email, a.slug,
                         watch=lambda p: p.route(f"**/submissions/{first.id}/status*", serve))
    card = page.locator("#attempts")
    gone = card.locator("[data-attempts-gone]")
    run_clock(page, 10, until=lambda: gone.count() > 0)
    expect(gone).to_have_text(ATTEMPT_GONE["en"])
    run_clock(page, 30)
    assert asked["first"] == 1, asked
    expect(card.locator("[data-attempts-stopped]")).to_have_count(0)
    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 30, until=lambda: _scored(card, second.attempt).count() > 0)
    expect(_scored(card, second.attempt)).to_have_count(1)
    expect(gone).to_have_text(ATTEMPT_GONE["en"])                 # still said after the card was fetched again
    assert asked["first"] == 1, asked
    page.context.close()


def test_a_rows_403_says_the_sign_in_was_refused_and_stops(app, web, factory, live_server, browser):
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    page = attempts_page(browser, live_server, alice.email, a.slug, "zh", watch=lambda p: p.route(
        f"**/submissions/{sub.id}/status*", lambda route: route.fulfill(status=403, content_type="application/json",
                                                                         body='{"code": "forbidden"}')))
    note = page.locator("#attempts [data-attempts-stopped]")
    run_clock(page, 10, until=lambda: note.count() > 0)
    expect(note).to_have_text(FORBIDDEN["zh"])
    expect(note.locator("a")).to_have_count(0)
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_apps_own_500_page_for_the_card_is_said_as_its_error_not_an_outage_and_backed_off(
        app, web, factory, live_server, browser, lang):
    """Before: the app's error page was a 5xx like a proxy's: "down", said as nothing (the list answering) or as the
    server unreachable. Now its own note, steady, the card asked again on its back-off (3-12 times in 180 s), and
    gone when the card comes."""
    state = {"erring": True, "cards": 0}
    page_body = _app_page(app, 500, lang)

    def serve_card(route) -> None:
        state["cards"] += 1
        route.fulfill(**page_body) if state["erring"] else route.continue_()

    page, sub = _ended_attempt_page(app, web, factory, live_server, browser, lang, serve_card)
    card = page.locator("#attempts")
    erred = card.locator("[data-attempts-error]")
    run_clock(page, 10, until=lambda: erred.count() > 0)
    expect(erred).to_contain_text(APP_ERROR[lang])
    seen = _note_samples(page, 180)
    assert not any(seen), "the app answered: no outage note"
    assert 3 <= state["cards"] <= 12, state
    expect(erred).to_have_count(1)
    state["erring"] = False
    run_clock(page, 75, until=lambda: _scored(card, sub.attempt).count() > 0)
    expect(_scored(card, sub.attempt)).to_have_count(1)
    expect(erred).to_have_count(0)
    page.context.close()


def test_a_proxys_500_page_for_the_card_is_not_said_as_the_apps_error(app, web, factory, live_server, browser):
    """A 500 page that is not the app's (a proxy's, no #error-message) stays a failure to reach the server (round 41:
    the list answering, no note at all), never "the grading service answered with an error"."""
    cards = []

    def serve_card(route) -> None:
        cards.append(1)
        route.fulfill(status=500, content_type="text/html", body="<html><body>500 Internal Server Error</body></html>")

    page, _sub = _ended_attempt_page(app, web, factory, live_server, browser, "en", serve_card)
    run_clock(page, 30)
    assert cards, "the card was not asked"
    expect(page.locator("#attempts [data-attempts-error]")).to_have_count(0)
    page.context.close()
