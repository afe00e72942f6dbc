"""The pending cap counts the attempts a student is waiting on, not the runs an instructor's regrade
queued. A regrade of every attempt (after fixing a test, often just before a deadline) set each
attempt back to 'queued', and a student with 3 graded attempts was refused their next upload
(429 "You already have 3 attempt(s) waiting to be graded") until the regrade had run."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.web.test_api import bearer, upload


def _graded_attempts(web, student, n):
    subs = []
    for _ in range(n):
        sub = web.submit(student, audit=False, figure=False,
                         now=(subs[-1].created_at + timedelta(minutes=1)) if subs else None)
        web.grade(sub)
        subs.append(sub)
    return subs


@pytest.mark.parametrize("scope", ["all", "student"])
def test_a_regrade_of_a_students_attempts_does_not_block_their_next_upload(client, factory, web, course, app,
                                                                           scope):
    app.config["MAX_PENDING_PER_STUDENT"] = 3
    _graded_attempts(web, course["alice"], 3)
    teacher = bearer(factory.token(course["teacher"]))
    body = {"scope": scope} | ({"student": "alice@example.edu"} if scope == "student" else {})
    queued = client.post("/api/v1/regrades", json=body, headers=teacher)
    assert queued.status_code == 202 and queued.json["runs_queued"] == 3
    resp = upload(client, factory.token(course["alice"]), confirm_no_audit="1")
    assert resp.status_code == 202, resp.json


def test_the_cap_still_counts_the_students_own_waiting_uploads(client, factory, web, course, app):
    app.config["MAX_PENDING_PER_STUDENT"] = 2
    token = factory.token(course["alice"])
    assert upload(client, token).status_code == 202
    assert upload(client, token).status_code == 202
    refused = upload(client, token)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_pending"
