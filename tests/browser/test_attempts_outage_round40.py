"""Round 40, in Chromium: during an outage the attempts list's rows follow the page's one back-off (each row's own poll
kept retrying beside the list's backed-off tries: 30 rows queued were 30 requests a second), the card says the
server cannot be reached (in the page's language, with what was seen) and stops saying it once the server answers,
and the rows are asked again at once then. A page restored from the back/forward cache keeps its tab's id (the
answer of the wait it sent before it was left, read after 'pageshow', gave the tab a new one); a twin still takes
its own."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROWS = 30
DOWN = {
    "en": {"offline": "no network connection", "refused": "no answer", "502": "HTTP 502"},
    "zh": {"offline": "没有网络连接", "refused": "服务器没有回应", "502": "HTTP 502"},
}
SAID = {"en": "The page cannot reach the server (%s), so these statuses may be out of date.",
        "zh": "页面连不上服务器（%s），下面各次提交的状态可能已经过时。"}


def _queued_page(browser, live_server: str, email: str, slug: str, lang: str, watch):
    page = browser.new_context().new_page()
    page.clock.install()
    login(page, live_server, email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    watch(page)
    page.goto(f"{live_server}/assignments/{slug}")
    page.wait_for_timeout(1_000)                              # the list's wait held by the server
    return page


@pytest.mark.parametrize(("lang", "outage"), [("en", "offline"), ("zh", "offline"), ("en", "refused"),
                                              ("zh", "502")])
def test_thirty_queued_rows_follow_the_pages_one_back_off_during_an_outage_and_resume_when_the_server_answers(
        app, web, factory, live_server, browser, lang, outage):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    subs = [web.submit(alice, a) for _ in range(ROWS)]
    state = {"down": False}
    counts = {"status": 0, "list": 0}

    def count(request) -> None:
        if "/status?" in request.url:
            counts["status"] += 1
        elif "/attempts?" in request.url:
            counts["list"] += 1

    def serve(route) -> None:
        if not state["down"] or outage == "offline":
            route.continue_()
        elif outage == "502":
            route.fulfill(status=502, body="<html><body>502 Bad Gateway</body></html>", content_type="text/html")
        else:
            route.abort("connectionrefused")

    def watch(p) -> None:
        p.on("request", count)
        p.route("**/status?*", serve)
        p.route("**/attempts?*", serve)

    page = _queued_page(browser, live_server, alice.email, a.slug, lang, watch)
    card = page.locator("#attempts")
    expect(card.locator("tr[data-status='queued']")).to_have_count(ROWS)
    # something the student typed on the page: it must outlive the outage and the card fetched again after it
    box = page.locator("form[data-dropform] input[type=checkbox]").first
    box.check()
    state["down"] = True
    if outage == "offline":
        page.context.set_offline(True)
    before = dict(counts)
    run_clock(page, 180)
    rows_asked = counts["status"] - before["status"]
    list_tries = counts["list"] - before["list"]
    # one outage, one schedule: the list's tries (1-2 s, 2-4 s, ... then 60-70 s apart), no row on its own; before,
    # the rows were asked each second, then each 10 s: thousands of requests in three minutes
    assert rows_asked <= ROWS, counts
    assert 5 <= list_tries <= 10, counts
    note = card.locator("[data-attempts-down]")
    expect(note).to_contain_text(SAID[lang] % DOWN[lang][outage])
    expect(card.locator("tr[data-status='queued']")).to_have_count(ROWS)     # the badges as they were, said so
    # the server answers again: the next try finds it, the note goes, and the rows are followed at once
    state["down"] = False
    if outage == "offline":
        page.context.set_offline(False)                       # the 'online' event: the list asked at once
    run_clock(page, 72, until=lambda: note.count() == 0)
    expect(note).to_have_count(0)
    FakeWorker(app, subs[0].latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    graded = page.evaluate(
        "() => JSON.parse(document.querySelector('[data-attempts-live]').getAttribute('data-labels')).graded")
    expect(card.locator(f"tr[data-attempt='{subs[0].attempt}'] [data-status-cell] .badge")).to_have_text(
        graded, timeout=8_000)
    assert box.is_checked()
    page.context.close()


def _tab_id(page) -> str:
    return page.evaluate("() => window.sessionStorage.getItem('attempts-tab')")


# Another wait of the same tab id, sent from the page itself (the tab's next page, or a twin tab): the server ends the
# page's own wait with `X-Long-Poll: superseded`. Not awaited: the server holds it.
_SUPERSEDE = """(tab) => {
  const card = document.querySelector('[data-attempts-live]');
  fetch(card.getAttribute('data-attempts-url') + '?lang=en&wait=20&tab=' + encodeURIComponent(tab),
        {credentials: 'same-origin', headers: {'Accept': 'application/json',
                                               'If-None-Match': card.getAttribute('data-attempts-tag')}});
}"""
_TRANSITION = "(kind) => window.dispatchEvent(new PageTransitionEvent(kind, {persisted: true}))"


def test_a_page_restored_from_the_back_forward_cache_keeps_its_tabs_id_and_a_twin_still_takes_its_own(
        app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    verdicts: list[str | None] = []
    page = attempts_page(browser, live_server, alice.email, a.slug, clock=False,
                         watch=lambda p: p.on("response", lambda r: verdicts.append(r.headers.get("x-long-poll"))
                                              if "/attempts?" in r.url and "tab=" in r.url else None))
    expect(page.locator("#attempts")).to_be_visible()
    page.wait_for_timeout(1_000)                              # its wait held
    stored = _tab_id(page)
    # left for the tab's next page, put in the back/forward cache, restored: the old wait's answer comes after
    page.evaluate(_TRANSITION, "pagehide")
    page.evaluate(_TRANSITION, "pageshow")
    page.evaluate(_SUPERSEDE, stored)
    page.wait_for_timeout(2_000)
    assert "superseded" in verdicts, verdicts
    assert _tab_id(page) == stored, "a tab restored from the back/forward cache took a new id"
    # a wait sent since it was shown again, ended by another page with its id: a twin, which takes an id of its own
    page.wait_for_timeout(1_000)                              # its next wait held
    page.evaluate(_SUPERSEDE, stored)
    page.wait_for_timeout(2_000)
    assert verdicts.count("superseded") >= 2, verdicts
    assert _tab_id(page) != stored
    page.context.close()
