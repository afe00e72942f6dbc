"""Round 37, in Chromium: files just over the upload limit are said to be over it.

The check before uploading said "The files together are 8.0 MiB; the limit is 8 MiB" for 8 MiB and 12 bytes: a
size that reads as within the limit, for a refusal. The size is now rounded up and the limit down (to 0.1 MiB)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import login
from tests.web.helpers import GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_files_just_over_the_limit_are_said_to_be_over_it(app, factory, live_server, browser, lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu")
    page = browser.new_context().new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/assignments/{a.slug}")
    limit = app.config["MAX_CONTENT_LENGTH"]
    page.set_input_files("input[name=code]", files=[{"name": "attention.py", "mimeType": "text/plain",
                                                      "buffer": GOOD_CODE}])
    page.set_input_files("input[name=audit]", files=[{"name": "audit.md", "mimeType": "text/plain",
                                                       "buffer": b"x" * (limit - len(GOOD_CODE) + 12)}])
    page.click("form[data-dropform] button[type=submit]")
    error = page.locator("#upload-error")
    expect(error).to_be_visible()
    size, shown_limit = (float(x) for x in re.findall(r"(\d+(?:\.\d+)?) MiB", error.text_content() or ""))
    assert size > shown_limit, error.text_content()
    assert shown_limit * 1048576 <= limit < size * 1048576
