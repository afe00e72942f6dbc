"""Round 39 mend, in Chromium: the attempts list's retries once backed off never come more often than the minute's
check before round 39 (they came each 30-60 s, about 1.33 times as often), a page whose navigator says offline while
the server answers keeps following its list (it stopped for good, waiting for an `online` event that never came), and
a list answered 404 (the assignment deleted or hidden) keeps the minute instead of being tried within seconds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock
from tests.browser.test_attempts_retry_round39 import _clocked_page, _graded, _list_requests, _regrade

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Each attempts-list request's time on the page's clock (installed before this script: Date.now() is the page's).
_LIST_TIMES = """(() => {
  const send = window.fetch;
  window.__listTimes = [];
  window.fetch = function (url) {
    if (String(url).indexOf('/attempts?') >= 0) window.__listTimes.push(Date.now());
    return send.apply(this, arguments);
  };
})();"""

RAMP = 5   # tries after 1-2, 2-4, 4-8, 8-16 and 16-32 s before the page has backed off


@pytest.mark.parametrize("answer", ["now", "503"])
def test_a_list_not_held_for_good_is_asked_once_a_minute_at_most_once_backed_off(app, web, factory, live_server,
                                                                                 browser, answer):
    a, alice, sub = _graded(web, factory)
    if answer == "now":
        app.config["LONGPOLL_LIST_SLOTS"] = 0                # every slot taken: `X-Long-Poll: now` at each request

        def watch(p) -> None:
            p.add_init_script(_LIST_TIMES)
    else:
        def watch(p) -> None:
            p.add_init_script(_LIST_TIMES)
            p.route("**/attempts?*", lambda r: r.fulfill(status=503, body="busy", content_type="text/plain"))
    page = _clocked_page(browser, live_server, alice.email, a.slug, watch=watch)
    run_clock(page, 9 * 60)
    times = page.evaluate("() => window.__listTimes")
    gaps = [(b - t) / 1000 for t, b in zip(times, times[1:], strict=False)]
    backed_off = gaps[RAMP:]
    assert len(backed_off) >= 5, gaps
    # never more often than the minute's check before round 39, and within longpoll.TURN_S (75 s)
    assert all(60 <= g <= 71 for g in backed_off), gaps
    per_minute = [sum(1 for t in times if times[RAMP] + m * 60_000 <= t < times[RAMP] + (m + 1) * 60_000)
                  for m in range(6)]
    assert max(per_minute) <= 1, (per_minute, gaps)
    page.context.close()


def test_a_page_whose_navigator_says_offline_while_the_server_answers_keeps_following_its_list(app, web, factory,
                                                                                             live_server, browser):
    """navigator.onLine is false on a machine with no route but the loopback (Wi-Fi off, some VMs), while the server
    on 127.0.0.1 answers: the list must not wait for an `online` event that never comes."""
    a, alice, sub = _graded(web, factory)
    page = attempts_page(browser, live_server, alice.email, a.slug, clock=False,
                         watch=lambda p: p.add_init_script(
                             "Object.defineProperty(Navigator.prototype, 'onLine', {get: () => false});"))
    assert page.evaluate("() => navigator.onLine") is False
    page.wait_for_timeout(1_500)                             # its long poll under way
    for failing, score in ((("test_large_logits_stable",), "94"), ((), "96"), (("test_large_logits_stable",), "94")):
        _regrade(app, sub, failing)
        expect(page.locator(f"#attempts tr[data-attempt='{sub.attempt}'] td.num strong")).to_have_text(
            score, timeout=8_000)
    page.context.close()


def test_a_list_the_app_answered_404_is_not_asked_again_and_says_so(app, web, factory, live_server, browser):
    """The assignment deleted or hidden: the app's 404 is not a server restarting, tried again within seconds; round
    42: nor asked again each minute unsaid, it is said and the list stops."""
    a, alice, sub = _graded(web, factory)
    holder: list[list[dict]] = []

    def watch(p) -> None:
        p.route("**/attempts?*", lambda r: r.fulfill(status=404, body='{"error": "gone", "code": "not_found"}',
                                                     content_type="application/json"))
        holder.append(_list_requests(p))

    page = _clocked_page(browser, live_server, alice.email, a.slug, watch=watch)
    seen = holder[0]
    assert len(seen) == 1, seen                              # the page's first request: a 404
    run_clock(page, 50)
    assert len(seen) == 1, seen                              # not tried again within seconds
    # round 42: not at the minute's check either (it was asked so for good, the student told nothing): said, stopped
    run_clock(page, 15, until=lambda: len(seen) >= 2)
    assert len(seen) == 1, seen
    expect(page.locator("#attempts [data-attempts-stopped]")).to_contain_text("HTTP 404")
    page.context.close()
