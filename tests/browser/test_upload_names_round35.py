"""Round 35, in Chromium: a file picked under a name the upload changes is named on the attempt's page.

A file saved on macOS keeps its accented letters decomposed (NFD), and Chromium sends the name as the disk has
it; the attempt listed the composed name (NFC) without a word. The page now says what was sent and what is kept,
and why, in zh and en (app.upload_names), through the page's background upload as through a plain post.
"""

from __future__ import annotations

import unicodedata

import pytest
from playwright.sync_api import expect

from tests.browser.test_student_visit_round34 import files, open_as, pick, submitted

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SENT = unicodedata.normalize("NFD", "José_attention.py")
KEPT = unicodedata.normalize("NFC", SENT)
SAID = {"en": f"was saved as {KEPT}: its letters were stored in composed Unicode form (NFC)",
        "zh": f"已保存为 {KEPT}：其中的字母按 Unicode 组合形式（NFC）保存"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_decomposed_file_name_is_told_on_the_attempts_page(app, web, factory, live_server, browser, tmp_path, lang):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = open_as(browser, live_server, alice, lang, width=390, path="/assignments/attention")
    code, audit, figure = files(tmp_path, code_name=SENT)
    pick(page, code, audit, figure)
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    expect(page.locator(".flash.renamed")).to_contain_text(SAID[lang])
    (sub,) = submitted(alice)
    assert sub.code_filename == KEPT
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()
