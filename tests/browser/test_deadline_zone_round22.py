"""Round 22, in Chromium: an instructor typing a deadline sees what it is in their own time zone.
The deadline and extension inputs take UTC (so labelled) while every page shows times in the
reader's zone; nothing said that 23:59 typed in Beijing is 07:59 the next morning there, and a
deadline meant as local midnight was set 8 hours late. Under each input, as it is typed, in zh and en."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import login

pytestmark = pytest.mark.browser


# Round 23: the inputs take the course's zone (Asia/Shanghai), no longer UTC: 23:59 typed there is
# 16:59 the same day for a reader in Berlin (before: read as UTC, 07:59 the next day in Beijing).
@pytest.mark.parametrize("lang, locale, words", [("zh", "zh-CN", ("你所在时区", "12月24日", "16:59")),
                                                 ("en", "en-US", ("In your time zone", "Dec 24", "04:59 PM"))])
def test_deadline_inputs_say_the_typed_course_time_in_the_readers_zone(app, web, factory, live_server, browser,
                                                                       lang, locale, words):
    factory.assignment()
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale, timezone_id="Europe/Berlin")
    page = ctx.new_page()
    login(page, live_server, teacher.email)
    page.wait_for_url(f"{live_server}/instructor/")
    page.goto(f"{live_server}/lang/{lang}")
    for path, form in (("/instructor/settings", "#settings-form"), ("/instructor/settings", "#extension-form"),
                       (f"/instructor/students/{alice.id}", "#extension-form")):
        page.goto(f"{live_server}{path}")
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        field = page.locator(f"{form} input[name=deadline]")
        field.fill("2026-12-24T23:59")
        hint = page.locator(f"{form} [data-utc-local]")
        for w in words:
            expect(hint).to_contain_text(w)
        field.fill("")
        expect(hint).to_have_text("")
    ctx.close()
