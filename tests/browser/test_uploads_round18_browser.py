"""Red-team round 18 in the browser: what the upload form does with files dropped on it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import login
from tests.browser.test_student_pages_browser import new_page

DROP = """([names, zone]) => {
  const dt = new DataTransfer();
  for (const name of names) dt.items.add(new File(["x = 1\\n"], name, {type: "text/plain"}));
  document.querySelector(zone).dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
}"""


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_two_python_files_dropped_together_are_both_named_and_neither_is_chosen_silently(
        app, factory, live_server, browser, locale):
    # Dropping attention.py with test_attention.py routed both to the code field, one after the other:
    # the last one stayed chosen and was submitted without a word.
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = new_page(browser, 1280, locale)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/submit" in r.url else None)
    login(page, live_server, alice.email)
    page.wait_for_selector("form[data-dropform]")
    zone = "form[data-dropform] .drop"
    page.evaluate(DROP, [["attention.py", "test_attention.py", "audit.md"], zone])
    error = page.locator("#upload-error")
    # round 36: the names with the page language's separator
    expect(error).to_contain_text("attention.py、test_attention.py" if locale == "zh-CN" else "attention.py, test_attention.py")
    expect(error).to_contain_text("同一个上传框" if locale == "zh-CN" else "Several files were dropped for one field")
    assert page.eval_on_selector("input[name=code]", "el => el.files.length") == 0
    assert page.eval_on_selector("input[name=audit]", "el => el.files.length && el.files[0].name") == "audit.md"
    page.evaluate(DROP, [["attention.py"], zone])                       # one file: chosen as before
    assert page.eval_on_selector("input[name=code]", "el => el.files.length && el.files[0].name") == "attention.py"
    assert posts == []
    ctx.close()
