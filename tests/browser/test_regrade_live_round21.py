"""Round 21, in Chromium: the regrade batch page an instructor keeps open shows, without a reload,
everything the reloaded page would: the status, the new score and the grader version that graded
each run (the Grader column kept "—" until a reload), and names the scope in the page's language."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import GradingRun
from tests.browser.helpers import FakeWorker, full_result
from tests.browser.test_browser_flows import login

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang, scope_text", [("en", "every attempt of 王小明"), ("zh", "王小明 的所有提交")])
def test_open_regrade_batch_page_shows_the_new_grader_version_without_a_reload(app, web, factory, live_server,
                                                                                browser, lang, scope_text):
    a = factory.assignment()
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    web.grade(sub, full_result(grader_version="attn-2026.11.1"))

    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    login(page, live_server, teacher.email)
    page.wait_for_url(f"{live_server}/instructor/")
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/instructor/regrade?a={a.slug}&scope=student&user_id={alice.id}")
    page.locator("#regrade-confirm form button[type=submit]").click()
    page.wait_for_url("**/instructor/regrades/*")
    expect(page.locator("[data-scope]")).to_have_text(scope_text)
    expect(page.locator("[data-grader]")).to_have_text("—")      # queued: no grader yet

    db.session.expire_all()
    run = db.session.query(GradingRun).filter_by(submission_id=sub.id).order_by(GradingRun.id.desc()).first()
    FakeWorker(app, run.id, full_result(grader_version="attn-2026.12.0"), delay_running=0.1,
               delay_graded=0.1).start().join()
    expect(page.locator("#batch-live")).to_have_attribute("data-done", "1", timeout=15000)
    expect(page.locator("[data-grader]")).to_have_text("attn-2026.12.0")
