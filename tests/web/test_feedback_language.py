"""Grader feedback follows the reader's language on pages and in the API; stored bilingual feedback
goes through the worker's real store; rows written before feedback was bilingual still display."""

from __future__ import annotations

from tests.web.helpers import realistic_result

FEEDBACK = {"en": "key 2 still gets weight 0.31 from query 0: add the mask before the softmax",
            "zh": "第 2 个 key 仍从 query 0 得到 0.31 的权重：请在 softmax 之前加上 mask"}
LOAD = {"en": "attention.py did not load: SyntaxError at line 3: expected ':'",
        "zh": "attention.py 无法导入：第 3 行出现 SyntaxError：expected ':'"}


def _bilingual_result() -> dict:
    result = realistic_result(fail_mask=True)
    for t in result["tests"]:
        if t["id"] == "test_blocked_key_gets_zero_weight":
            t["feedback"] = FEEDBACK
    result["message"] = LOAD
    return result


def _store(sub, result: dict) -> None:
    """Through worker.runs.store_result, as a worker stores a grading (TestResult rows included)."""
    from app.extensions import db
    from worker.runs import store_result

    run = sub.latest_run
    run.status, run.worker = "running", "w-test"
    db.session.commit()
    assert store_result(run.id, "w-test", result)


def test_result_page_shows_feedback_and_message_in_the_chosen_language(client, web, course):
    sub = web.submit(course["alice"])
    _store(sub, _bilingual_result())
    web.login(client, course["alice"])
    client.get("/lang/zh")
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert FEEDBACK["zh"] in html and FEEDBACK["en"] not in html
    client.get("/lang/en")
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert FEEDBACK["en"].replace("'", "&#39;") in html and FEEDBACK["zh"] not in html
    assert "{&#34;en&#34;" not in html and '{"en"' not in html      # never the raw dict


def test_instructor_page_decodes_stored_feedback_and_shows_old_plain_rows(client, web, course):
    from app.extensions import db
    from app.models import TestResult

    sub = web.submit(course["alice"])
    _store(sub, _bilingual_result())
    row = db.session.query(TestResult).filter_by(test_id="test_blocked_key_gets_zero_weight").one()
    assert row.feedback_message == FEEDBACK                         # JSON text in the Text column
    web.login(client, course["teacher"])
    html = client.get(f"/instructor/students/{course['alice'].id}", headers={"Accept-Language": "zh-CN"})
    page = html.get_data(as_text=True)
    assert FEEDBACK["zh"] in page and '{"en"' not in page

    old = web.submit(course["bob"])
    web.grade(old, realistic_result(fail_mask=True))               # plain-string feedback (old rows)
    page = client.get(f"/instructor/students/{course['bob'].id}").get_data(as_text=True)
    assert "key 2 still gets weight 0.31 from query 0" in page


def test_api_returns_feedback_in_the_requested_language(client, factory, web, course):
    sub = web.submit(course["alice"])
    _store(sub, _bilingual_result())
    headers = {"Authorization": f"Bearer {factory.token(course['alice'])}"}
    for query, extra, lang in (("?lang=zh", {}, "zh"), ("?lang=en", {}, "en"),
                               ("", {"Accept-Language": "zh-CN,zh;q=0.9"}, "zh"),
                               ("", {"Accept-Language": "en-US"}, "en")):
        body = client.get(f"/api/v1/submissions/{sub.id}{query}", headers={**headers, **extra}).json
        result = body["result"]
        assert result["lang"] == lang
        assert result["message"] == LOAD[lang]
        fb = next(t["feedback"] for t in result["tests"] if t["id"] == "test_blocked_key_gets_zero_weight")
        assert fb == FEEDBACK[lang]
        hidden = next(t for t in result["tests"] if t["hidden"])
        assert hidden["feedback"] is None                          # still stripped for students
