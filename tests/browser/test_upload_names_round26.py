"""Round 26, in Chromium: files named with an input method's full stop (attention。py, audit．md) are
uploaded from the form, as the server now reads them. The page's own check (app.js) compared the raw
name with ".py" and stopped the upload with "has the wrong type for this field"; dropped on the form,
such a file was routed to no field."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import AUDIT, heatmap_png, login
from tests.web.helpers import GOOD_CODE

pytestmark = pytest.mark.browser


def test_files_named_with_an_input_methods_full_stop_are_uploaded_from_the_form(app, factory, live_server,
                                                                                 browser, tmp_path):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    files = {"code": ("attention。py", GOOD_CODE), "audit": ("audit．md", AUDIT), "figure": ("heatmap.png.", heatmap_png())}
    for name, data in files.values():
        (tmp_path / name).write_bytes(data)
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    login(page, live_server, alice.email)
    page.wait_for_selector("text=提交作业")
    for field, (name, _data) in files.items():
        page.set_input_files(f"input[name={field}]", str(tmp_path / name))
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*", timeout=15000)
    expect(page.locator("[data-badge]")).to_be_visible()
