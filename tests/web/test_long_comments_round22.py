"""A comment longer than the service keeps is refused, not cut. An audit review's comment (a
textarea without a length limit) past 5,000 characters was stored cut at 5,000 and the page said
"Audit review saved.": the end of the student's feedback was gone without a word. Now the save is
refused (422) saying the length and the limit in zh and en, the page comes back with the whole
comment to shorten, and nothing is stored; the same for an override's comment and, through the API,
an extension's reason."""

from __future__ import annotations

import pytest
from markupsafe import escape

from app.extensions import db
from app.models import AuditReview, Extension, ScoreOverride
from tests.web.helpers import realistic_result
from tests.web.test_instructor_round20 import TARGET, page_form
from tests.web.test_instructor_saves_round21 import attempt_block

LONG = ("掩码方向反了，请对照第 2 行。" * 400) + "最后一句：请重新提交。"   # 6,411 characters, its end matters


@pytest.fixture
def graded(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))
    web.login(client, course["teacher"])
    return sub


@pytest.mark.parametrize("lang, words", [("en", "at most 5000 are kept"), ("zh", "最多可保存 5000 个")])
def test_a_review_comment_past_the_limit_is_refused_whole_not_cut(client, course, graded, lang, words):
    client.get(f"/lang/{lang}")
    url = f"/instructor/submissions/{graded.id}/review"
    res = client.post(url, data=page_form(client, course["alice"].id, url) | {"score": "12", "comment": LONG})
    assert res.status_code == 422
    page = res.get_data(as_text=True)
    assert words in page and str(len(LONG)) in page
    assert escape(LONG) in attempt_block(page, graded.attempt)   # the whole comment, to shorten
    db.session.expire_all()
    assert db.session.query(AuditReview).count() == 0


def test_a_review_comment_at_the_limit_is_saved_whole(client, course, graded):
    url = f"/instructor/submissions/{graded.id}/review"
    text = LONG[-5000:]
    res = client.post(url, data=page_form(client, course["alice"].id, url) | {"score": "12", "comment": text})
    assert res.status_code == 302
    db.session.expire_all()
    assert db.session.query(AuditReview).one().comment == text


def test_an_override_comment_past_the_limit_is_refused_not_cut(client, course, graded):
    client.get("/lang/en")
    url = f"/instructor/submissions/{graded.id}/override"
    res = client.post(url, data=page_form(client, course["alice"].id, url)
                      | {"target": TARGET, "points": "4", "comment": LONG})
    assert res.status_code == 422
    assert "at most 5000 are kept" in res.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.query(ScoreOverride).count() == 0


def test_an_api_extension_reason_past_the_limit_is_refused_not_cut(client, web, course, factory):
    headers = {"Authorization": f"Bearer {factory.token(course['teacher'])}"}
    resp = client.post("/api/v1/extensions", json={"student": "bob@example.edu", "extra_days": 2,
                                                    "reason": "x" * 2001}, headers=headers)
    assert resp.status_code == 422 and resp.json["code"] == "too_long"
    assert "2001" in resp.json["message"]["en"] and "2001" in resp.json["message"]["zh"]
    assert db.session.query(Extension).count() == 0
