"""Round 36, in Chromium: files dropped several to a field are listed with the page language's separators.

The list of names was joined with ", " and "; " on a Chinese page too ("attention.py, test_attention.py;
a.md, b.md"); a zh page lists them with 、 and ；."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import login
from tests.browser.test_student_pages_browser import new_page
from tests.browser.test_uploads_round18_browser import DROP

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LISTED = {"zh-CN": "attention.py、test_attention.py；a.md、b.md",
          "en-US": "attention.py, test_attention.py; a.md, b.md"}


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_names_dropped_together_are_listed_with_the_page_languages_separators(app, factory, live_server, browser,
                                                                              locale):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = new_page(browser, 390, locale)
    login(page, live_server, alice.email)
    page.wait_for_selector("form[data-dropform]")
    page.evaluate(DROP, [["attention.py", "test_attention.py", "a.md", "b.md"], "form[data-dropform] .drop"])
    expect(page.locator("#upload-error")).to_contain_text(LISTED[locale])
    ctx.close()
