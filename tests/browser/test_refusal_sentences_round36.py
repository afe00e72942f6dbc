"""Round 36, in Chromium: a refusal said on the upload form reads as one text in zh and en.

The page joined the server's refusal, its wait time and "your files are still chosen" (and the checks made
before uploading) with a space: in Chinese that put a stray space after each "。" ("请先解压。 你选择的文件…"), and
a file's advice followed its name after an English ": " ("figure.gif: 请导出…")."""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_flows import login
from tests.web.helpers import AUDIT_MD, GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("attention.py", GOOD_CODE)
    return buf.getvalue()


def _choose(page, **files) -> None:
    for field, (name, data) in files.items():
        page.set_input_files(f"input[name={field}]", files=[{"name": name, "mimeType": "application/octet-stream",
                                                              "buffer": data}])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_refusal_and_the_files_kept_read_as_sentences_of_the_page_language(app, factory, live_server, browser,
                                                                              lang):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    login(page, live_server, alice.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/assignments/{a.slug}")
    error = page.locator("#upload-error")

    _choose(page, code=("attention.py", _zip()), audit=("audit.md", AUDIT_MD))      # refused by the server
    page.click("form[data-dropform] button[type=submit]")
    expect(error).to_be_visible()
    server_said = error.text_content() or ""
    # checked before uploading: an empty audit and a figure of the wrong type, two sentences
    _choose(page, code=("attention.py", GOOD_CODE), audit=("audit.md", b""), figure=("figure.gif", b"GIF89a"))
    page.click("form[data-dropform] button[type=submit]")
    expect(error).not_to_have_text(server_said)
    checked = error.text_content() or ""
    if lang == "zh":
        assert "ZIP" in server_said and "你选择的文件仍然保留着" in server_said
        assert "。 " not in server_said and "。 " not in checked, (server_said, checked)
        assert checked.count("。") >= 2 and "figure.gif：" in checked    # a name, then the advice, in zh
    else:
        assert "ZIP archive" in server_said and ". Your files are still chosen" in server_said
        assert "empty" in checked and ". figure.gif" in checked
    assert page.url.endswith(f"/assignments/{a.slug}")
    page.context.close()
