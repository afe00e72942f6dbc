"""Round 36: `?wait=S` with If-None-Match waits for a change of the answer, not only for a first grading's end.

Before, a wait ended at once when the status was final: a script following a graded attempt could not wait for
an instructor's regrade and had to poll with If-None-Match. Now, with the ETag of the answer it holds, the wait
lasts while that tag is current: a regrade queued, its new result, an override end it (200, the new answer);
nothing changing for S seconds answers 304."""

from __future__ import annotations

import threading
import time

import pytest

import app.api as api
from app.extensions import db
from app.models import Submission
from app.regrading import request_regrade
from tests.web.test_api import bearer

# seconds each: the fast lane stays under 10 minutes (stop 41)
pytestmark = pytest.mark.slow


def _poll_in_thread(app, sub_id: int, token: str, wait: float, tag: str) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def poll() -> None:
        t0 = time.monotonic()
        res = app.test_client().get(f"/api/v1/submissions/{sub_id}?wait={wait}",
                                    headers={**bearer(token), "If-None-Match": tag})
        out.update(status=res.status_code, body=res.get_json(silent=True), etag=res.headers.get("ETag"),
                   took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    return thread, out


@pytest.mark.parametrize("listened", [True, False], ids=["notified_wait", "polling_wait"])
def test_a_wait_with_the_current_tag_ends_when_a_regrade_changes_a_graded_answer(app, client, web, factory,
                                                                                 monkeypatch, listened):
    if not listened:
        monkeypatch.setattr(api, "final_listener", lambda engine: None)
    student = factory.student()
    token = factory.token(student)
    sub = web.submit(student)
    web.grade(sub)
    first = client.get(f"/api/v1/submissions/{sub.id}", headers=bearer(token))
    assert first.json["status"] == "graded"
    tag, graded_run = first.headers["ETag"], first.json["graded_run_id"]

    thread, out = _poll_in_thread(app, sub.id, token, 10, tag)
    time.sleep(1.0)
    assert thread.is_alive() and not out, "a wait with the current tag of a graded attempt ended at once"
    run = request_regrade(db.session.get(Submission, sub.id))
    thread.join(5)
    assert not thread.is_alive()
    assert out["status"] == 200 and out["body"]["status"] == "queued" and out["etag"] != tag

    thread, out2 = _poll_in_thread(app, sub.id, token, 10, out["etag"])
    time.sleep(0.5)
    assert thread.is_alive() and not out2
    web.grade(db.session.get(Submission, sub.id), run=run)
    thread.join(5)
    assert out2["status"] == 200 and out2["body"]["status"] == "graded"
    assert out2["body"]["graded_run_id"] == run.id != graded_run


def test_a_wait_with_the_current_tag_and_no_change_is_a_304_after_its_seconds(app, web, factory):
    student = factory.student()
    token = factory.token(student)
    sub = web.submit(student)
    web.grade(sub)
    tag = app.test_client().get(f"/api/v1/submissions/{sub.id}", headers=bearer(token)).headers["ETag"]
    thread, out = _poll_in_thread(app, sub.id, token, 1.5, tag)
    thread.join(6)
    assert out["status"] == 304 and out["etag"] == tag and 1.4 <= out["took"] < 4


def test_a_wait_with_a_stale_tag_answers_at_once(app, web, factory):
    student = factory.student()
    token = factory.token(student)
    sub = web.submit(student)
    web.grade(sub)
    thread, out = _poll_in_thread(app, sub.id, token, 10, '"stale"')
    thread.join(6)
    assert out["status"] == 200 and out["body"]["status"] == "graded" and out["took"] < 1.5


def test_the_description_says_a_wait_with_if_none_match_waits_for_a_change(client):
    get = client.get("/api/v1/openapi.json").json["paths"]["/submissions/{id}"]["get"]
    wait = next(p for p in get["parameters"] if p["name"] == "wait")
    assert "If-None-Match" in wait["description"] and "304" in wait["description"]
