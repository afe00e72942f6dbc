"""Round 36, in Chromium: switching the language with files chosen on the upload form keeps them.

The language links reload the page: the files the student had chosen (and the boxes ticked) were gone, without
a word, in the other language. Now they are kept in the browser for that one switch, put back into the form of
the page in the new language, and the page says so; the upload then sends them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission
from tests.browser.test_browser_flows import login
from tests.web.helpers import AUDIT_MD, GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SWITCH = {"zh": ("English", "en", "your chosen files are still chosen: attention.py, audit.md."),
          "en": ("中文", "zh-CN", "你选择的文件仍然保留着：attention.py、audit.md。")}


@pytest.mark.parametrize("start", ["zh", "en"])
def test_files_chosen_before_a_language_switch_are_still_chosen_after_it(app, factory, live_server, browser, start):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{start}")
    page.goto(f"{live_server}/assignments/{a.slug}")
    for field, name, data in (("code", "attention.py", GOOD_CODE), ("audit", "audit.md", AUDIT_MD)):
        page.set_input_files(f"input[name={field}]", files=[{"name": name, "mimeType": "text/plain", "buffer": data}])
    link, html_lang, note = SWITCH[start]
    page.click(f".lang a:text-is('{link}')")
    expect(page.locator("html")).to_have_attribute("lang", html_lang)
    expect(page.locator("#carried-over")).to_contain_text(note)
    names = page.evaluate("() => ['code', 'audit', 'figure'].map(n => { const i = document.querySelector("
                          "`input[name=${n}]`); return i.files.length ? i.files[0].name : null; })")
    assert names == ["attention.py", "audit.md", None]
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    db.session.expire_all()
    sub = db.session.query(Submission).one()
    assert sub.code_filename == "attention.py" and sub.audit_filename == "audit.md"
    page.goto(f"{live_server}/lang/{start}")                   # a later switch, nothing chosen: nothing said
    page.goto(f"{live_server}/assignments/{a.slug}")
    expect(page.locator("#carried-over")).to_be_hidden()
    page.context.close()
