"""Round 29, the student's walk in Chromium (zh and en, phone and desktop, keyboard): a file that does not parse
shows the line and the column Python points at, with that character marked in the line shown; an iPhone photo
(.heic) picked as the figure, or a WPS document as the audit, gets the server's advice on how to convert it
before anything is uploaded, where the page said only "wrong type". No serious axe-core violation, nothing cut off."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from grading.proxy import load_error_text
from grading.sandbox import StudentError
from tests.browser.a11y import axe_violations, overflow
from tests.browser.helpers import full_result, syntax_error_page, tab_to
from tests.browser.test_browser_flows import login
from tests.browser.test_student_pages_browser import load_failure, new_page
from tests.web.helpers import GOOD_CODE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIGNATURE = "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False)"
SOURCE = ("import math\nimport torch\nfrom torch import nn\n\n\nclass ScaledDotProductAttention(nn.Module):\n"
          f"{SIGNATURE}\n        return q\n")


@pytest.mark.parametrize(("width", "locale", "said"), [
    (390, "zh-CN", f"第 7 行第 {len(SIGNATURE) + 1} 列出现 SyntaxError"),
    (1280, "en-US", f"SyntaxError at line 7, column {len(SIGNATURE) + 1}: expected ':'"),
], ids=["phone-zh", "desktop-en"])
def test_a_missing_colon_is_shown_at_its_line_and_column_with_the_place_marked(app, web, factory, live_server,
                                                                               browser, width, locale, said):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = syntax_error_page(app, web, browser, live_server, a, alice, SOURCE, width, locale)
    box = page.locator("#load-error")
    expect(box).to_contain_text(said)
    mark = box.locator(".hit mark.column")
    expect(mark).to_have_count(1)
    # the mark sits on the highlighted line, right after the signature's ')', and is in view: on a phone the
    # excerpt scrolls sideways, and it showed the line's start with the mark 500 px to the right, out of sight
    hit, spot = box.locator(".hit").bounding_box(), mark.bounding_box()
    assert hit["y"] <= spot["y"] < hit["y"] + hit["height"] and spot["width"] > 0
    shown = box.locator("pre").bounding_box()
    assert shown["x"] <= spot["x"] and spot["x"] + spot["width"] <= shown["x"] + shown["width"], (spot, shown)
    before = page.evaluate("() => document.querySelector('#load-error .hit mark.column').previousSibling.textContent")
    assert before.endswith("return_weights=False)")
    # keyboard only: the excerpt (it scrolls sideways on a phone) is reached with Tab
    tab_to(page, "el.matches('#load-error pre')", "the excerpt", presses=40)
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()


@pytest.mark.parametrize(("locale", "field", "name", "data", "said"), [
    ("zh-CN", "figure", "IMG_0412.HEIC", b"\x00\x00\x00\x18ftypheic" + b"\x00" * 200,
     "IMG_0412.HEIC：这是 HEIC 图片；实验只接受 PNG 或 JPEG：请导出或另存为 PNG。iPhone 照片默认是 HEIC 格式"),
    ("en-US", "figure", "heatmap.avif", b"\x00\x00\x00\x1cftypavif" + b"\x00" * 200,
     "heatmap.avif: This is an AVIF image; the lab takes PNG or JPEG"),
    ("zh-CN", "audit", "审计.wps", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 200, "审计.wps：审计文字必须是 Markdown（.md）"
     "、纯文本（.txt）或 PDF（.pdf）：这是 WPS 文档。请转换"),
], ids=["heic-zh", "avif-en", "wps-zh"])
def test_a_picked_file_of_a_format_the_server_explains_gets_that_advice_on_a_phone_with_the_keyboard(
        app, factory, live_server, browser, tmp_path, locale, field, name, data, said):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    files = {"code": ("attention.py", GOOD_CODE), field: (name, data)}
    for fname, content in files.values():
        (tmp_path / fname).write_bytes(content)
    ctx, page = new_page(browser, 360, locale)
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    page.goto(f"{live_server}/assignments/attention")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    for f, (fname, _content) in files.items():
        page.set_input_files(f"input[name={f}]", str(tmp_path / fname))
    page.focus("form[data-dropform] button[type=submit]")
    page.keyboard.press("Enter")
    error = page.locator("#upload-error")
    expect(error).to_contain_text(said)
    assert "wrong type" not in error.inner_text() and "类型不适合" not in error.inner_text()
    assert page.evaluate("() => document.activeElement.id") == "upload-error"   # read out, where focus is
    assert posts == []
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()


def test_comparing_with_an_attempt_that_did_not_load_says_why_on_a_phone_and_opens_by_keyboard(
        app, web, factory, live_server, browser):
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    store = BlobStore(app.config["UPLOAD_DIR"])
    good = submit(a, alice, Upload("attention.py", GOOD_CODE), store=store, max_pending=0)
    web.grade(good, full_result())
    broken = submit(a, alice, Upload("attention.py", SOURCE.encode()), store=store, max_pending=0)
    error = load_error_text(StudentError("SyntaxError", "expected ':'", 7, len(SIGNATURE) + 1), source=SOURCE)
    result = load_failure(full_result())
    result["message"] = {"en": f"attention.py did not load: {error['en']}", "zh": f"attention.py 无法导入：{error['zh']}"}
    result["load_error"] = error
    web.grade(broken, result)
    ctx, page = new_page(browser, 390, "zh-CN")
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/zh")
    page.goto(f"{live_server}/submissions/compare?a={good.id}&b={broken.id}")
    lead = page.locator("[data-load-error]")
    expect(lead).to_contain_text("第 2 次提交：attention.py 无法导入，所以它的测试都没有运行。")
    expect(lead).to_contain_text(f"第 7 行第 {len(SIGNATURE) + 1} 列出现 SyntaxError")
    expect(page.locator("#cmp-tests ~ details table")).not_to_be_visible()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.tagName === 'SUMMARY'"):
            break
    page.keyboard.press("Enter")
    expect(page.locator("#cmp-tests ~ details table")).to_be_visible()
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()
