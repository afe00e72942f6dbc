"""Round 21: a refused review or override loses nothing the instructor typed.

A save refused for a bad value (a score out of range, points that are not a number) or because a
colleague changed the attempt after the page was opened used to redirect back to the student page
with empty fields: a comment the instructor may have spent minutes on was gone. The page now comes
back at once with the reason, that attempt open, and every field as it was sent (422 for a bad
value, 409 for a colleague's change). Nothing is stored.
"""

from __future__ import annotations

import re

import pytest
from markupsafe import escape

from app.extensions import db
from app.models import AuditReview, ScoreOverride
from tests.web.helpers import realistic_result
from tests.web.test_instructor_round20 import TARGET, page_form

COMMENT = '第 2 行的掩码方向反了，但 "softmax" 的维度是对的 <b>& 12.5%</b>'


def attempt_block(page: str, attempt: int) -> str:
    """The page from attempt `attempt`'s card to the next attempt's (cards hold nested <details>)."""
    start = page.rindex("<details", 0, page.index(f'id="attempt-{attempt}"'))
    end = page.find('<details class="card attempt', start + 1)
    return page[start:end if end > 0 else len(page)]


@pytest.fixture
def graded(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))
    web.login(client, course["teacher"])
    return sub


@pytest.mark.parametrize("score", ["16", "-1", "abc", "1,250"])
def test_a_review_refused_for_its_score_comes_back_with_the_score_and_comment_as_typed(client, course, graded,
                                                                                       score):
    url = f"/instructor/submissions/{graded.id}/review"
    res = client.post(url, data=page_form(client, course["alice"].id, url) | {"score": score, "comment": COMMENT})
    assert res.status_code == 422
    block = attempt_block(res.get_data(as_text=True), graded.attempt)
    assert "<details" in block and " open>" in block.split(">", 1)[0] + ">"
    assert escape(COMMENT) in block          # the textarea holds it, escaped as Jinja escapes
    assert f'value="{escape(score)}"' in block
    db.session.expire_all()
    assert db.session.query(AuditReview).count() == 0


@pytest.mark.parametrize("lang, reason", [("en", "Points must be a number."), ("zh", "分数必须是数字")])
def test_an_override_refused_for_its_points_comes_back_with_target_points_and_comment(client, course, graded,
                                                                                      lang, reason):
    client.get(f"/lang/{lang}")
    url = f"/instructor/submissions/{graded.id}/override"
    res = client.post(url, data=page_form(client, course["alice"].id, url)
                      | {"target": TARGET, "points": "four", "comment": COMMENT})
    assert res.status_code == 422
    page = res.get_data(as_text=True)
    assert reason in page
    block = attempt_block(page, graded.attempt)
    assert re.search(rf'<option value="{TARGET}" selected>', block)
    assert 'value="four"' in block and f'value="{escape(COMMENT)}"' in block
    db.session.expire_all()
    assert db.session.query(ScoreOverride).count() == 0


def test_an_override_refused_for_a_colleagues_change_keeps_the_typed_one_and_can_be_saved_from_there(
        app, client, web, course, factory, graded):
    url = f"/instructor/submissions/{graded.id}/override"
    other = app.test_client()
    web.login(other, factory.instructor(email="zhou@example.edu", name="Teacher Zhou"))
    seen_zhou = page_form(other, course["alice"].id, url)
    assert client.post(url, data=page_form(client, course["alice"].id, url)
                       | {"target": TARGET, "points": "4", "comment": "Old mask convention."}).status_code == 302
    late = other.post(url, data=seen_zhou | {"target": TARGET, "points": "1", "comment": COMMENT})
    assert late.status_code == 409
    page = late.get_data(as_text=True)
    block = attempt_block(page, graded.attempt)
    assert f'value="{escape(COMMENT)}"' in block and 'value="1"' in block
    # The page that came back shows the colleague's override and carries its id: saving from it goes through.
    form = next(f for f in re.findall(rf'<form[^>]*action="{url}".*?</form>', block, re.S) if 'name="points"' in f)
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
    assert other.post(url, data=hidden | {"target": TARGET, "points": "1", "comment": COMMENT}).status_code == 302
    db.session.expire_all()
    assert [o.comment for o in db.session.query(ScoreOverride).order_by(ScoreOverride.id)] == [
        "Old mask convention.", COMMENT]


def test_another_attempts_forms_stay_empty_and_closed(client, web, course, graded):
    second = web.submit(course["alice"])
    web.grade(second, realistic_result(fail_mask=True))
    url = f"/instructor/submissions/{graded.id}/review"
    res = client.post(url, data=page_form(client, course["alice"].id, url) | {"score": "99", "comment": COMMENT})
    other = attempt_block(res.get_data(as_text=True), second.attempt)
    assert escape(COMMENT) not in other and " open>" not in other.split(">", 1)[0] + ">"
