"""Round 41 mend, in Chromium: the attempts card's own fetch beside the list's waits. A proxy answering 5xx to the
waits alone (plain tries and /status answering) and the card's page erring: the card's failure was counted with the
waits' as an outage, the note came and went at each try and the list was asked again and again (66 requests in
180 s). And a card asked for while its fetch was under way was dropped: a rescore that came meanwhile was never
shown (the fetch under way had been rendered before it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission
from app.regrading import request_regrade
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_attempts_outage_mend_round40 import _counting, _note_samples, _toggles
from tests.browser.test_attempts_outage_round40 import _queued_page
from tests.browser.test_attempts_outage_round41 import _is_card
from tests.browser.test_attempts_regrade_round37 import attempts_page, run_clock

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_card_failing_while_only_the_waits_fail_says_no_outage_and_the_list_stays_backed_off(
        app, web, factory, live_server, browser):
    """A proxy 504s every wait and 502s the card's page; the plain list tries and /status answer. Two attempts
    queued, the first ends: the rows answer, so no note, and the list is not asked again at each card failure
    (before: the note came and went 49 times in 180 s, 66 list requests)."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first, _second = web.submit(alice, a), web.submit(alice, a)
    slug = a.slug                             # read here: the route's handler runs outside the app's context
    counts = {"status": 0, "list": 0}
    cards = []

    def serve(route) -> None:
        req = route.request
        if "wait=" in req.url:
            return route.fulfill(status=504, content_type="text/html", body="<html>504</html>")
        if _is_card(req, slug):
            cards.append(1)
            return route.fulfill(status=502, content_type="text/html", body="<html>502</html>")
        route.continue_()

    def watch(p) -> None:
        _counting(p, counts)
        p.route(f"**/assignments/{slug}**", serve)

    page = attempts_page(browser, live_server, alice.email, slug, watch=watch)
    run_clock(page, 120)
    assert page.locator("#attempts [data-attempts-down]").count() == 0
    FakeWorker(app, first.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    before = dict(counts)
    seen = _note_samples(page, 180)
    print("in 180 s: list", counts["list"] - before["list"], "status", counts["status"] - before["status"],
          "cards", len(cards), "note toggles", _toggles(seen))
    assert not any(seen), ("the rows and the plain list answer: no outage", _toggles(seen))
    assert counts["list"] - before["list"] <= 8, (before, counts)
    assert 2 <= len(cards) <= 12, len(cards)
    page.context.close()


def test_a_rescore_that_comes_while_the_card_is_being_fetched_is_shown(app, web, factory, live_server, browser):
    """Attempt 1 graded 96, the list's wait held; attempt 2 ends and the card's fetch fails once; its retry is
    rendered at once but answers late, and a regrade gives attempt 1 94 meanwhile: the list's answer asks for the
    card during that fetch, and the card is fetched again once it ends (before: dropped, 96 for good)."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first = web.submit(alice, a)
    web.grade(first, full_result())
    second = web.submit(alice, a)
    slug = a.slug                             # read here: the route's handler runs outside the app's context
    held = {}
    cards = []

    def serve(route) -> None:
        if _is_card(route.request, slug):
            cards.append(1)
            if len(cards) == 1:               # the first card fetch fails once (a proxy's 502): the card stale
                return route.fulfill(status=502, content_type="text/html", body="<html>502</html>")
            if len(cards) == 2:               # its retry answers late, rendered before the rescore
                held["resp"], held["route"] = route.fetch(), route
                return None
        return route.continue_()

    page = _queued_page(browser, live_server, alice.email, slug, "en",
                        lambda p: p.route(f"**/assignments/{slug}?*", serve))
    strong = page.locator(f"#attempts tr[data-attempt='{first.attempt}'] td.num strong")
    expect(strong).to_have_text("96")
    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.05, delay_graded=0.05).start().join()
    run_clock(page, 10, until=lambda: "route" in held)
    assert "route" in held, "the card was not fetched again"
    run = request_regrade(db.session.get(Submission, first.id))
    FakeWorker(app, run.id, full_result(failing=("test_large_logits_stable",)), delay_running=0.05,
               delay_graded=0.05).start().join()
    said = page.locator("#attempts + p[aria-live]")
    run_clock(page, 8, until=lambda: "score is now" in (said.text_content() or ""))
    assert "score is now" in (said.text_content() or "")
    held["route"].fulfill(response=held["resp"])       # the late card answers (within its 15 s)
    page.wait_for_timeout(500)
    run_clock(page, 10, until=lambda: (strong.text_content() or "") not in ("", "96"))
    expect(strong).not_to_have_text("96", timeout=2_000)
    page.context.close()
