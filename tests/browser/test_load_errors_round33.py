"""Round 33, a Chinese-speaking student's walk in Chromium (zh at 390 px, en at 1280 px) through the ways attention.py
fails to load: a file of top-level code without the classes is shown in the same box, under the same heading, as a
file of only imports (it was a table of 32 failures); brackets that do not match across lines are explained in the
student's language; a NUL pasted into the file is located by the upload form, not called a binary file. Nothing cut
off, no serious axe-core violation, the excerpt reached by keyboard."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import axe_violations, overflow
from tests.browser.helpers import syntax_error_page, tab_to
from tests.browser.test_browser_flows import login
from tests.browser.test_student_pages_browser import new_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BODY = ("import torch\nfrom torch import nn\n\n\nclass ScaledDotProductAttention(nn.Module):\n"
        "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"
        "        s = torch.matmul(q,\n                         k.transpose(-2, -1)]\n        return s\n")
CASES = [(390, "zh-CN"), (1280, "en-US")]


def _graded(app, web, alice, assignment, executor, code: str):
    from app.storage import BlobStore
    from app.submitting import Upload, submit
    from grading.runner import GradeInput, grade

    sub = submit(assignment, alice, Upload("attention.py", code.encode()), store=BlobStore(app.config["UPLOAD_DIR"]),
                 max_pending=0)
    web.grade(sub, grade(GradeInput(code=code.encode()), "attention", executor))
    return sub


@pytest.mark.parametrize(("width", "locale"), CASES, ids=["phone-zh", "desktop-en"])
def test_top_level_code_without_the_classes_is_shown_as_only_imports_are(app, web, factory, live_server, browser,
                                                                          executor, width, locale):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    imports = _graded(app, web, alice, a, executor, "import torch\nfrom torch import nn\n")
    script = _graded(app, web, alice, a, executor, "import torch\nx = torch.randn(2, 3)\nprint(x.softmax(-1))\n")
    ctx, page = new_page(browser, width, locale)
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    seen = []
    for sub in (imports, script):
        page.goto(f"{live_server}/submissions/{sub.id}")
        box = page.locator("#load-error")
        expect(box).to_be_visible()
        seen.append((box.locator("h2").inner_text(), box.locator("p.small").inner_text()))
        # the tests are folded under the box, not a table of 32 failures
        expect(page.locator("table.tests").first).not_to_be_visible()
        assert overflow(page) == []
        assert axe_violations(page) == []
    assert seen[0] == seen[1], seen
    said = "中没有测试能用的内容" if locale == "zh-CN" else "defines nothing the tests can use"
    assert said in seen[1][0]
    expect(page.locator("#load-error .load-message")).to_contain_text(
        "文件中只定义了变量 x" if locale == "zh-CN" else "It defines only variable x")
    ctx.close()


@pytest.mark.parametrize(("width", "locale"), CASES, ids=["phone-zh", "desktop-en"])
def test_brackets_that_do_not_match_across_lines_are_explained_and_marked(app, web, factory, live_server, browser,
                                                                          width, locale):
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    ctx, page = syntax_error_page(app, web, browser, live_server, a, alice, BODY, width, locale)
    box = page.locator("#load-error")
    expect(box).to_contain_text("第 8 行出现“]”时，第 7 行打开的“(”还没有闭合" if locale == "zh-CN" else
                                "the ']' on line 8 comes while the '(' opened on line 7 is still open")
    mark = box.locator(".hit mark.column")
    expect(mark).to_have_text("]")
    # the opening line is in the excerpt, and the mark is in view inside it (it scrolls sideways on a phone)
    expect(box.locator("pre")).to_contain_text("torch.matmul(q,")
    shown, spot = box.locator("pre").bounding_box(), mark.bounding_box()
    assert shown["x"] <= spot["x"] and spot["x"] + spot["width"] <= shown["x"] + shown["width"], (spot, shown)
    tab_to(page, "el.matches('#load-error pre')", "the excerpt", presses=40)
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()


@pytest.mark.parametrize(("width", "locale", "said"), [
    (390, "zh-CN", "attention.py：代码文件是文本，但第 7 行第 17 列有 NUL 字符（U+0000），"),
    (1280, "en-US", "attention.py: The code file is text, but line 7, column 17 holds a NUL character (U+0000)"),
], ids=["phone-zh", "desktop-en"])
def test_a_nul_pasted_into_the_file_is_located_by_the_upload_form(app, factory, live_server, browser, tmp_path, width,
                                                                  locale, said):
    factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    path = tmp_path / "attention.py"
    path.write_bytes(BODY.replace("        return s\n", "        return q\x00\n").replace(
        "        s = torch.matmul(q,\n                         k.transpose(-2, -1)]\n", "").encode())
    ctx, page = new_page(browser, width, locale)
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    page.goto(f"{live_server}/assignments/attention")
    page.set_input_files("input[name=code]", str(path))
    page.focus("form[data-dropform] button[type=submit]")
    page.keyboard.press("Enter")
    confirm = page.locator("#confirm-no-audit input[name=confirm_no_audit]")
    expect(confirm).to_be_visible()                 # "submit without an audit?", confirmed with the keyboard
    confirm.focus()
    page.keyboard.press("Space")
    page.focus("form[data-dropform] button[type=submit]")
    page.keyboard.press("Enter")
    error = page.locator("#upload-error")
    expect(error).to_contain_text(said)
    text = error.inner_text()
    assert "binary" not in text and "二进制" not in text
    assert overflow(page) == []
    assert axe_violations(page) == []
    ctx.close()
