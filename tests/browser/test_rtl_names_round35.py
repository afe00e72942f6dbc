"""Round 35, in Chromium: a name written right to left keeps the numbers after it on their side.

No page isolated a name from the text around it: on the similarity report, the cell "محمد علي #1 · 90%" was
laid out as "#1 · 90% محمد علي" (the attempt number and the share, weak characters after an Arabic name,
joined its right-to-left run), so the instructor read the numbers as belonging before the name. Every name a
page prints is now in <bdi> (views_helpers.bdi).
"""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import SimilarityReport, utcnow
from tests.browser.helpers import full_result
from tests.browser.test_browser_flows import login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Where the name ends and where the "#<attempt>" after it starts, on screen.
BOXES = """cell => {
  const range = document.createRange();
  const name = cell.querySelector('bdi') || cell.firstChild;
  range.selectNodeContents(name);
  const n = range.getBoundingClientRect();
  const after = cell.querySelector('span.small').getBoundingClientRect();
  return [n.left, n.right, after.left];
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_attempt_number_after_an_arabic_name_stays_after_it(app, web, factory, live_server, browser, lang):
    a = factory.assignment()
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    one = factory.student(email="rtl@example.edu", name="محمد علي")
    two = factory.student(email="heb@example.edu", name="דוד כהן")
    subs = [web.submit(u, a) for u in (one, two)]
    for s in subs:
        web.grade(s, full_result())
    db.session.add(SimilarityReport(assignment_id=a.id, status="done", threshold=0.5, submissions_compared=2,
                                    finished_at=utcnow(), pairs=[{"a": subs[0].id, "b": subs[1].id, "score": 0.9,
                                                                  "score_a": 0.9, "score_b": 0.88}]))
    db.session.commit()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    login(page, live_server, teacher.email)
    page.wait_for_load_state()
    page.goto(f"{live_server}/lang/{lang}")
    page.goto(f"{live_server}/instructor/similarity?a={a.slug}")
    cells = page.locator("#pairs tr td:nth-child(2), #pairs tr td:nth-child(3)")
    assert cells.count() == 2
    for i in range(2):
        left, right, after = cells.nth(i).evaluate(BOXES)
        assert after >= right - 1, (cells.nth(i).inner_text(), left, right, after)
    page.context.close()
