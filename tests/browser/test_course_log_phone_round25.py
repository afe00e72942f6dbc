"""Round 25, in Chromium at 360 px, zh and en: the course log (and the settings page's recent changes,
the same table) is readable on a phone. Its seven columns were squeezed into the 313 px card: the
unbreakable time took ~190 px and "What" was left one CJK character wide ("课/程/设/置" down the cell,
each entry 150-250 px tall, the Before/After values a few characters a line). Now each column keeps a
readable width and the table scrolls inside its card; nothing is cut off at the screen's edge."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import CourseLog
from tests.browser.a11y import overflow
from tests.browser.test_browser_flows import login

pytestmark = pytest.mark.browser

CELLS = """() => [...document.querySelectorAll('table.log-table tbody tr, table.log-table tr')]
  .filter(tr => tr.querySelector('td[data-kind]'))
  .map(tr => ({what: Math.round(tr.querySelector('td[data-kind]').getBoundingClientRect().width),
               height: Math.round(tr.getBoundingClientRect().height)}))"""


@pytest.mark.parametrize("lang, locale", [("zh", "zh-CN"), ("en", "en-US")])
def test_the_course_log_is_readable_on_a_360px_phone(app, web, factory, live_server, browser, lang, locale):
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    db.session.add(CourseLog(kind="email_cleaned", assignment_id=a.id, student_id=alice.id, subject="email",
                             before=" Alice@Example.edu\u200b", after="Alice@Example.edu"))
    db.session.add(CourseLog(kind="setting", assignment_id=a.id, actor_id=teacher.id, subject="deadline",
                             before="2000-01-01T05:00:00", after="2099-12-31T15:00:00"))
    db.session.add(CourseLog(kind="extension", assignment_id=a.id, actor_id=teacher.id, student_id=alice.id, subject=alice.email,
                             after={"extra_days": 2}, comment="病假，附医院证明"))
    db.session.commit()
    page = browser.new_context(viewport={"width": 360, "height": 800}, locale=locale).new_page()
    login(page, live_server, teacher.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    for path in ("/instructor/log", "/instructor/settings"):
        page.goto(f"{live_server}{path}")
        rows = page.evaluate(CELLS)
        assert len(rows) >= 2, (path, rows)
        # "What" holds a label such as 课程设置: 截止时间 on a line or two, not a character a line
        assert all(r["what"] >= 90 for r in rows), (path, rows)
        assert all(r["height"] <= 140 for r in rows), (path, rows)
        assert overflow(page) == [], path
    page.context.close()
