"""Round 36, the TA at a deadline in Chromium: the regrade of the attempts that count is confirmed while
students are still uploading (the page asked again at every upload, and counted the attempts still
waiting for their first grading as runs it would queue), and the dashboard's Counted column reversed
keeps the students without a score below the lowest scores."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import RegradeBatch
from tests.browser.helpers import full_result
from tests.browser.test_instructor_flows import course_with_class, teacher_page  # noqa: F401 - fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]    # Chromium and a seeded class: over 10 s each


def test_a_regrade_confirmed_while_students_upload_queues_what_the_page_showed(app, web, live_server, browser,
                                                                               factory, course_with_class):  # noqa: F811
    c = course_with_class
    waiting = web.submit(factory.student(email="late@example.edu", name="迟到"), c["assignment"],
                         audit=False, figure=False)                     # its first grading still queued
    ctx, page = teacher_page(browser, live_server, c["teacher"])
    page.click("text=the attempts that count")
    expect(page.locator("#regrade-confirm [data-count]")).to_have_text("7 run(s) will be queued.")
    expect(page.locator("#regrade-confirm [data-waiting]")).to_contain_text("1 attempt(s) are still waiting")
    # while the TA reads the page, two more students upload; one of them is graded already
    for i in range(2):
        sub = web.submit(factory.student(email=f"new{i}@example.edu", name=f"新同学{i}"), c["assignment"],
                         audit=False, figure=False)
        if i == 0:
            web.grade(sub, full_result())
    page.click("text=Queue 7 run(s)")
    page.wait_for_url("**/instructor/regrades/*")
    expect(page.locator("[data-count=queued]")).to_have_text("7")
    db.session.expire_all()
    batch = db.session.query(RegradeBatch).one()
    assert batch.runs_queued == 7 and str(waiting.id) in batch.before
    ctx.close()


def test_the_counted_column_reversed_keeps_students_without_a_score_last(app, web, live_server, browser, factory,
                                                                          course_with_class):  # noqa: F811
    c = course_with_class
    factory.student(email="zero@example.edu", name="没交")
    ctx, page = teacher_page(browser, live_server, c["teacher"])
    page.click("thead >> text=Counted")          # highest first
    page.click("thead >> text=Counted")          # lowest first
    last = page.locator("#class-table tbody tr").last
    expect(last).to_contain_text("zero@example.edu")
    first = page.locator("#class-table tbody tr").first
    expect(first).not_to_contain_text("zero@example.edu")
    ctx.close()
