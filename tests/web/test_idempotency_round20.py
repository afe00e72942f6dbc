"""Round 20: single-run regrades and similarity checks are idempotent; keys are kept 24 hours;
grade exports open in Excel.

* POST /api/v1/submissions/<id>/regrade retried after a timeout queued a second run, and the
  similarity check started twice (a double click, a resent POST, an API retry) ran two checks of
  the whole class. Both now take an Idempotency-Key (the page: a per-render token) as uploads and
  batches do, and a second send answers the first.
* Keys never expired. They are now kept for app/idempotency.RETENTION (24 h, as Stripe): a retry
  inside it is answered, after it the key names a new request.
* The Canvas and Moodle exports had no byte-order mark, so Excel read 王小明 in the ANSI code page.
"""

from __future__ import annotations

import csv
import io
import re
import threading
from datetime import timedelta

import pytest

from app.extensions import db
from app.idempotency import RETENTION
from app.models import AnsweredRegradeKey, GradingRun, RegradeBatch, SimilarityReport, Submission, utcnow
from tests.web.test_api import bearer
from tests.web.test_uploads_round19 import send


def runs() -> int:
    db.session.expire_all()
    return db.session.query(GradingRun).count()


def reports() -> int:
    db.session.expire_all()
    return db.session.query(SimilarityReport).count()


# --- single-run regrade ------------------------------------------------------------------------


def test_a_single_regrade_retried_with_its_key_queues_one_run(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    other = web.submit(course["bob"])
    headers = bearer(web.f.token(course["teacher"])) | {"Idempotency-Key": "fix-alice-1"}
    first = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers)
    again = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.json["run_id"] == first.json["run_id"] and again.json["replayed"] is True
    assert again.headers["Idempotent-Replayed"] == "true" and first.json["replayed"] is False
    assert runs() == 3  # alice's first run and one regrade; bob's first run
    # the key names one request: another submission under it is refused, nothing queued
    reused = client.post(f"/api/v1/submissions/{other.id}/regrade", headers=headers)
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused"
    assert str(sub.id) in reused.json["message"]["en"] and "本次没有排队" in reused.json["message"]["zh"]
    bad = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers | {"Idempotency-Key": "é"})
    assert bad.status_code == 400 and bad.json["code"] == "bad_idempotency_key"
    assert runs() == 3
    # no key: a new run each time, as before; another instructor's same key is their own request
    assert client.post(f"/api/v1/submissions/{sub.id}/regrade",
                       headers=bearer(web.f.token(course["teacher"]))).status_code == 202
    assert runs() == 4


def test_a_single_regrade_sent_twice_at_the_same_moment_queues_one_run(app, client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    headers = bearer(web.f.token(course["teacher"])) | {"Idempotency-Key": "same-moment"}
    url = f"/api/v1/submissions/{sub.id}/regrade"  # read here: the threads must not touch this session
    start, answers = threading.Barrier(2), []

    def regrade() -> None:
        with app.app_context():
            start.wait()
            answers.append(app.test_client().post(url, headers=headers))

    threads = [threading.Thread(target=regrade) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [r.status_code for r in answers] == [202, 202]
    assert len({r.json["run_id"] for r in answers}) == 1 and runs() == 2


# --- similarity --------------------------------------------------------------------------------


def similarity_form(client) -> dict:
    page = client.get("/instructor/similarity").get_data(as_text=True)
    return {"form_token": re.search(r'name="form_token" value="([^"]+)"', page).group(1)}


@pytest.mark.parametrize("lang, said", [
    ("en", "This similarity check was already started as report {r}: the page was sent twice and started one check."),
    ("zh", "这次相似度检查已作为第 {r} 号报告启动：页面被发送了两次，只启动一次检查。"),
])
def test_the_similarity_page_sent_twice_starts_one_check_and_says_so(client, web, course, lang, said):
    web.submit(course["alice"])
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    form = similarity_form(client)
    first = client.post("/instructor/similarity", data=form)
    again = client.post("/instructor/similarity", data=form)
    assert first.status_code == again.status_code == 302
    assert reports() == 1
    report = db.session.query(SimilarityReport).one()
    assert said.format(r=report.id) in client.get(again.headers["Location"]).get_data(as_text=True)
    # a new page is a new decision: a new check, as before
    assert client.post("/instructor/similarity", data=similarity_form(client)).status_code == 302
    assert reports() == 2


def test_the_similarity_api_retried_with_its_key_starts_one_check(client, web, course):
    web.submit(course["alice"])
    headers = bearer(web.f.token(course["teacher"])) | {"Idempotency-Key": "sim-1"}
    first = client.post("/api/v1/similarity", json={"assignment": "attention"}, headers=headers)
    again = client.post("/api/v1/similarity", json={"assignment": "attention"}, headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.json["id"] == first.json["id"] and again.json["replayed"] is True
    assert again.headers["Idempotent-Replayed"] == "true" and reports() == 1
    bad = client.post("/api/v1/similarity", json={"assignment": "attention"},
                      headers=headers | {"Idempotency-Key": "x" * 201})
    assert bad.status_code == 400 and reports() == 1


# --- retention ---------------------------------------------------------------------------------


def _age(model, hours: float, column: str = "created_at") -> None:
    db.session.expire_all()
    for row in db.session.query(model):
        setattr(row, column, utcnow() - timedelta(hours=hours))
    db.session.commit()


@pytest.mark.parametrize("hours, new_run", [(RETENTION.total_seconds() / 3600 - 1, False),
                                            (RETENTION.total_seconds() / 3600 + 1, True)])
def test_a_regrade_key_answers_its_retries_for_24_hours_then_names_a_new_request(client, web, course,
                                                                               hours, new_run):
    sub = web.submit(course["alice"])
    web.grade(sub)
    headers = bearer(web.f.token(course["teacher"])) | {"Idempotency-Key": "nightly"}
    first = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers).json
    _age(GradingRun, hours, "queued_at")
    _age(AnsweredRegradeKey, hours)       # the key is kept there too, made with the run (round 33)
    again = client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers)
    assert again.status_code == 202 and again.json["replayed"] is (not new_run)
    assert (again.json["run_id"] != first["run_id"]) is new_run and runs() == (3 if new_run else 2)
    # the new run holds the key now: its own retry is answered
    assert client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=headers).json["run_id"] == again.json["run_id"]


@pytest.mark.parametrize("hours, new_request", [(23, False), (25, True)])
def test_batch_and_similarity_keys_expire_after_24_hours(client, web, course, hours, new_request):
    web.grade(web.submit(course["alice"]))
    teacher = bearer(web.f.token(course["teacher"])) | {"Idempotency-Key": "k-1"}
    client.post("/api/v1/regrades", json={"scope": "all"}, headers=teacher)
    client.post("/api/v1/similarity", json={"assignment": "attention"}, headers=teacher)
    _age(RegradeBatch, hours)
    _age(SimilarityReport, hours)
    batch = client.post("/api/v1/regrades", json={"scope": "all"}, headers=teacher)
    sim = client.post("/api/v1/similarity", json={"assignment": "attention"}, headers=teacher)
    assert batch.json["replayed"] is sim.json["replayed"] is (not new_request)
    db.session.expire_all()
    assert db.session.query(RegradeBatch).count() == db.session.query(SimilarityReport).count() == (
        2 if new_request else 1)


def test_an_upload_key_expires_after_24_hours(client, web, course):
    token = web.f.token(course["alice"])
    first = send(client, token, "up-1")
    assert send(client, token, "up-1").json["replayed"] is True
    _age(Submission, 23)
    assert send(client, token, "up-1").json["id"] == first.json["id"]
    _age(Submission, 25)
    later = send(client, token, "up-1")
    assert later.status_code == 202 and later.json["replayed"] is False and later.json["attempt"] == 2


# --- exports -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt_name, header", [("canvas", "Student"), ("moodle", "First name"), ("csv", "email")])
def test_every_export_opens_in_excel_with_chinese_names(client, web, course, fmt_name, header):
    web.grade(web.submit(course["alice"]))
    resp = client.get(f"/api/v1/gradebook?format={fmt_name}", headers=bearer(web.f.token(course["teacher"])))
    assert resp.data.startswith(b"\xef\xbb\xbf")  # Excel reads UTF-8 only after a byte-order mark
    rows = list(csv.reader(io.StringIO(resp.data.decode("utf-8-sig"))))
    assert rows[0][0] == header  # what an importer that strips the mark (Moodle) reads
