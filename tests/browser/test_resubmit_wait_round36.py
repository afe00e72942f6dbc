"""Round 36, in Chromium: a second attempt sent during the pause between attempts is told to wait, not to fix.

The refusal said "wait 118 seconds" and then "your files are still chosen: fix the problem and submit again":
there is nothing to fix. A refusal that asks for a wait (429/503, Retry-After) now ends with "submit again once
the wait is over", in zh and en; the files stay chosen and nothing is stored."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission
from tests.browser.test_browser_flows import login
from tests.web.helpers import AUDIT_MD, GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAID = {"zh": ("等待结束后再次提交即可", "修正问题"), "en": ("submit again once the wait is over", "fix the problem")}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_attempt_sent_in_the_pause_is_told_to_wait_with_its_files_kept(app, factory, live_server, browser, lang):
    a = factory.assignment()
    a.cooldown_seconds = 120
    db.session.commit()
    alice = factory.student(email="alice@example.edu", name="王小明")
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    for attempt in (1, 2):
        page.goto(f"{live_server}/assignments/{a.slug}")
        page.set_input_files("input[name=code]", files=[{"name": "attention.py", "mimeType": "text/plain",
                                                          "buffer": GOOD_CODE}])
        page.set_input_files("input[name=audit]", files=[{"name": "audit.md", "mimeType": "text/plain",
                                                           "buffer": AUDIT_MD}])
        page.click("form[data-dropform] button[type=submit]")
        if attempt == 1:
            page.wait_for_url("**/submissions/*")
    said, not_said = SAID[lang]
    error = page.locator("#upload-error")
    expect(error).to_contain_text(said)
    expect(error).to_contain_text(" s before" if lang == "en" else "秒后再提交")
    assert not_said not in (error.text_content() or "")
    assert page.evaluate("() => document.querySelector('input[name=code]').files.length") == 1
    db.session.expire_all()
    assert db.session.query(Submission).count() == 1
    page.context.close()
