"""The JSON API as a specification: token auth, the same rules as the pages, JSON errors."""

from __future__ import annotations

import io
from datetime import datetime, timedelta

from app.extensions import db
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes, realistic_result


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def grade_later(app, web, sub_id: int, after_s: float) -> None:
    """Play the worker in a thread: store a grade for submission ``sub_id`` after ``after_s``."""
    import threading
    import time

    def finish() -> None:
        time.sleep(after_s)
        with app.app_context():
            from app.models import Submission

            web.grade(db.session.get(Submission, sub_id))

    threading.Thread(target=finish).start()


def upload(client, token, code=GOOD_CODE, filename="attention.py", **extra):
    data = {"code": (io.BytesIO(code), filename)}
    data.update(extra)
    return client.post("/api/v1/submissions", data=data, headers=bearer(token),
                       content_type="multipart/form-data")


def test_post_submission_returns_202_queued_with_id(client, factory, course):
    token = factory.token(course["alice"])
    resp = upload(client, token, audit=(io.BytesIO(AUDIT_MD), "audit.md"), figure=(io.BytesIO(png_bytes()), "f.png"))
    assert resp.status_code == 202, resp.json
    assert resp.json["status"] == "queued"
    assert isinstance(resp.json["id"], int)
    assert resp.json["queue_position"] == 0
    got = client.get(f"/api/v1/submissions/{resp.json['id']}", headers=bearer(token)).json
    assert got["status"] == "queued" and got["attempt"] == 1 and got["result"] is None


def test_missing_or_bad_token_is_401_json(client, course):
    assert client.get("/api/v1/submissions").status_code == 401
    resp = client.get("/api/v1/submissions", headers=bearer("ag_not-a-token"))
    assert resp.status_code == 401
    assert "error" in resp.json
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.post("/api/v1/submissions", headers={"Authorization": "Basic abc"}).status_code == 401


def test_revoked_token_is_refused(client, factory, course):
    from app.models import ApiToken

    token = factory.token(course["alice"])
    row = db.session.query(ApiToken).one()
    row.revoked = True
    db.session.commit()
    assert client.get("/api/v1/submissions", headers=bearer(token)).status_code == 401


def test_code_is_required_400(client, factory, course):
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", data={}, headers=bearer(token), content_type="multipart/form-data")
    assert resp.status_code == 400
    assert resp.json["code"] == "code_missing"
    assert resp.json["message"]["zh"]


def test_wrong_code_type_is_415_and_nothing_is_stored(client, factory, course, app):
    from app.models import Blob, Submission

    token = factory.token(course["alice"])
    resp = upload(client, token, filename="attention.txt")
    assert resp.status_code == 415
    assert resp.json["error"]
    assert db.session.query(Submission).count() == 0
    assert db.session.query(Blob).count() == 0


def test_bad_figure_is_refused_and_nothing_half_stored(client, factory, course):
    from app.models import Blob, Submission

    token = factory.token(course["alice"])
    resp = upload(client, token, figure=(io.BytesIO(b"not an image"), "fig.png"))
    assert resp.status_code == 415
    assert db.session.query(Submission).count() == 0 and db.session.query(Blob).count() == 0


def test_non_utf8_code_is_422(client, factory, course):
    token = factory.token(course["alice"])
    resp = upload(client, token, code="print('注意')".encode("gb18030"))
    assert resp.status_code == 422
    assert "UTF-8" in resp.json["error"]


def test_upload_larger_than_limit_is_413_json(client, factory, course, app):
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    token = factory.token(course["alice"])
    resp = upload(client, token, code=b"x = 1\n" * 40000)
    assert resp.status_code == 413
    assert "error" in resp.json


def test_past_deadline_is_403(client, factory, course):
    a = course["assignment"]
    a.deadline = datetime(2020, 1, 1)
    db.session.commit()
    token = factory.token(course["alice"])
    resp = upload(client, token)
    assert resp.status_code == 403
    assert resp.json["code"] == "deadline_passed"


def test_too_many_pending_is_429(client, factory, course, app):
    app.config["MAX_PENDING_PER_STUDENT"] = 1
    token = factory.token(course["alice"])
    assert upload(client, token).status_code == 202
    resp = upload(client, token)
    assert resp.status_code == 429
    assert resp.json["code"] == "too_many_pending"


def test_cooldown_is_429_with_retry_after(client, factory, course):
    a = course["assignment"]
    a.cooldown_seconds = 600
    db.session.commit()
    token = factory.token(course["alice"])
    assert upload(client, token).status_code == 202
    resp = upload(client, token)
    assert resp.status_code == 429 and resp.json["code"] == "cooldown"
    assert resp.json["message"]["zh"] and 590 <= int(resp.headers["Retry-After"]) <= 600


def test_unknown_assignment_slug_is_404(client, factory, course):
    token = factory.token(course["alice"])
    assert upload(client, token, assignment="nope").status_code == 404


def test_student_view_strips_hidden_feedback_and_log(client, factory, course, web):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result())
    token = factory.token(course["alice"])
    body = client.get(f"/api/v1/submissions/{sub.id}", headers=bearer(token)).json
    assert body["status"] == "graded" and body["queue_position"] is None
    result = body["result"]
    assert "log" not in result
    hidden = [t for t in result["tests"] if t["hidden"]]
    assert hidden and all(t["feedback"] is None for t in hidden)
    assert all(t["outcome"] for t in hidden)
    visible = [t for t in result["tests"] if not t["hidden"]]
    assert any(t["feedback"] for t in visible)
    assert "SECRET" not in str(body)
    assert body["score"]["total"] == 96


def test_instructor_api_sees_full_result(client, factory, course, web):
    sub = web.submit(course["alice"])
    web.grade(sub)
    token = factory.token(course["teacher"])
    body = client.get(f"/api/v1/submissions/{sub.id}", headers=bearer(token)).json
    assert "SECRET" in str(body["result"]) and body["result"]["log"]


def test_other_students_submission_is_404_not_403(client, factory, course, web):
    sub = web.submit(course["alice"])
    token = factory.token(course["bob"])
    resp = client.get(f"/api/v1/submissions/{sub.id}", headers=bearer(token))
    assert resp.status_code == 404
    assert client.get("/api/v1/submissions/999999", headers=bearer(token)).status_code == 404


def test_list_shows_only_own_submissions(client, factory, course, web):
    web.submit(course["alice"])
    mine = web.submit(course["bob"])
    token = factory.token(course["bob"])
    items = client.get("/api/v1/submissions", headers=bearer(token)).json["submissions"]
    assert [i["id"] for i in items] == [mine.id]


def test_queue_position_counts_runs_queued_before(client, factory, course, web):
    s1 = web.submit(course["alice"])
    s2 = web.submit(course["bob"], now=s1.created_at + timedelta(seconds=1))
    token = factory.token(course["bob"])
    assert client.get(f"/api/v1/submissions/{s2.id}", headers=bearer(token)).json["queue_position"] == 1
    web.grade(s1)
    assert client.get(f"/api/v1/submissions/{s2.id}", headers=bearer(token)).json["queue_position"] == 0


def test_regrade_is_instructor_only(client, factory, course, web):
    sub = web.submit(course["alice"])
    web.grade(sub)
    student_token = factory.token(course["alice"])
    assert client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=bearer(student_token)).status_code == 403
    teacher = factory.token(course["teacher"])
    resp = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=bearer(teacher))
    assert resp.status_code == 202 and resp.json["status"] == "queued"
    db.session.expire_all()
    assert len(sub.runs) == 2 and sub.runs[0].status == "graded"
    assert client.post("/api/v1/submissions/99999/regrade", headers=bearer(teacher)).status_code == 404


def test_gradebook_is_instructor_only_and_has_csv(client, factory, course, web):
    sub = web.submit(course["alice"])
    web.grade(sub)
    assert client.get("/api/v1/gradebook", headers=bearer(factory.token(course["alice"]))).status_code == 403
    teacher = factory.token(course["teacher"])
    body = client.get("/api/v1/gradebook", headers=bearer(teacher)).json
    alice = next(s for s in body["students"] if s["email"] == "alice@example.edu")
    assert alice["score"] == 96 and alice["attempts"] == 1
    csv = client.get("/api/v1/gradebook?format=csv", headers=bearer(teacher))
    assert csv.status_code == 200 and csv.mimetype == "text/csv"
    assert csv.data.startswith("\ufeff".encode())


def test_openapi_document_and_docs_page(client):
    spec = client.get("/api/v1/openapi.json").json
    assert spec["openapi"].startswith("3.")
    assert {"/submissions", "/submissions/{id}", "/submissions/{id}/regrade", "/gradebook"} <= set(spec["paths"])
    assert client.get("/api/v1/docs").status_code == 200


def test_api_submission_rate_limit(limited_app, factory, course):
    client = limited_app.test_client()
    token = factory.token(course["alice"])
    codes = [upload(client, token).status_code for _ in range(3)]
    assert codes == [202, 202, 429]
    refused = upload(client, token)
    assert refused.json["code"] == "too_many_requests"
    assert refused.json["message"]["zh"] and refused.json["message"]["en"]
    assert 0 < int(refused.headers["Retry-After"]) <= 60


def test_get_with_wait_long_polls_until_the_run_is_stored(app, web, factory):
    """`?wait=S` answers as soon as grading ends (here: a thread playing the worker after 0.5 s)."""
    import time

    student = factory.student()
    token = factory.token(student)
    sub_id = web.submit(student).id
    grade_later(app, web, sub_id, 0.5)
    client = app.test_client()
    t0 = time.monotonic()
    res = client.get(f"/api/v1/submissions/{sub_id}?wait=5", headers={"Authorization": f"Bearer {token}"})
    waited = time.monotonic() - t0
    assert res.status_code == 200 and res.get_json()["status"] == "graded"
    assert 0.4 < waited < 2.0
    bad = client.get(f"/api/v1/submissions/{sub_id}?wait=soon", headers={"Authorization": f"Bearer {token}"})
    assert bad.status_code == 400


def _statements_of_this_thread(app):
    """A list that collects the SQL statements the calling thread sends (listener attached)."""
    import threading

    from sqlalchemy import event

    me, seen = threading.get_ident(), []

    def on(conn, cursor, statement, params, context, executemany):
        if threading.get_ident() == me:
            seen.append(statement)

    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", on)
    return seen


def test_long_poll_reads_no_status_while_waiting_and_wakes_on_the_notification(app, web, factory):
    """On PostgreSQL a waiting request is woken by the grading's NOTIFY (migration 0008): while it
    waits it sends no query (before: a status read every 100 ms), and it still answers at once."""
    import time

    student = factory.student()
    token = factory.token(student)
    sub_id = web.submit(student).id
    client = app.test_client()
    client.get(f"/api/v1/submissions/{sub_id}?wait=0.3", headers=bearer(token))  # listener started

    seen = _statements_of_this_thread(app)
    grade_later(app, web, sub_id, 1.5)
    t0 = time.monotonic()
    res = client.get(f"/api/v1/submissions/{sub_id}?wait=5", headers=bearer(token))
    waited = time.monotonic() - t0
    assert res.status_code == 200 and res.get_json()["status"] == "graded"
    assert 1.4 < waited < 2.5
    status_reads = [s for s in seen if s.startswith("SELECT submissions.status")]
    assert len(status_reads) <= 1, status_reads  # 100 ms polling would have read it ~15 times
    assert len(seen) <= 8, "\n".join(s[:70] for s in seen)


def test_long_poll_answers_when_the_grading_ends_between_its_read_and_its_wait(app, web, factory):
    """A grading stored just after the request read the status (before it parked) is not missed:
    the notification is remembered, and the wait returns at once."""
    import time

    from app.longpoll import final_listener

    student = factory.student()
    sub_id = web.submit(student).id
    with app.app_context():
        from app.models import Submission

        listener = final_listener(db.engine)
        assert listener is not None
        since = time.monotonic()
        # The listener must be up before `since` counts: a first wait starts it.
        listener.wait_final(sub_id, since, time.monotonic() + 0.3, lambda: False)
        since = time.monotonic()
        web.grade(db.session.get(Submission, sub_id))
        time.sleep(0.3)  # the notification arrives before the wait starts
        t0 = time.monotonic()
        reads = []
        assert listener.wait_final(sub_id, since, time.monotonic() + 5, lambda: reads.append(1) or False)
        assert time.monotonic() - t0 < 0.5 and reads == []


def test_long_poll_without_a_listener_polls_the_status(app, web, factory, monkeypatch):
    """Where there are no notifications (SQLite; here: the listener switched off) the wait reads
    the status every 100 ms and still answers as soon as grading ends."""
    import time

    import app.api as api

    monkeypatch.setattr(api, "final_listener", lambda engine: None)
    student = factory.student()
    token = factory.token(student)
    sub_id = web.submit(student).id

    grade_later(app, web, sub_id, 0.5)
    t0 = time.monotonic()
    res = app.test_client().get(f"/api/v1/submissions/{sub_id}?wait=5", headers=bearer(token))
    assert res.get_json()["status"] == "graded" and 0.4 < time.monotonic() - t0 < 2.0


def test_api_requests_write_the_tokens_last_use_at_most_once_a_minute(client, factory, course):
    """Every API request used to UPDATE and commit the token's row; "last used" is now kept to
    the minute: the first request writes it, the next ones within the minute do not."""
    from app.models import ApiToken

    token = factory.token(course["alice"])
    seen = _statements_of_this_thread(client.application)
    for _ in range(3):
        assert client.get("/api/v1/submissions", headers=bearer(token)).status_code == 200
    updates = [s for s in seen if s.startswith("UPDATE api_tokens")]
    assert len(updates) == 1
    db.session.expire_all()
    used = db.session.query(ApiToken).one().last_used_at
    assert used is not None
    row = db.session.query(ApiToken).one()
    row.last_used_at = used - timedelta(minutes=2)
    db.session.commit()
    assert client.get("/api/v1/submissions", headers=bearer(token)).status_code == 200
    db.session.expire_all()
    assert db.session.query(ApiToken).one().last_used_at > used - timedelta(minutes=1)


def test_upload_answers_without_loading_the_stored_blob_or_reloading_the_rows(client, factory, course):
    """An upload of code the database already holds does not read the blob's bytes back, and the
    answer is built from the rows just written (no reload after the commit)."""
    token = factory.token(course["alice"])
    first = upload(client, token)
    assert first.status_code == 202
    seen = _statements_of_this_thread(client.application)
    second = upload(client, token)
    assert second.status_code == 202 and second.json["attempt"] == 2
    assert [s for s in seen if "blobs" in s] == [
        "SELECT blobs.data IS NULL AS anon_1 \nFROM blobs \nWHERE blobs.sha256 = %(sha256_1)s::VARCHAR"]
    assert not [s for s in seen if s.startswith("SELECT submissions.id")], seen  # no reload
    assert len(seen) <= 12, "\n".join(s[:70] for s in seen)
