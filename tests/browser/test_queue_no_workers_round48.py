"""Round 48, a zh student on a phone whose attempt waits while no grading worker is alive: the live page said
only how many submissions were ahead, under a spinner that never ended. It says no grader is running, and the
note goes away on the next poll once a worker's heartbeat is in; nothing is cut off at 390 px."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import WorkerHeartbeat, utcnow
from tests.browser.a11y import overflow
from tests.browser.test_student_visit_round34 import open_as

pytestmark = [pytest.mark.browser, pytest.mark.slow]    # Chromium: several seconds


def test_a_zh_student_reads_that_no_grader_runs_until_one_starts(app, web, factory, live_server, browser):
    a = factory.assignment()
    student = factory.student(email="wang@example.edu", name="王小明")
    sub = web.submit(student, a, audit=False, figure=False)
    ctx, page = open_as(browser, live_server, student, "zh", width=390, path=f"/submissions/{sub.id}")
    note = page.locator("[data-no-workers]")
    expect(note).to_be_visible()
    expect(note).to_have_text("目前没有在线的评分进程：这份提交会保留在队列中的位置，评分进程启动后就会评分。")
    assert overflow(page) == []
    db.session.add(WorkerHeartbeat(hostname="w1@grader", started_at=utcnow() - timedelta(minutes=5),
                                   last_seen=utcnow()))
    db.session.commit()
    expect(note).to_be_hidden(timeout=15_000)       # the page's next status poll
    expect(page.locator("[data-detail]")).to_have_text("下一个就轮到你。")
    ctx.close()
