"""Round 40 mend, in Chromium: one endpoint down is not the server down. The list's endpoint alone erring (a 5xx page)
froze rows whose /status answered, the card saying the server could not be reached; the app's own JSON 5xx is an
answer (round 39's "not held"), not an outage; a wait failing alone while plain tries answered reset the back-off at
each try (about a request a second, the note coming and going); a row's /status alone erring made the note come and go
at each poll. A real back/forward cache round trip keeps the tab's id."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HTML_500 = {"status": 500, "body": "<html><body>Internal Server Error</body></html>", "content_type": "text/html"}
JSON_503 = {"status": 503, "content_type": "application/json",
            "body": '{"error": "The database is unavailable.", "code": "database_unavailable", '
                    '"message": {"en": "The database is unavailable.", "zh": "数据库暂时不可用。"}}'}


def _counting(page, counts) -> None:
    def count(request) -> None:
        if "/status?" in request.url:
            counts["status"] += 1
        elif "/attempts?" in request.url:
            counts["list"] += 1
    page.on("request", count)


def _note_samples(page, seconds: int) -> list[int]:
    note = page.locator("#attempts [data-attempts-down]")
    seen = []
    for _ in range(seconds):
        run_clock(page, 1)
        seen.append(note.count())
    return seen


def _toggles(seen: list[int]) -> int:
    return sum(1 for x, y in zip(seen[:-1], seen[1:], strict=True) if x != y)


@pytest.mark.parametrize("answer", [HTML_500, JSON_503], ids=["html_500", "json_503"])
def test_the_list_endpoint_alone_erring_leaves_the_rows_polled_and_says_no_outage(
        app, web, factory, live_server, browser, answer):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    subs = [web.submit(alice, a) for _ in range(2)]
    counts = {"status": 0, "list": 0}

    def watch(p) -> None:
        _counting(p, counts)
        p.route("**/attempts?*", lambda route: route.fulfill(**answer))

    page = attempts_page(browser, live_server, alice.email, a.slug, watch=watch)
    card = page.locator("#attempts")
    run_clock(page, 20)
    FakeWorker(app, subs[0].latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    badge = card.locator(f"tr[data-attempt='{subs[0].attempt}'] [data-status-cell] .badge")
    run_clock(page, 40, until=lambda: "raded" in (badge.text_content() or ""))
    expect(badge).to_have_text("graded", timeout=1_000)
    expect(card.locator("[data-attempts-down]")).to_have_count(0)
    assert counts["status"] > 0, counts
    assert counts["list"] <= 12, counts        # the list's own tries backed off (1-2 s, 2-4 s, ...)
    page.context.close()


@pytest.mark.parametrize("answer", [JSON_503, {**HTML_500, "status": 504}], ids=["json_503", "html_504"])
def test_waits_failing_alone_stay_backed_off(app, web, factory, live_server, browser, answer):
    """Every wait answered at once with an error, the plain list answering: the tries stay on the back-off (round 39: 10
    requests in 180 s; before this mend 185, the back-off reset by each plain try's 304). The app's own JSON error says
    no outage; a proxy's page may, but the note does not come and go each second."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    web.grade(web.submit(alice, a), full_result())
    counts = {"status": 0, "list": 0}

    def serve(route) -> None:
        route.fulfill(**answer) if "wait=" in route.request.url else route.continue_()

    def watch(p) -> None:
        _counting(p, counts)
        p.route("**/attempts?*", serve)

    page = attempts_page(browser, live_server, alice.email, a.slug, watch=watch)
    seen = _note_samples(page, 180)
    assert counts["list"] <= 20, counts
    if answer is JSON_503:
        assert not any(seen), "the app's own 503 is an answer, not the server unreachable"
    else:
        assert _toggles(seen) <= 20, seen
    page.context.close()


def test_one_rows_status_erring_alone_polls_at_its_pace_and_says_no_outage(app, web, factory, live_server, browser):
    """No list slot (waits answered `now`), one queued row whose /status gives a 5xx page while the list answers: the
    row is polled at its pace, the list on its back-off; before this mend the note came and went 46 times in 120 s."""
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    web.submit(alice, a)
    counts = {"status": 0, "list": 0}

    def watch(p) -> None:
        _counting(p, counts)
        p.route("**/status?*", lambda route: route.fulfill(**HTML_500))

    page = attempts_page(browser, live_server, alice.email, a.slug, watch=watch)
    seen = _note_samples(page, 120)
    assert counts["list"] <= 15, counts
    assert not any(seen), seen
    page.context.close()


def test_an_outage_while_the_rows_are_polled_is_said_and_asks_no_row_on_its_own(app, web, factory, live_server,
                                                                                   browser):
    """No list slot, 30 rows polled on their own when the connection is refused: the rows found down, the list asked
    tells the outage; then the page's one back-off (the list alone), and the rows resume when the server answers."""
    app.config["LONGPOLL_SLOTS"] = 0
    app.config["LONGPOLL_LIST_SLOTS"] = 0
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    subs = [web.submit(alice, a) for _ in range(30)]
    counts = {"status": 0, "list": 0}
    state = {"down": False}

    def serve(route) -> None:
        route.abort("connectionrefused") if state["down"] else route.continue_()

    def watch(p) -> None:
        _counting(p, counts)
        p.route("**/status?*", serve)
        p.route("**/attempts?*", serve)

    page = attempts_page(browser, live_server, alice.email, a.slug, watch=watch)
    card = page.locator("#attempts")
    run_clock(page, 5)
    state["down"] = True
    before = dict(counts)
    run_clock(page, 180)
    rows_asked = counts["status"] - before["status"]
    assert rows_asked <= 30 + 2, counts          # one round of the rows found them down; none after
    note = card.locator("[data-attempts-down]")
    expect(note).to_contain_text("no answer")
    state["down"] = False
    run_clock(page, 75, until=lambda: note.count() == 0)
    expect(note).to_have_count(0)
    FakeWorker(app, subs[0].latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    badge = card.locator(f"tr[data-attempt='{subs[0].attempt}'] [data-status-cell] .badge")
    run_clock(page, 30, until=lambda: "raded" in (badge.text_content() or ""))
    expect(badge).to_have_text("graded", timeout=1_000)
    page.context.close()


def test_a_real_back_forward_cache_round_trip_keeps_the_tabs_id(app, web, factory, live_server, chromium_path):
    """Not faked events: Chromium with its back/forward cache (Playwright disables it by default). The list's page is
    left for another assignment's and restored by Back; the answer of the wait it had sent, `superseded` by the next
    page, must not give the tab a new id."""
    from playwright.sync_api import sync_playwright

    a1, a2 = factory.assignment(), factory.assignment(slug="other")
    alice = factory.student(email="alice@example.edu")
    web.submit(alice, a1)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, ignore_default_args=["--disable-back-forward-cache"],
                              args=["--no-sandbox", "--disable-gpu"])
        try:
            page = b.new_context().new_page()
            login(page, live_server, alice.email)
            page.goto(f"{live_server}/assignments/{a1.slug}")
            page.evaluate("() => { window.__mark = 1;"
                          " window.addEventListener('pageshow', e => { window.__persisted = e.persisted; }); }")
            page.wait_for_timeout(1_500)                      # its wait held
            before = page.evaluate("() => sessionStorage.getItem('attempts-tab')")
            page.goto(f"{live_server}/assignments/{a2.slug}")
            page.wait_for_timeout(1_500)                      # the next page's wait supersedes the left page's
            page.go_back(wait_until="commit")
            page.wait_for_timeout(3_000)                      # the old wait's answer read after 'pageshow'
            mark, persisted, after = page.evaluate(
                "() => [window.__mark || 0, window.__persisted, sessionStorage.getItem('attempts-tab')]")
            assert (mark, persisted) == (1, True), "the page was not restored from the back/forward cache"
            assert after == before, "a tab restored from the back/forward cache took a new id"
        finally:
            b.close()
