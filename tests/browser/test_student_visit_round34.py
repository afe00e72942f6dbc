"""Round 34, a student's whole visit in Chromium: upload (dropped or picked), follow grading live through a lost
connection, a server that does not answer, a background tab, an ended session, another tab that switches the
language, the deadline passing while the page is open, Back after an upload; the caps, a phone's 360 px with long
names, the keyboard alone, and the resubmission after a load error. Each scenario is one test; the ones that failed
before round 34's app.js change say so in their docstring."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission, utcnow
from tests.browser.a11y import axe_violations, overflow
from tests.browser.helpers import CHROMIUM, FakeWorker, full_result, syntax_error_page, tab_to
from tests.browser.test_browser_flows import AUDIT, heatmap_png, login
from tests.web.helpers import GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STATUS = re.compile(r"/submissions/\d+/status(\?|$)")
LONG_NAME = "attention_final_version_for_submission_2026_12_05_really_the_last_one_v12_王小明.py"


def open_as(browser, live_server: str, student, lang: str, width: int = 1280, path: str = "/", **ctx_kw):
    """(context, page) signed in as ``student`` with the page language ``lang``, at ``path``."""
    ctx = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN" if lang == "zh" else "en-US",
                              bypass_csp=True, timezone_id="Asia/Shanghai", **ctx_kw)
    page = ctx.new_page()
    login(page, live_server, student.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}{path}")
    return ctx, page


def submitted(student) -> list[Submission]:
    db.session.expire_all()
    return db.session.query(Submission).filter_by(student_id=student.id).order_by(Submission.attempt).all()


def files(tmp_path, code_name: str = "attention.py"):
    (tmp_path / code_name).write_bytes(GOOD_CODE)
    (tmp_path / "audit.md").write_bytes(AUDIT)
    (tmp_path / "attention.png").write_bytes(heatmap_png())
    return tmp_path / code_name, tmp_path / "audit.md", tmp_path / "attention.png"


def pick(page, code, audit=None, figure=None) -> None:
    page.set_input_files("input[name=code]", str(code))
    if audit:
        page.set_input_files("input[name=audit]", str(audit))
    if figure:
        page.set_input_files("input[name=figure]", str(figure))


def fast_forward(page, seconds: int, steps: int) -> None:
    """Let ``steps`` times ``seconds`` of the page's (installed) clock pass, one poll per step: each step fires the
    poll that is due, whose fetch (real) then schedules the next one."""
    for _ in range(steps):
        page.clock.fast_forward(seconds * 1000)
        time.sleep(0.08)


# --- 1, 2: upload by drag and drop and by the file picker ------------------------------------------------------


@pytest.mark.parametrize("how", ["drop", "picker"])
def test_dropped_and_picked_files_make_the_same_attempt(app, factory, live_server, browser, tmp_path, how):
    a = factory.assignment()
    a.deadline = utcnow() + timedelta(days=3)
    db.session.commit()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(browser, live_server, alice, "en")
    code, audit, figure = files(tmp_path)
    if how == "picker":
        pick(page, code, audit, figure)
    else:
        # the three files dropped at once on the code field, as the hint invites: each goes to its own field
        page.evaluate("""([code, audit]) => {
            const dt = new DataTransfer();
            dt.items.add(new File([code], 'attention.py', {type: 'text/x-python'}));
            dt.items.add(new File([audit], 'audit.md', {type: 'text/markdown'}));
            dt.items.add(new File([new Uint8Array([137, 80, 78, 71])], 'attention.png', {type: 'image/png'}));
            const zone = document.querySelector('#f-code').closest('.drop');
            zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""", [GOOD_CODE.decode(), AUDIT.decode()])
        page.set_input_files("input[name=figure]", str(figure))   # a real PNG (4 bytes are not one)
    for field, name in (("code", "attention.py"), ("audit", "audit.md"), ("figure", "attention.png")):
        assert page.evaluate(f"() => document.querySelector('input[name={field}]').files[0].name") == name
    expect(page.locator("#f-code-hint .chosen")).to_have_text("attention.py")
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    expect(page.locator("#live")).to_contain_text("attention.py")
    expect(page.locator("#live")).to_contain_text("audit.md")
    (sub,) = submitted(alice)
    assert (sub.code_filename, sub.audit_filename, sub.figure_filename) == ("attention.py", "audit.md", "attention.png")
    ctx.close()


# --- 3: the pending cap ------------------------------------------------------------------------------------------


def test_an_upload_past_the_pending_cap_says_to_wait_and_keeps_the_files(app, web, factory, live_server, browser,
                                                                          tmp_path):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    waiting = [web.submit(alice, a, now=utcnow() - timedelta(minutes=5 - i)) for i in range(3)]
    ctx, page = open_as(browser, live_server, alice, "zh", width=360)
    code, audit, figure = files(tmp_path)
    pick(page, code, audit, figure)
    page.click("form[data-dropform] button[type=submit]")
    error = page.locator("#upload-error")
    expect(error).to_contain_text("你已有 3 次提交在等待评分（第 1、2、3 次）")
    expect(error).to_be_focused()
    assert page.evaluate("() => document.querySelector('input[name=code]').files.length") == 1
    assert page.locator("form[data-dropform] button[type=submit]").is_enabled()
    # one of them is graded: the same chosen files go through with one more click, no reload, no picking again
    web.grade(waiting[0], full_result())
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    assert len(submitted(alice)) == 4
    assert overflow(page) == []
    ctx.close()


# --- 4, 5, 6, 7: the live page when the connection, the server or the session goes away ---------------------------


def test_a_lost_connection_is_said_and_the_page_catches_up_as_soon_as_it_is_back(app, web, factory, live_server,
                                                                                  browser):
    """Before: polls failing offline were retried silently, "queued" stayed on the page as if it were news, and
    after minutes offline the next poll was up to 10 s away when the connection came back."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", bypass_csp=True)
    page = ctx.new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/zh")
    page.goto(f"{live_server}/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("下一个就轮到你")
    ctx.set_offline(True)
    fast_forward(page, 15, 30)            # 7.5 minutes offline: the polls back off to their slowest
    expect(detail).to_contain_text("连不上服务器")
    expect(detail).not_to_contain_text("下一个就轮到你")
    assert axe_violations(page) == []
    web.grade(sub, full_result())
    ctx.set_offline(False)                # no clock moves from here: the 'online' event alone polls
    page.wait_for_selector("[data-total]", timeout=5000)
    expect(detail).to_contain_text("评分完成")
    ctx.close()


def test_a_server_that_stops_answering_is_said_and_the_page_resumes_when_it_answers(app, web, factory, live_server,
                                                                                     browser):
    """Before: 502s from a restarting server were retried silently; the page said "running" all along."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx, page = open_as(browser, live_server, alice, "en", path=f"/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("You are next")
    page.route(STATUS, lambda route: route.fulfill(status=502, body="Bad Gateway"))
    expect(detail).to_contain_text("cannot reach the server", timeout=10000)
    expect(detail).to_contain_text("502")
    web.grade(sub, full_result())
    page.unroute(STATUS)
    page.wait_for_selector("[data-total]", timeout=15000)
    expect(detail).to_contain_text("Grading finished")
    ctx.close()


@pytest.mark.parametrize("lang, said", [("zh", "你已退出登录"), ("en", "You are signed out")])
def test_an_ended_session_on_the_live_page_says_to_sign_in_again(app, web, factory, live_server, browser, lang,
                                                                 said):
    """Before: the status poll was redirected to the sign-in page, whose HTML is no JSON: retried silently forever."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx, page = open_as(browser, live_server, alice, lang, path=f"/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).not_to_be_empty()
    ctx.clear_cookies()                    # signed out in another tab, or the session's hours are over
    expect(detail).to_contain_text(said, timeout=10000)
    link = page.locator("#live [data-detail] a")
    expect(link).to_have_attribute("href", f"/login?next=%2Fsubmissions%2F{sub.id}")
    expect(page.locator("#live .spinner")).to_be_hidden()
    assert axe_violations(page) == []
    link.click()
    page.fill("input[name=email]", alice.email)
    from tests.factories import PASSWORD
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**/submissions/{sub.id}")
    ctx.close()


def test_a_tab_left_in_the_background_catches_up_when_it_is_looked_at(app, web, factory, live_server, browser):
    """Before: a tab hidden for minutes polled every 10 s, and coming back to it showed "queued" until the next
    poll; the page now polls at once when it becomes visible."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", bypass_csp=True)
    page = ctx.new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/en")
    page.goto(f"{live_server}/submissions/{sub.id}")
    expect(page.locator("#live [data-detail]")).to_contain_text("You are next")
    page.evaluate("() => { window.__hidden = true; Object.defineProperty(document, 'hidden', {get: () => window.__hidden});"
                  " Object.defineProperty(document, 'visibilityState', {get: () => window.__hidden ? 'hidden' : 'visible'});"
                  " document.dispatchEvent(new Event('visibilitychange')); }")
    fast_forward(page, 15, 30)
    web.grade(sub, full_result())
    page.evaluate("() => { window.__hidden = false; document.dispatchEvent(new Event('visibilitychange')); }")
    page.wait_for_selector("[data-total]", timeout=5000)
    ctx.close()


# --- 8, 9: two tabs; the language switched in the other one, or in this one ---------------------------------------


def test_switching_the_language_in_another_tab_leaves_this_tabs_live_text_and_result_in_its_language(
        app, web, factory, live_server, browser):
    """Before: the status reason and the result block fetched after grading came in the session's new language
    into a page whose labels were in the old one (English feedback under Chinese headings)."""
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx, page = open_as(browser, live_server, alice, "zh", path=f"/submissions/{sub.id}")
    other = ctx.new_page()
    other.goto(f"{live_server}/lang/en")   # the same session, another tab: English from now on
    web.grade(sub, full_result(failing=("test_blocked_key_gets_zero_weight",)))
    page.wait_for_selector("[data-total]", timeout=15000)
    result = page.locator("#result").inner_text()
    assert "隐藏测试" in result or "测试" in result
    for english in ("Tests", "Audit", "hidden", "points"):
        assert english not in result, english
    expect(page.locator("#live [data-detail]")).to_contain_text("评分完成")
    # and the same tab switched: the page, its live text and its result are in the new language
    page.click("header a[lang=en]")
    expect(page.locator("[data-badge]")).to_have_text("graded")
    assert "测试" not in page.locator("#result").inner_text()
    ctx.close()


def test_the_language_switched_on_the_live_page_while_grading_goes_on_in_it(app, web, factory, live_server,
                                                                             browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx, page = open_as(browser, live_server, alice, "zh", path=f"/submissions/{sub.id}")
    expect(page.locator("[data-badge]")).to_have_text("排队中")
    page.click("header a[lang=en]")
    page.wait_for_url(f"**/submissions/{sub.id}")
    expect(page.locator("[data-badge]")).to_have_text("queued")
    FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.3, delay_graded=1.0).start()
    expect(page.locator("[data-badge]")).to_have_text("running", timeout=10000)
    expect(page.locator("#live [data-detail]")).to_contain_text("A worker is running")
    page.wait_for_selector("[data-total]", timeout=15000)
    expect(page.locator("#live [data-detail]")).to_contain_text("Grading finished")
    assert "评分" not in page.locator("main").inner_text()
    ctx.close()


# --- 10, 11: reload, and Back after an upload ---------------------------------------------------------------------


def test_a_reload_while_running_keeps_following_the_grading(app, web, factory, live_server, browser):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    ctx, page = open_as(browser, live_server, alice, "en", path=f"/submissions/{sub.id}")
    worker = FakeWorker(app, sub.latest_run.id, full_result(), delay_running=0.2, delay_graded=3.0).start()
    expect(page.locator("[data-badge]")).to_have_text("running", timeout=10000)
    page.reload()
    expect(page.locator("[data-badge]")).to_have_text("running")
    expect(page.locator(".spinner")).to_be_visible()
    worker.join()
    page.wait_for_selector("[data-total]", timeout=15000)
    expect(page.locator(".spinner")).to_be_hidden()
    ctx.close()


@pytest.fixture
def bfcache_browser(chromium_path):
    """Chromium as students have it: Playwright turns the back/forward cache off by default."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path or CHROMIUM, ignore_default_args=["--disable-back-forward-cache"],
                              args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        yield b
        b.close()


def test_back_after_an_upload_shows_the_new_attempt_and_a_usable_form(app, web, factory, live_server,
                                                                      bfcache_browser, tmp_path):
    """Before: Back from the new attempt's page showed the upload form with the sent attention.py chosen again
    (Chromium puts files back into the inputs without a change event), unnamed beside its field and ready to be sent
    as attempt 2; files chosen and not sent came back unnamed too. (Chromium reloaded the page here rather than
    restoring it from the back/forward cache; app.js also re-enables the button and refetches a cached page.)"""
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(bfcache_browser, live_server, alice, "en")
    code, audit, figure = files(tmp_path)
    pick(page, code, audit, figure)
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    page.go_back(wait_until="commit")
    page.wait_for_selector("form[data-dropform]")
    button = page.locator("form[data-dropform] button[type=submit]")
    expect(button).to_be_enabled()
    expect(button).to_have_text("Submit for grading")
    expect(page.locator("table.attempts")).to_contain_text("Open attempt 1")
    assert page.evaluate("() => document.querySelector('input[name=code]').files.length") == 0
    expect(page.locator("#f-code-hint .chosen")).to_have_text("")
    # files chosen and not sent, then a link followed and Back: the browser puts them back, and the page says so
    pick(page, code)
    page.click("text=Open attempt 1")
    page.wait_for_url("**/submissions/*")
    page.go_back(wait_until="commit")
    page.wait_for_selector("form[data-dropform]")
    assert page.evaluate("() => document.querySelector('input[name=code]').files.length") == 1
    expect(page.locator("#f-code-hint .chosen")).to_have_text("attention.py")
    ctx.close()


# --- 12: a phone 360 px wide, long file names and long feedback ---------------------------------------------------


def test_long_file_names_fit_a_360px_phone_on_the_form_and_the_live_page(app, web, factory, live_server, browser,
                                                                          tmp_path):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(browser, live_server, alice, "zh", width=360)
    code, audit, figure = files(tmp_path, LONG_NAME)
    pick(page, code, audit, figure)
    expect(page.locator("#f-code-hint .chosen")).to_have_text(LONG_NAME)
    assert overflow(page) == []
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    expect(page.locator("#live")).to_contain_text(LONG_NAME)
    assert overflow(page) == []
    (sub,) = submitted(alice)
    long_line = "query 0: torch.nn.functional.scaled_dot_product_attention(q,k,v,attn_mask=mask_of_shape_2x1x4x4)" * 2
    result = full_result(failing=("test_blocked_key_gets_zero_weight",))
    for test in result["tests"]:
        if test["id"] == "test_blocked_key_gets_zero_weight":
            test["feedback"] = {"en": long_line, "zh": long_line}
    assert long_line in str(result)
    web.grade(sub, result)
    page.wait_for_selector("[data-total]", timeout=15000)
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()


# --- 13: the keyboard alone ------------------------------------------------------------------------------------------


def test_a_keyboard_only_student_uploads_and_hears_the_status(app, web, factory, live_server, browser, tmp_path):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(browser, live_server, alice, "zh", width=390)
    code, audit, figure = files(tmp_path)
    tab_to(page, "el.matches('input[name=code]')", "the code field")
    page.set_input_files("input:focus", str(code))
    tab_to(page, "el.matches('input[name=audit]')", "the audit field")
    page.set_input_files("input:focus", str(audit))
    tab_to(page, "el.matches('form[data-dropform] button[type=submit]')", "the submit button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/submissions/*")
    live = page.locator("#live [aria-live]")
    expect(live).to_contain_text("下一个就轮到你")
    assert axe_violations(page) == []
    ctx.close()


# --- 14: the resubmission after a load error ------------------------------------------------------------------------


def test_after_a_load_error_the_new_attempt_is_made_from_the_result_page_and_shown_without_reload(
        app, web, factory, live_server, browser, tmp_path):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    source = "import torch\n\nclass ScaledDotProductAttention(torch.nn.Module)\n    pass\n"
    ctx, page = syntax_error_page(app, web, browser, live_server, a, alice, source, 390, "en-US")
    expect(page.locator("#load-error")).to_contain_text("SyntaxError")
    tab_to(page, "el.matches('a.button') && el.textContent.includes('Submit a new attempt')", "the resubmit link",
           presses=120)
    page.keyboard.press("Enter")
    page.wait_for_url("**/assignments/*")
    # the attempt that did not load is listed, with its state, beside the form
    expect(page.locator("table.attempts")).to_contain_text("Open attempt 1")
    code, _audit, _figure = files(tmp_path)
    pick(page, code)
    page.check("input[name=confirm_no_audit]", force=True) if page.locator("#confirm-no-audit").is_visible() else None
    page.click("form[data-dropform] button[type=submit]")
    if page.locator("#confirm-no-audit").is_visible():
        page.check("input[name=confirm_no_audit]")
        page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    expect(page.locator("h1")).to_have_text("Attempt 2")
    expect(page.locator("nav.attempt-nav")).to_contain_text("Attempt 1")
    expect(page.locator("#live")).to_contain_text("attention.py")
    ctx.close()


# --- 15, 16: the deadline passing while the page is open ------------------------------------------------------------


@pytest.mark.parametrize("lang, late_days, days_before, said", [
    ("en", 3, 0, "You are 1 day(s) late: 10% of the score of this attempt will be taken off."),
    ("zh", 0, 0, "截止时间已过且迟交期已结束：不再接受新的提交。"),
    ("en", 3, 1, "You are 2 day(s) late: 20% of the score of this attempt will be taken off."),
    ("zh", 1, 1, "截止时间已过且迟交期已结束：不再接受新的提交。"),
], ids=["deadline-en", "deadline-closes-zh", "second-late-day-en", "late-period-ends-zh"])
def test_the_deadline_passing_while_the_form_is_open_is_said_on_the_form(app, web, factory, live_server, browser,
                                                                         lang, late_days, days_before, said):
    """Before: only the countdown turned to "late by 1 day"; the form said nothing of the penalty (or that no
    attempt is accepted any more) until a reload or a refused upload, and a page open while another late day
    began kept the previous day's penalty."""
    a = factory.assignment()
    a.deadline = utcnow() - timedelta(days=days_before) + timedelta(seconds=60)
    a.late_days_allowed = late_days
    a.late_penalty_per_day = 0.1
    db.session.commit()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx = browser.new_context(viewport={"width": 390, "height": 900}, locale="en-US", bypass_csp=True)
    page = ctx.new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/")
    form_card = page.locator("section[aria-labelledby=submit-title]")
    expect(form_card).not_to_contain_text(said)
    page.clock.fast_forward(2 * 60 * 1000)
    expect(form_card).to_contain_text(said, timeout=5000)
    assert axe_violations(page) == []
    ctx.close()


# --- 17, 18: the upload fails on the way; the submit rate limit -------------------------------------------------------


def test_an_upload_sent_offline_says_so_and_goes_through_once_back_online(app, factory, live_server, browser,
                                                                           tmp_path):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(browser, live_server, alice, "zh", width=360)
    code, audit, figure = files(tmp_path)
    pick(page, code, audit, figure)
    ctx.set_offline(True)
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text("上传没有到达服务器")
    assert submitted(alice) == []
    ctx.set_offline(False)
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    assert len(submitted(alice)) == 1
    ctx.close()


def test_the_submit_rate_limit_says_how_long_to_wait_and_keeps_the_files(limited_app, course, browser, tmp_path):
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, limited_app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        student = course["alice"]
        ctx, page = open_as(browser, base, student, "zh", width=360)
        code, audit, figure = files(tmp_path)
        for _ in range(2):
            page.goto(f"{base}/")
            pick(page, code, audit, figure)
            page.click("form[data-dropform] button[type=submit]")
            page.wait_for_url("**/submissions/*")
        page.goto(f"{base}/")
        pick(page, code, audit, figure)
        page.click("form[data-dropform] button[type=submit]")
        error = page.locator("#upload-error")
        expect(error).to_contain_text("秒")
        assert page.evaluate("() => document.querySelector('input[name=code]').files.length") == 1
        ctx.close()
    finally:
        server.shutdown()


# --- 19, 20: a proxy's error page in answer to the upload (the app restarting behind nginx) --------------------------

NGINX_502 = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr>" \
            "<center>nginx</center></body></html>"
SUBMIT = re.compile(r"/assignments/[^/]+/submit$")


@pytest.mark.parametrize(("lang", "arrived", "said"), [
    ("zh", False, "服务器返回了 HTTP 502，没有说明原因。你选择的文件还在：请稍后重新提交"),
    ("en", True, "The server answered HTTP 502 without saying why. Your files are still chosen: submit again"),
], ids=["zh-lost-before-the-app", "en-saved-then-lost"])
def test_a_proxy_error_page_in_answer_to_an_upload_says_what_was_seen_and_the_retry_counts_once(
        app, factory, live_server, browser, tmp_path, lang, arrived, said):
    """Before: nginx's own 502 page (deploy/nginx.conf has no error page for it) was shown as "502 Your files are
    still chosen: fix the problem and submit again": a number, and a problem to fix that is not the student's."""
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(browser, live_server, alice, lang, width=360)
    code, audit, figure = files(tmp_path)
    pick(page, code, audit, figure)

    if arrived:      # the app took it; its answer was replaced on the way back (Playwright's route.fetch() garbles
        # a multipart body, so the page's own fetch sends it and the proxy's page takes the reply's place once)
        page.evaluate("""(body) => { const real = window.fetch; window.fetch = (...args) => { window.fetch = real;
            return real(...args).then(() => new Response(body, {status: 502, headers: {'Content-Type': 'text/html'}})); }; }""",
                      NGINX_502)
    else:
        page.route(SUBMIT, lambda route: route.fulfill(status=502, body=NGINX_502, content_type="text/html"))
    page.click("form[data-dropform] button[type=submit]")
    error = page.locator("#upload-error")
    expect(error).to_contain_text(said)
    assert "fix the problem" not in error.inner_text() and "修正" not in error.inner_text()
    assert len(submitted(alice)) == (1 if arrived else 0)
    page.unroute(SUBMIT)
    page.click("form[data-dropform] button[type=submit]")    # the same files, as the message says
    page.wait_for_url("**/submissions/*")
    assert len(submitted(alice)) == 1                        # counted once either way
    if arrived:
        expect(page.locator(".flash", has_text="already received as attempt 1")).to_have_count(1)
    ctx.close()


# --- 21: the live region only changes when its words do ---------------------------------------------------------


@pytest.mark.parametrize("state", ["queued", "unreachable"])
def test_the_live_region_is_not_rewritten_by_polls_that_bring_nothing_new(app, web, factory, live_server, browser,
                                                                          state):
    """Before: every poll (one a second) replaced the live region's text with the same words: one DOM change a
    second for assistive technology to pick up (whether a given screen reader reads it again was not checked)."""
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, factory.assignment())
    ctx, page = open_as(browser, live_server, alice, "en", path=f"/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("You are next")
    if state == "unreachable":
        page.route(STATUS, lambda route: route.fulfill(status=503, body="Service Unavailable"))
        expect(detail).to_contain_text("HTTP 503", timeout=10000)
    page.evaluate("""() => { window.__changes = 0; new MutationObserver(m => { window.__changes += m.length; })
        .observe(document.querySelector('#live [data-detail]'), {childList: true, characterData: true, subtree: true}); }""")
    polls = []
    page.on("request", lambda r: polls.append(r.url) if STATUS.search(r.url) else None)
    page.wait_for_timeout(4000)
    assert len(polls) >= 3
    assert page.evaluate("() => window.__changes") == 0
    ctx.close()


# --- 22: a poll that never gets an answer ------------------------------------------------------------------------


def test_a_poll_that_never_gets_an_answer_is_given_up_said_and_polled_again(app, web, factory, live_server, browser):
    """Before: a status request left hanging (a connection that died silently, a proxy holding it) kept the page on
    its last status for good: the next poll is only scheduled when one ends."""
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, factory.assignment())
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", bypass_csp=True)
    page = ctx.new_page()
    page.clock.install()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/zh")
    page.goto(f"{live_server}/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("下一个就轮到你")
    held = []
    page.route(STATUS, lambda route: held.append(route))        # taken and never answered
    fast_forward(page, 1, 2)
    assert held, "no poll was sent"
    fast_forward(page, 20, 1)
    expect(detail).to_contain_text("页面连不上服务器（服务器没有回应）")
    page.unroute(STATUS)
    web.grade(sub, full_result())
    for _ in range(30):
        if page.locator("[data-total]").count():
            break
        fast_forward(page, 10, 1)
    expect(page.locator("[data-total]")).to_be_visible()
    expect(detail).to_contain_text("评分完成")
    ctx.close()


# --- 23: the result block's own fetch fails when grading ends ------------------------------------------------------

RESULT = re.compile(r"/submissions/\d+/result(\?|$)")


@pytest.mark.parametrize("failure", ["http-500", "offline"])
def test_a_result_block_that_fails_to_come_is_said_and_fetched_again(app, web, factory, live_server, browser, failure):
    """Before: when the result block's fetch failed as grading ended, the page said "Grading finished: 92 of 100"
    above the old block for good (polling stops at the end, and the failed fetch was not tried again)."""
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, factory.assignment())
    ctx, page = open_as(browser, live_server, alice, "en", path=f"/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("You are next")
    if failure == "http-500":
        page.route(RESULT, lambda route: route.fulfill(status=500, body="Internal Server Error"))
    else:
        page.route(RESULT, lambda route: route.abort("internetdisconnected"))
    web.grade(sub, full_result())
    expect(detail).to_contain_text("HTTP 500" if failure == "http-500" else "cannot reach the server", timeout=10000)
    assert page.locator("[data-total]").count() == 0
    page.unroute(RESULT)
    page.wait_for_selector("[data-total]", timeout=10000)
    expect(detail).to_contain_text("Grading finished")
    ctx.close()


def test_a_result_block_answered_a_proxys_404_is_asked_again_on_a_back_off_not_every_5_s(
        app, web, factory, live_server, browser):
    """Second review of round 34: the retry asked every 5 s for good, also for a 404 that will not change (and in
    hidden tabs). Round 43: a 404 that is not the app's (no JSON code, no error page: a proxy's) is an outage, asked
    again on the back-off (5 s doubling to 60 s: at 0, 5 and 15 s), never each 5 s; the app's own 404 stops (below)."""
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, factory.assignment())
    ctx, page = open_as(browser, live_server, alice, "en", path=f"/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("You are next")
    asked = []

    def gone(route):
        asked.append(time.monotonic())
        route.fulfill(status=404, body="Not Found")

    page.route(RESULT, gone)
    web.grade(sub, full_result())
    expect(detail).to_contain_text("HTTP 404", timeout=10000)
    page.wait_for_timeout(17000)         # every 5 s would be 4 requests by now
    assert 2 <= len(asked) <= 3, [round(t - asked[0], 1) for t in asked]
    ctx.close()


def test_a_result_block_answered_the_apps_404_is_said_and_not_asked_for_again(app, web, factory, live_server, browser):
    """The app's own 404 (its JSON code) for the result, the attempt's page gone as well (deleted): said once, the
    page stops, nothing is asked again (round 43)."""
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, factory.assignment())
    ctx, page = open_as(browser, live_server, alice, "en", path=f"/submissions/{sub.id}")
    detail = page.locator("#live [data-detail]")
    expect(detail).to_contain_text("You are next")
    asked = []

    def gone(route):
        asked.append(1)
        route.fulfill(status=404, content_type="application/json", body='{"code": "not_found", "message": "gone"}')

    page.route(RESULT, gone)
    page.route(f"**/submissions/{sub.id}?*", lambda route: route.fulfill(
        status=404, content_type="application/json", body='{"code": "not_found", "message": "gone"}'))
    web.grade(sub, full_result())
    expect(detail).to_contain_text("no longer finds this attempt", timeout=15000)
    page.wait_for_timeout(7000)          # past the old 5 s retry
    assert len(asked) == 1, asked
    ctx.close()
