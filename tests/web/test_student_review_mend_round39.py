"""Mend of round 39: a student never reads the grader's review reasons (its blind spots: names the source review
cannot follow, a fused call it missed, its limits, grader exception text). rubric.scoring.student_view drops
``review`` and keeps ``instructor_review``; the student's page and API say only that an instructor will look."""

from __future__ import annotations

import html

from app.review_text import localized
from rubric.scoring import student_view
from tests.grading.test_review_codes_round39 import builders_reasons
from tests.web.helpers import realistic_result

NOTICE = {"en": "An instructor will look at this attempt.", "zh": "教师会查看这次提交。"}


def _secrets(app) -> dict[str, list[str]]:
    """Per language, every code, long-enough param and text of every builder's reason (short numbers such as
    "3" or "40" occur on any page)."""
    out: dict[str, list[str]] = {}
    for lang in ("en", "zh"):
        with app.test_request_context(f"/?lang={lang}"):
            words = []
            for r in builders_reasons():
                words += [r["code"], r["text"], localized(r)]
                words += [v for v in r["params"].values() if len(v) >= 6]
            out[lang] = words
    return out


def _graded(web, course):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": builders_reasons()})
    return sub


def test_student_view_drops_the_review_reasons_and_keeps_only_whether_an_instructor_will_look():
    view = student_view({**realistic_result(), "review": builders_reasons()})
    assert "review" not in view and view["instructor_review"] is True
    assert student_view({**realistic_result(), "review": []})["instructor_review"] is False
    assert student_view(realistic_result())["instructor_review"] is False


def test_a_students_api_answer_holds_no_reason_and_the_instructors_holds_them_all(app, client, web, course, factory):
    sub = _graded(web, course)
    secrets = _secrets(app)
    for lang in ("en", "zh"):
        mine = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}",
                          headers={"Authorization": f"Bearer {factory.token(course['alice'])}"})
        assert mine.status_code == 200
        body = mine.get_data(as_text=True)
        assert mine.json["result"]["instructor_review"] is True and "review" not in mine.json["result"]
        leaked = [w for w in secrets[lang] + secrets["en"] if w in body or w in str(mine.json)]
        assert not leaked, (lang, leaked)
        full = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}",
                          headers={"Authorization": f"Bearer {factory.token(course['teacher'])}"}).json
        assert [r["code"] for r in full["result"]["review"]] == [r["code"] for r in builders_reasons()]
        assert [r["message"] for r in full["result"]["review"]] == [
            localized_in(app, lang, r) for r in builders_reasons()]


def localized_in(app, lang: str, reason: dict) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def test_a_students_pages_show_no_reason_only_the_notice_in_their_language(app, client, web, course):
    sub = _graded(web, course)
    secrets = _secrets(app)
    web.login(client, course["alice"])
    for lang in ("en", "zh"):
        client.get(f"/lang/{lang}")
        pages = {url: client.get(url) for url in (f"/submissions/{sub.id}", f"/submissions/{sub.id}/result",
                                                   "/assignments/attention")}
        for url, r in pages.items():
            assert r.status_code == 200, url
            page = html.unescape(r.get_data(as_text=True))
            leaked = [w for w in secrets["en"] + secrets["zh"] if w in page]
            assert not leaked, (lang, url, leaked)
        assert NOTICE[lang] in html.unescape(pages[f"/submissions/{sub.id}"].get_data(as_text=True))


def test_no_notice_for_an_attempt_the_grader_did_not_flag(client, web, course):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    web.login(client, course["alice"])
    for lang in ("en", "zh"):
        client.get(f"/lang/{lang}")
        assert NOTICE[lang] not in html.unescape(client.get(f"/submissions/{sub.id}").get_data(as_text=True))


def test_the_instructors_page_still_shows_every_reason_in_zh_and_en(app, client, web, course):
    _graded(web, course)
    web.login(client, course["teacher"])
    for lang in ("en", "zh"):
        client.get(f"/lang/{lang}")
        page = html.unescape(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))
        missing = [r["code"] for r in builders_reasons() if localized_in(app, lang, r) not in page]
        assert not missing, (lang, missing)
