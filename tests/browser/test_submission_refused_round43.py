"""Round 43, in Chromium: the submission page's live status when the app refuses it or errs.

The attempt's page (its status polled, its result fetched when grading ends) said any 403 or 404 as "The page cannot
reach the server (HTTP 404)", the status still polled each second for good, the result never asked again; and the
app's own error (its 500 page for the result, its JSON 503 for the status) was said as an outage, the status asked
each second whatever its Retry-After. Now, as the attempts card does since round 42: the app's 404 (the attempt
deleted by staff) or 403 is said and stops the page; another account signed in in this browser is said as such; the
session ended keeps its sign-in link; the app's 5xx is said as the service's error and asked again on a back-off or
its Retry-After; a proxy's 404/502 page stays an outage, asked again until the result comes."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_refused_mend_round42 import PROXY_PAGE
from tests.browser.test_attempts_refused_round42 import _app_page
from tests.browser.test_attempts_regrade_round37 import run_clock
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GONE = {"en": "The server no longer finds this attempt for the current sign-in (HTTP 404), so this page no longer "
              "updates. Reload it to see what is there now.",
        "zh": "对当前登录的账号，服务器上已找不到这次提交（HTTP 404），这个页面不再更新。请刷新页面，查看现在的情况。"}
FORBIDDEN = {"en": "The server refused to show this attempt to the current sign-in (HTTP 403), so this page no longer updates.",
             "zh": "服务器拒绝当前登录的账号查看这次提交（HTTP 403），这个页面不再更新。"}
OTHER_SIGN_IN = {"en": "This browser is now signed in differently (in another tab or window), so this page no longer "
                       "updates. Reload it to see what the current sign-in may see.",
                 "zh": "这个浏览器已在另一个标签页或窗口中换了登录，这个页面不再更新。请刷新页面，查看当前登录的账号能看到的内容。"}
RESULT_ERROR = {"en": "The grading service answered with an error (HTTP 500), so the result could not be loaded.",
                "zh": "评分服务出错（HTTP 500），结果未能载入。"}
STATUS_ERROR = {"en": "The grading service answered with an error (HTTP 503), so this status may be out of date.",
                "zh": "评分服务出错（HTTP 503），这里的状态可能不是最新的。"}
UNREACHABLE = {"en": "cannot reach the server", "zh": "连不上服务器"}


def submission_page(browser, live_server: str, email: str, sub_id: int, lang: str = "en", watch=None):
    """The attempt's page, signed in as ``email`` in ``lang``, its clock installed (run_clock moves its polls on);
    ``watch(page)`` is called before it loads anything (a test's routes)."""
    page = browser.new_context().new_page()
    if watch is not None:
        watch(page)
    page.clock.install()
    login(page, live_server, email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/submissions/{sub_id}")
    return page


def _json(status: int, code: str, headers: dict | None = None) -> dict:
    return {"status": status, "content_type": "application/json", "headers": headers or {},
            "body": json.dumps({"error": "no", "code": code, "message": {"en": "no", "zh": "no"}})}


def _counting(page, sub_id: int, counts: dict) -> None:
    page.on("request", lambda r: counts.__setitem__("status", counts["status"] + 1)
            if f"/submissions/{sub_id}/status" in r.url else None)


@pytest.mark.parametrize(("status", "lang"), [(404, "en"), (404, "zh"), (403, "en"), (403, "zh")])
def test_the_apps_404_or_403_for_the_status_is_said_and_stops_the_page(app, web, factory, live_server, browser,
                                                                       status, lang):
    """The attempt deleted by staff (the app's 404), or refused to this sign-in (its 403). Before: "The page cannot
    reach the server (HTTP 404)", the status asked again each second, then each 10 s, for good."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    answer = _json(status, "not_found" if status == 404 else "forbidden")
    page = submission_page(browser, live_server, alice.email, sub.id, lang, watch=lambda p: p.route(
        f"**/submissions/{sub.id}/status*", lambda route: route.fulfill(**answer)))
    detail = page.locator("#live [data-detail]")
    expected = GONE[lang] if status == 404 else FORBIDDEN[lang]
    run_clock(page, 10, until=lambda: detail.text_content() == expected)
    expect(detail).to_have_text(expected)
    expect(detail.locator("a")).to_have_count(0)
    expect(page.locator("#live .spinner")).to_be_hidden()
    counts = {"status": 0}
    _counting(page, sub.id, counts)
    run_clock(page, 120)
    assert counts["status"] == 0, counts
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_another_account_signed_in_in_this_browser_is_said_and_stops_the_page(app, web, factory, live_server, browser,
                                                                              lang):
    """Alice's attempt open, Bob signs in in another tab: the status (Bob's session) answers the app's 404. Before:
    "cannot reach the server (HTTP 404)" for good; now the other sign-in is said, not a deletion."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    bob = factory.student(email="bob@example.edu")
    sub = web.submit(alice, a)
    page = submission_page(browser, live_server, alice.email, sub.id, lang)
    other = browser.new_context().new_page()
    login(other, live_server, bob.email)
    other.wait_for_load_state()
    page.context.add_cookies(other.context.cookies())
    other.context.close()
    detail = page.locator("#live [data-detail]")
    run_clock(page, 10, until=lambda: detail.text_content() == OTHER_SIGN_IN[lang])
    expect(detail).to_have_text(OTHER_SIGN_IN[lang])
    page.context.close()


def test_the_session_ended_still_says_so_with_the_sign_in_link(app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    page = submission_page(browser, live_server, alice.email, sub.id, "zh")
    page.context.clear_cookies()
    detail = page.locator("#live [data-detail]")
    run_clock(page, 10, until=lambda: detail.locator("a").count() > 0)
    expect(detail).to_contain_text("你已退出登录")
    expect(detail.locator("a")).to_have_count(1)
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_apps_500_page_for_the_result_is_said_as_its_error_and_asked_again_until_it_comes(
        app, web, factory, live_server, browser, lang):
    """Before: said as the server unreachable (an outage)."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    state = {"erring": True, "asked": 0}
    body = _app_page(app, 500, lang)

    def serve(route) -> None:
        state["asked"] += 1
        route.fulfill(**body) if state["erring"] else route.continue_()

    page = submission_page(browser, live_server, alice.email, sub.id, lang,
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/result*", serve))
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    detail = page.locator("#live [data-detail]")
    run_clock(page, 10, until=lambda: RESULT_ERROR[lang] in (detail.text_content() or ""))
    expect(detail).to_contain_text(RESULT_ERROR[lang])
    expect(detail).not_to_contain_text(UNREACHABLE[lang])
    run_clock(page, 30)
    assert 2 <= state["asked"] <= 5, state            # backed off: 5 s, 10 s, 20 s
    state["erring"] = False
    run_clock(page, 70, until=lambda: page.locator("#result [data-total]").count() > 0)
    expect(page.locator("#result [data-total]")).to_have_count(1)
    expect(detail).not_to_contain_text(RESULT_ERROR[lang])
    page.context.close()


def test_the_apps_503_for_the_status_is_said_and_its_retry_after_is_the_next_wait(app, web, factory, live_server,
                                                                                 browser):
    """Before: "cannot reach the server (HTTP 503)", the status asked again each second whatever its Retry-After."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    asked = []

    def serve(route) -> None:
        asked.append(1)
        route.fulfill(**_json(503, "database_unavailable", {"Retry-After": "40"})) if len(asked) == 1 \
            else route.continue_()

    page = submission_page(browser, live_server, alice.email, sub.id, "zh",
                           watch=lambda p: p.route(f"**/submissions/{sub.id}/status*", serve))
    detail = page.locator("#live [data-detail]")
    run_clock(page, 5, until=lambda: bool(asked))
    page.wait_for_timeout(300)
    expect(detail).to_contain_text(STATUS_ERROR["zh"])
    expect(detail).not_to_contain_text(UNREACHABLE["zh"])
    run_clock(page, 35)
    assert len(asked) == 1, asked
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 20, until=lambda: page.locator("#result [data-total]").count() > 0)
    expect(page.locator("#result [data-total]")).to_have_count(1)
    page.context.close()


def test_a_proxys_404_for_the_result_and_502_for_the_status_are_an_outage_asked_again(app, web, factory, live_server,
                                                                                    browser):
    """Before: a proxy's 404 for the result stopped asking for it: "Grading finished" said, the old block for good."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    state = {"results": 0, "statuses": 0}

    def result(route) -> None:
        state["results"] += 1
        if state["results"] <= 2:
            route.fulfill(status=404, content_type="text/html", body=PROXY_PAGE.format("404 Not Found"))
        else:
            route.continue_()

    def status(route) -> None:
        state["statuses"] += 1
        if state["statuses"] <= 2:
            route.fulfill(status=502, content_type="text/html", body=PROXY_PAGE.format("502 Bad Gateway"))
        else:
            route.continue_()

    def watch(p) -> None:
        p.route(f"**/submissions/{sub.id}/result*", result)
        p.route(f"**/submissions/{sub.id}/status*", status)

    page = submission_page(browser, live_server, alice.email, sub.id, "en", watch=watch)
    detail = page.locator("#live [data-detail]")
    run_clock(page, 5, until=lambda: "HTTP 502" in (detail.text_content() or ""))
    expect(detail).to_contain_text("cannot reach the server (HTTP 502)")
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 10, until=lambda: "HTTP 404" in (detail.text_content() or ""))
    expect(detail).to_contain_text("cannot reach the server (HTTP 404)")
    run_clock(page, 30, until=lambda: page.locator("#result [data-total]").count() > 0)
    expect(page.locator("#result [data-total]")).to_have_count(1)
    assert state["results"] == 3, state
    page.context.close()


def test_the_apps_404_with_a_proxys_page_for_the_sign_in_question_is_said_as_seen(app, web, factory, live_server,
                                                                                 browser):
    """The page asks who is signed in once (the page fetched again); a proxy's page answering that (no carry-key)
    tells nothing: the app's 404 is said as seen, never "signed out" or "signed in differently"."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)

    def watch(p) -> None:
        p.route(f"**/submissions/{sub.id}/status*", lambda route: route.fulfill(**_json(404, "not_found")))
        p.route(f"**/submissions/{sub.id}?*", lambda route: route.fulfill(
            status=502, content_type="text/html", body=PROXY_PAGE.format("502 Bad Gateway")))

    page = submission_page(browser, live_server, alice.email, sub.id, "en", watch=watch)
    detail = page.locator("#live [data-detail]")
    run_clock(page, 10, until=lambda: detail.text_content() == GONE["en"])
    expect(detail).to_have_text(GONE["en"])
    expect(detail.locator("a")).to_have_count(0)
    page.context.close()
