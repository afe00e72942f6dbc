"""Round 36b, in Chromium: the live list of attempts keeps the keyboard focus and stops once signed out.

The card was refreshed with `innerHTML`: the control that had the keyboard focus (a link, the comparison's
choices) was gone and the focus fell back to the page. And signed out in another tab, its status polls were
sent to the sign-in page and asked again forever (48 requests in 40 s), the badge still "queued". Now the
focus goes back to the same control, and a poll answered with the sign-in page stops the list, which says
so in the page's language with a link to sign in again."""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIGNED_OUT = {"en": ("You are signed out, so this list no longer updates.", "Sign in again to follow the grading"),
              "zh": ("你已退出登录，这个列表不再更新。", "重新登录以继续查看评分")}


def test_the_focused_control_keeps_the_focus_when_the_list_is_refreshed(app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    first = web.submit(alice, a)
    web.grade(first, full_result())
    second = web.submit(alice, a)
    page = browser.new_context().new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/assignments/{a.slug}")
    link = f"#attempts a[href='/submissions/{first.id}']"
    page.focus(link)
    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.2, delay_graded=0.3).start().join()
    expect(page.locator(f"#attempts tr[data-attempt='{second.attempt}'] .badge").first).not_to_have_text(
        "queued", timeout=15_000)
    expect(page.locator("#attempts .badge.counts")).to_be_visible()        # the card was fetched again
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == f"/submissions/{first.id}"
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_signed_out_in_another_tab_the_list_stops_polling_and_says_so(app, web, factory, live_server, browser,
                                                                       lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    queued = web.submit(alice, a)
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/assignments/{a.slug}")
    polls: list[float] = []
    page.on("request", lambda r: polls.append(time.monotonic()) if f"/submissions/{queued.id}/" in r.url else None)
    other = context.new_page()
    other.goto(f"{live_server}/assignments/{a.slug}")
    other.click("header form button[type=submit]")
    other.wait_for_url(lambda url: "/login" in url)
    other.close()
    text, sign_in = SIGNED_OUT[lang]
    note = page.locator("#attempts [data-attempts-stopped]")
    expect(note).to_contain_text(text, timeout=10_000)
    expect(note.locator("a")).to_have_text(sign_in)
    assert "/login?next=" in note.locator("a").get_attribute("href")
    stopped_at = time.monotonic()
    page.wait_for_timeout(3000)
    assert not [t for t in polls if t > stopped_at + 0.2], "the list kept polling after it said it stopped"
    context.close()


@pytest.mark.parametrize("status", [403, 404])
def test_an_attempt_the_app_refuses_is_asked_no_more_and_what_it_answered_is_said(app, web, factory, live_server,
                                                                            browser, status):
    app.config["LONGPOLL_SLOTS"] = 0               # round 38: rows are polled one by one where no wait is held
    app.config["LONGPOLL_LIST_SLOTS"] = 0          # round 38 mend: the lists have their own slots
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    queued = web.submit(alice, a)
    page = browser.new_context().new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/zh")
    polls: list[float] = []

    def refuse(route) -> None:
        polls.append(time.monotonic())
        # the app's answer (round 42 mend: a proxy's 403/404 is asked again)
        route.fulfill(status=status, content_type="application/json",
                      body=json.dumps({"code": "forbidden" if status == 403 else "not_found"}))

    page.route(f"**/submissions/{queued.id}/status*", refuse)
    page.goto(f"{live_server}/assignments/{a.slug}")
    # round 42: a 403 says the sign-in was refused (stopping the list), a 404 stops following that attempt alone
    if status == 403:
        note = page.locator("#attempts [data-attempts-stopped]")
        expect(note).to_have_text("服务器拒绝当前登录的账号查看这个列表（HTTP 403），列表不再更新。", timeout=10_000)
    else:
        note = page.locator("#attempts [data-attempts-gone]")
        expect(note).to_have_text("对当前登录的账号，服务器上已找不到第 1 次提交（HTTP 404），这里不再跟踪它的状态；其他提交仍在跟踪。",
                                  timeout=10_000)
    page.wait_for_timeout(2500)
    assert len(polls) == 1
    page.context.close()
