"""Round 33: a keyed single regrade answered with an attempt's waiting first grading keeps its key.

POST /api/v1/submissions/<id>/regrade for an attempt still waiting for its first grading answers
that run and queues none (round 31), but did not store the request's Idempotency-Key. A retry with
the same key once the first grading had started (a script that timed out at the deadline) found no
earlier request and queued a regrade run: another answer to the same request, and the attempt
graded twice when workers are scarcest. Now every such key answers the same run, also when several
requests with their own keys met the one waiting run, and forgets it after RETENTION as every key.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun, utcnow
from tests.web.test_api import bearer


def _runs_of(submission_id: int) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count(GradingRun.id)).where(GradingRun.submission_id == submission_id))


@pytest.fixture
def waiting(web, course):
    return web.submit(course["bob"], audit=False, figure=False)


def _regrade(client, sub, headers, key):
    resp = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers | {"Idempotency-Key": key})
    assert resp.status_code == 202, resp.json
    return resp


def test_a_retry_after_the_first_grading_started_gets_the_same_run(client, web, course, waiting):
    headers = bearer(web.f.token(course["teacher"]))
    first = _regrade(client, waiting, headers, "deadline-1")
    assert first.json["already_waiting"] is True and first.json["replayed"] is False
    web.grade(waiting)  # the first grading ran meanwhile
    retry = _regrade(client, waiting, headers, "deadline-1")
    assert retry.json["run_id"] == first.json["run_id"]
    assert retry.json["replayed"] is True and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.json["already_waiting"] is True and _runs_of(waiting.id) == 1
    # the answer says what happened, not that the attempt still waits
    message = retry.json["message"]
    assert "still waiting for its first grading:" not in message["en"] and "仍在等待第一次评分：" not in message["zh"]
    assert "new Idempotency-Key" in message["en"] and "新的 Idempotency-Key" in message["zh"]


def test_every_key_that_met_the_waiting_run_gets_it_again(client, web, course, waiting):
    headers = bearer(web.f.token(course["teacher"]))
    run_ids = {_regrade(client, waiting, headers, key).json["run_id"] for key in ("a", "b", "a")}
    assert len(run_ids) == 1
    web.grade(waiting)
    assert {_regrade(client, waiting, headers, key).json["run_id"] for key in ("a", "b")} == run_ids
    assert _runs_of(waiting.id) == 1
    # a new key is a new request: the graded attempt is regraded
    fresh = _regrade(client, waiting, headers, "c")
    assert fresh.json["run_id"] not in run_ids and fresh.json["already_waiting"] is False
    assert _runs_of(waiting.id) == 2


def test_the_key_of_a_waiting_answer_names_no_other_submission(client, web, course, waiting):
    headers = bearer(web.f.token(course["teacher"]))
    _regrade(client, waiting, headers, "one-key")
    other = web.submit(course["alice"], audit=False, figure=False)
    web.grade(other)
    resp = client.post(f"/api/v1/submissions/{other.id}/regrade", headers=headers | {"Idempotency-Key": "one-key"})
    assert resp.status_code == 422 and resp.json["code"] == "idempotency_key_reused"
    assert _runs_of(other.id) == 1


def test_a_waiting_answer_key_is_forgotten_after_retention(client, web, course, waiting):
    from app.idempotency import RETENTION, purge

    headers = bearer(web.f.token(course["teacher"]))
    _regrade(client, waiting, headers, "old-key")
    assert purge(now=utcnow() + RETENTION + timedelta(minutes=1))["answered_regrade_keys"] == 1
    web.grade(waiting)
    again = _regrade(client, waiting, headers, "old-key")
    assert again.json["replayed"] is False and again.json["already_waiting"] is False


def test_a_key_answered_with_the_waiting_run_cannot_also_queue_a_run_in_a_race(web, course, waiting):
    # Request A met the waiting run; request B, with the same key, looked for an earlier answer before A
    # committed and reached the queuing branch after the first grading started. Both committed: two
    # answers to one key. The queuing branch now stores the key where A's is, and B's commit fails.
    from sqlalchemy.exc import IntegrityError

    from app.regrading import request_regrade

    assert request_regrade(waiting, key="race").trigger == "submit"
    web.grade(waiting)
    with pytest.raises(IntegrityError):
        request_regrade(waiting, key="race")
    db.session.rollback()
    assert _runs_of(waiting.id) == 1
