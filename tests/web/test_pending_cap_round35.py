"""Round 35: the pending cap's refusal says what is waiting and when a new attempt can be sent.

It said "You already have 2 attempt(s) waiting to be graded; wait for one to finish", naming neither the
attempts nor where the oldest was, and the API's 429 carried no Retry-After (the cooldown's does). Now it
lists the waiting attempts, says whether the oldest is being graded (and for how long) or where it is in
the queue, that a new attempt is accepted once one is graded, and Retry-After is what is left of the
grading budget of the attempt being graded (or one budget while all wait in the queue), in en and zh, on the page
and in the API.
"""

from __future__ import annotations

import io
import math
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import GradingRun, Status, Submission, utcnow
from autograder import settings
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import upload


def _two_waiting(client, factory, course, app) -> tuple[str, list[int]]:
    app.config["MAX_PENDING_PER_STUDENT"] = 2
    token = factory.token(course["alice"])
    ids = [upload(client, token, confirm_no_audit="1").json["id"] for _ in range(2)]
    return token, ids


def test_the_api_refusal_names_the_waiting_attempts_and_the_oldests_place_in_the_queue(client, factory, course, app):
    token, _ids = _two_waiting(client, factory, course, app)
    refused = upload(client, token, confirm_no_audit="1")
    assert refused.status_code == 429 and refused.json["code"] == "too_many_pending"
    en, zh = refused.json["message"]["en"], refused.json["message"]["zh"]
    assert "2 attempts waiting to be graded (attempt(s) 1, 2)" in en, en
    assert "the oldest, attempt 1, is next in the queue" in en, en
    assert "第 1、2 次" in zh and "最早的第 1 次在队列中排在下一个" in zh, zh
    assert "accepted as soon as one of them is graded" in en and "其中任一次评分完成后即可再提交" in zh
    assert refused.headers["Retry-After"] == str(math.ceil(settings.GRADING_BUDGET_S))


def test_a_refusal_while_the_oldest_is_graded_says_for_how_long_and_retries_after_its_budget(client, factory, course,
                                                                                           app):
    token, ids = _two_waiting(client, factory, course, app)
    run = db.session.query(GradingRun).filter_by(submission_id=ids[0]).one()
    run.status, run.started_at = Status.RUNNING.value, utcnow() - timedelta(seconds=12)
    db.session.get(Submission, ids[0]).status = Status.RUNNING.value
    db.session.commit()
    refused = upload(client, token, confirm_no_audit="1")
    assert refused.status_code == 429
    en, zh = refused.json["message"]["en"], refused.json["message"]["zh"]
    assert "attempt 1 is being graded now (for 1" in en, en
    assert "第 1 次正在评分（已 1" in zh, zh
    retry = int(refused.headers["Retry-After"])
    assert settings.GRADING_BUDGET_S - 15 <= retry <= settings.GRADING_BUDGET_S - 10


@pytest.mark.parametrize("lang, expected", [
    ("en", "the oldest, attempt 1, is next in the queue."),
    ("zh", "最早的第 1 次在队列中排在下一个。"),
])
def test_the_upload_page_says_the_same_with_retry_after(client, web, factory, course, app, lang, expected):
    _two_waiting(client, factory, course, app)
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    resp = client.post("/assignments/attention/submit",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), "confirm_no_audit": "1"},
                       content_type="multipart/form-data")
    assert resp.status_code == 429
    assert expected in resp.get_data(as_text=True)
    assert resp.headers["Retry-After"] == str(math.ceil(settings.GRADING_BUDGET_S))


def _set_run(sub_id: int, status: str, started_s_ago: float | None) -> None:
    run = db.session.query(GradingRun).filter_by(submission_id=sub_id).one()
    run.status = status
    run.started_at = utcnow() - timedelta(seconds=started_s_ago) if started_s_ago is not None else None
    db.session.get(Submission, sub_id).status = status
    db.session.commit()


def test_the_attempt_being_graded_is_named_when_an_older_one_waits_queued_again(client, factory, course, app):
    """Review of round 35: attempt 1 requeued and attempt 2 30 s into its grading gave Retry-After 840 s, read
    off the queued oldest."""
    token, ids = _two_waiting(client, factory, course, app)
    _set_run(ids[1], Status.RUNNING.value, 30)
    refused = upload(client, token, confirm_no_audit="1")
    en = refused.json["message"]["en"]
    assert "attempt 2 is being graded now (for 3" in en, en
    assert int(refused.headers["Retry-After"]) <= settings.GRADING_BUDGET_S - 25


def test_retry_after_never_grows_with_the_queue_nor_shrinks_to_nothing_for_a_stuck_run(client, factory, course, app,
                                                                                     monkeypatch):
    token, ids = _two_waiting(client, factory, course, app)
    import app.submitting as submitting

    monkeypatch.setattr(submitting, "queue_position", lambda run: 50)       # 50 runs ahead of the oldest
    refused = upload(client, token, confirm_no_audit="1")
    assert "behind 50 other submission(s)" in refused.json["message"]["en"]
    assert int(refused.headers["Retry-After"]) <= settings.GRADING_BUDGET_S
    _set_run(ids[0], Status.RUNNING.value, 7200)                             # "running" for 2 h: not reaped yet
    refused = upload(client, token, confirm_no_audit="1")
    assert int(refused.headers["Retry-After"]) == math.ceil(settings.GRADING_BUDGET_S)
