"""Round 48, a zh instructor whose script reads an .xlsx: the workbook headed by the fixed column keys is a
link on the dashboard (it was reachable only by typing ?format=xlsx&headers=keys), named in Chinese, whole on a
phone and on a desktop, reached with the keyboard, and what it downloads is headed by the key row."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.coursework import rubric_for
from app.gradebook import SCORE_HEADER
from app.roster_xlsx import read_workbook
from tests.browser.a11y import overflow
from tests.browser.helpers import tab_to
from tests.browser.test_browser_flows import login
from tests.browser.test_instructor_flows import course_with_class  # noqa: F401 - fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]    # Chromium and a seeded class: over 10 s each


@pytest.mark.parametrize("width", [390, 1280])
def test_a_zh_instructor_downloads_the_excel_workbook_with_column_keys(web, live_server, browser, width,
                                                                      course_with_class):  # noqa: F811
    c = course_with_class
    ctx = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN", accept_downloads=True,
                              timezone_id="Asia/Shanghai")
    page = ctx.new_page()
    login(page, live_server, c["teacher"].email)
    page.wait_for_url(f"{live_server}/instructor/")
    page.goto(f"{live_server}/lang/zh")
    page.goto(f"{live_server}/instructor/")
    link = page.get_by_role("link", name="Excel（固定列键，供脚本读取）")
    expect(link).to_be_visible()
    assert overflow(page) == []
    tab_to(page, "el.textContent.startsWith('Excel（固定列键')", "the key-headed Excel link", presses=120)
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    download = info.value
    assert download.suggested_filename.endswith(".xlsx")
    keys = ["email", "name", SCORE_HEADER, *rubric_for(c["assignment"].suite).names,
            "attempts", "best_attempt", "late_days"]
    assert read_workbook(open(download.path(), "rb").read())[0][1] == keys
    ctx.close()
