"""Round 27, in Chromium at 360 px: a text file renamed heatmap.png is refused by the server as a text file (it
was "not a PNG or JPEG image, nor any image format we recognise"), in the student's language, with the files kept,
nothing cut off and no serious axe-core violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import axe_violations, overflow
from tests.browser.test_browser_flows import AUDIT, login
from tests.web.helpers import GOOD_CODE

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("locale", "said"), [("zh-CN", "图是一个文本文件（扩展名为「.png」），不是 PNG 或 JPEG 图片"),
                                              ("en-US", "The figure is a text file (extension '.png'), not a PNG or JPEG")])
def test_a_text_file_as_the_figure_is_said_to_be_text_on_a_phone(app, factory, live_server, browser, tmp_path,
                                                                  locale, said):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    files = {"code": ("attention.py", GOOD_CODE), "audit": ("audit.md", AUDIT), "figure": ("heatmap.png", GOOD_CODE)}
    for name, data in files.values():
        (tmp_path / name).write_bytes(data)
    ctx = browser.new_context(viewport={"width": 360, "height": 800}, locale=locale, bypass_csp=True)
    page = ctx.new_page()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    page.goto(f"{live_server}/assignments/attention")
    for field, (name, _data) in files.items():
        page.set_input_files(f"input[name={field}]", str(tmp_path / name))
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text(said, timeout=15000)
    assert page.eval_on_selector("input[name=figure]", "el => el.files.length && el.files[0].name") == "heatmap.png"
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()


@pytest.mark.parametrize(("locale", "said"), [
    ("zh-CN", "attention.ipynb：这是 Jupyter notebook（扩展名为「.ipynb」），不是 Python 文件：评分需要 .py 代码文件。请导出"),
    ("en-US", "attention.ipynb: This is a Jupyter notebook (extension '.ipynb'), not a Python file"),
])
def test_a_notebook_picked_as_the_code_gets_the_export_advice_before_uploading(app, factory, live_server, browser,
                                                                               tmp_path, locale, said):
    """The page's own check stopped it with "has the wrong type for this field: use .py .py.txt"."""
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    notebook = tmp_path / "attention.ipynb"
    notebook.write_bytes(b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    ctx = browser.new_context(viewport={"width": 360, "height": 800}, locale=locale, bypass_csp=True)
    page = ctx.new_page()
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    page.goto(f"{live_server}/assignments/attention")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.set_input_files("input[name=code]", str(notebook))
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text(said)
    assert "wrong type" not in page.inner_text("#upload-error") and "类型不适合" not in page.inner_text("#upload-error")
    assert posts == []
    assert overflow(page) == []
    ctx.close()
