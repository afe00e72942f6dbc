"""Round 20: two instructors changing one attempt at once lose no update.

Two instructors open the same student's page; one saves an override (or an audit review), then the
other saves theirs from the page opened before it. The second save silently replaced (review) or
buried (override: the newest row is in force) a change its author never saw. The forms now carry
the id of the row in force when the page was rendered; a save from a page that is out of date is
refused, saying who changed what, in zh and en. A form without the field (a script) saves as before.
"""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.models import AuditReview, ScoreOverride
from tests.web.helpers import realistic_result

TARGET = "test:test_blocked_key_gets_zero_weight"


def page_form(client, student_id: int, action: str) -> dict:
    """The hidden fields of the first form posting to `action` on the instructor's student page."""
    page = client.get(f"/instructor/students/{student_id}").get_data(as_text=True)
    form = page[page.index(f'action="{action}"'):]
    form = form[:form.index("</form>")]
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))


@pytest.fixture
def two_teachers(app, client, web, course, factory):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))
    other = factory.instructor(email="zhou@example.edu", name="Teacher Zhou")
    second = app.test_client()
    web.login(client, course["teacher"])
    web.login(second, other)
    return sub, client, second


@pytest.mark.parametrize("lang, said", [
    ("en", "The overrides of this attempt changed after you opened the page (\u2068Teacher Li\u2069); yours was not saved."),
    ("zh", "你打开页面之后，这次提交的分数覆盖已被更改（\u2068Teacher Li\u2069）；你的覆盖没有保存。"),
])
def test_an_override_saved_from_a_page_older_than_a_colleagues_override_is_refused(two_teachers, course,
                                                                                   lang, said):
    sub, li, zhou = two_teachers
    url = f"/instructor/submissions/{sub.id}/override"
    seen_li, seen_zhou = page_form(li, course["alice"].id, url), page_form(zhou, course["alice"].id, url)
    assert li.post(url, data=seen_li | {"target": TARGET, "points": "4", "comment": "Old mask convention."}
                   ).status_code == 302
    zhou.get(f"/lang/{lang}")
    late = zhou.post(url, data=seen_zhou | {"target": TARGET, "points": "1", "comment": "Half credit."},
                     follow_redirects=True)
    assert said in late.get_data(as_text=True)
    db.session.expire_all()
    assert [(o.points, o.comment) for o in db.session.query(ScoreOverride)] == [(4, "Old mask convention.")]
    # from a page opened after it, the same save goes through
    again = zhou.post(url, data=page_form(zhou, course["alice"].id, url)
                      | {"target": TARGET, "points": "1", "comment": "Half credit."})
    assert again.status_code == 302 and db.session.query(ScoreOverride).count() == 2


@pytest.mark.parametrize("lang, said", [
    ("en", "\u2068Teacher Li\u2069 saved an audit review of this attempt (7) after you opened the page; yours was not saved."),
    ("zh", "你打开页面之后，\u2068Teacher Li\u2069 保存了这次提交的审计评阅（7）；你的评阅没有保存。"),
])
def test_an_audit_review_saved_from_a_page_older_than_a_colleagues_review_is_refused(two_teachers, course,
                                                                                    lang, said):
    sub, li, zhou = two_teachers
    url = f"/instructor/submissions/{sub.id}/review"
    seen_li, seen_zhou = page_form(li, course["alice"].id, url), page_form(zhou, course["alice"].id, url)
    assert seen_li["seen"] == seen_zhou["seen"] == "0"
    li.post(url, data=seen_li | {"score": "7", "comment": "Reads the figure well."})
    zhou.get(f"/lang/{lang}")
    late = zhou.post(url, data=seen_zhou | {"score": "3", "comment": "Too generic."}, follow_redirects=True)
    assert said in late.get_data(as_text=True)
    db.session.expire_all()
    assert [(r.score, r.comment) for r in db.session.query(AuditReview)] == [(7, "Reads the figure well.")]
    zhou.post(url, data=page_form(zhou, course["alice"].id, url) | {"score": "3", "comment": "Too generic."})
    db.session.expire_all()
    assert db.session.query(AuditReview).count() == 2


def test_forms_without_the_rendered_state_save_as_before(two_teachers, course):
    sub, li, zhou = two_teachers
    li.post(f"/instructor/submissions/{sub.id}/review", data={"score": "7"})
    zhou.post(f"/instructor/submissions/{sub.id}/review", data={"score": "5"})
    zhou.post(f"/instructor/submissions/{sub.id}/override", data={"target": TARGET, "points": "4", "comment": "x"})
    db.session.expire_all()
    assert db.session.query(AuditReview).count() == 2 and db.session.query(ScoreOverride).count() == 1
