"""Mend round 48 (review E, M1), in Chromium: a zh student on a phone whose attempt is ``running`` while the worker
that took it has given no sign of life read "评分进程正在运行你的代码的测试…" under a spinner for good. The live
page says what was checked; once that worker beats again, the next poll says it is running the tests again.
Nothing is cut off at 390 px."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Status, WorkerHeartbeat, utcnow
from tests.browser.a11y import overflow
from tests.browser.test_student_visit_round34 import open_as

pytestmark = [pytest.mark.browser, pytest.mark.slow]    # Chromium: several seconds


def test_a_zh_student_reads_that_the_silent_grader_is_silent_until_it_beats(app, web, factory, live_server,
                                                                            browser):
    a = factory.assignment()
    student = factory.student(email="wang@example.edu", name="王小明")
    sub = web.submit(student, a, audit=False, figure=False)
    run = sub.latest_run
    run.status, run.worker, run.tries = Status.RUNNING.value, "w1@g:1", 1
    run.started_at = utcnow() - timedelta(seconds=120)
    sub.status = Status.RUNNING.value
    beat = WorkerHeartbeat(hostname="w1@g:1", started_at=utcnow() - timedelta(minutes=10),
                           last_seen=utcnow() - timedelta(minutes=5))
    db.session.add(beat)
    db.session.commit()
    ctx, page = open_as(browser, live_server, student, "zh", width=390, path=f"/submissions/{sub.id}")
    detail = page.locator("[data-detail]")
    expect(detail).to_have_text("接手这份提交的评分进程已超过 30 秒没有发出运行信号。"
                                "目前没有在线的评分进程：评分进程启动后会重新评分。")
    expect(page.locator("[data-no-workers]")).to_be_hidden()
    assert overflow(page) == []
    beat.last_seen = utcnow()
    db.session.commit()
    expect(detail).to_have_text("评分进程正在运行你的代码的测试…", timeout=15_000)   # the page's next status poll
    ctx.close()
