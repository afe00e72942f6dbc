"""Round 21: the API's request bodies are read as sent, or refused; never guessed.

* A JSON body the views could not read was taken as `{}`: sent form-encoded, as text/plain, as
  malformed JSON, or with a misspelt field (`"assignmnet"`), `POST /api/v1/similarity` started a
  report on the default assignment instead of the one named (202), and a regrade or an extension
  fell back to it too.
* A field of the wrong type reached the database: `"assignment": {}` and `"student": [..]` were
  500s, `"submission": true` was read as "no submission True", `"extra_days": true` as 1 day.
* A JSON array nested 200,000 deep was a 500 (RecursionError in the parser).
* A misspelt file field of an upload (`audti=@audit.md`) was dropped without a word: the attempt
  was graded without its audit, which carries 15 points; JSON sent to the upload said "attention.py
  is required".

Each is now a 400/413/415 naming the field or the content type, in both languages, with nothing done.
"""

from __future__ import annotations

import io
import json

import pytest

from app.extensions import db
from app.models import Extension, RegradeBatch, SimilarityReport, Submission
from tests.web.helpers import AUDIT_MD, GOOD_CODE
from tests.web.test_api import bearer


def count(model) -> int:
    db.session.expire_all()
    return db.session.query(model).count()


@pytest.fixture
def teacher(factory, course) -> dict:
    return bearer(factory.token(course["teacher"]))


def refused(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.get_data(as_text=True)[:300]
    body = resp.json
    assert body["code"] == code
    assert body["message"]["en"] and body["message"]["zh"] and body["message"]["en"] != body["message"]["zh"]
    return body


# --- the body's content type and syntax ------------------------------------------------------------

@pytest.mark.parametrize("how", ["form", "text/plain", "no content type"])
def test_a_similarity_request_not_sent_as_json_starts_nothing_and_names_the_content_type(client, teacher, how):
    payload = json.dumps({"assignment": "another-course"})
    if how == "form":
        resp = client.post("/api/v1/similarity", data={"assignment": "another-course"}, headers=teacher)
    elif how == "text/plain":
        resp = client.post("/api/v1/similarity", data=payload, headers=teacher | {"Content-Type": "text/plain"})
    else:
        resp = client.post("/api/v1/similarity", data=payload.encode(), headers=teacher)
    body = refused(resp, 415, "unsupported_media_type")
    assert "application/json" in body["message"]["en"] and "application/json" in body["message"]["zh"]
    assert count(SimilarityReport) == 0


@pytest.mark.parametrize("raw", ["{", "{'assignment': 'attention'}", '{"scope": "all",}'])
def test_malformed_json_is_400_bad_json_and_queues_no_regrade(client, teacher, raw):
    resp = client.post("/api/v1/regrades", data=raw, headers=teacher | {"Content-Type": "application/json"})
    refused(resp, 400, "bad_json")
    assert count(RegradeBatch) == 0


@pytest.mark.parametrize("raw", ['["all"]', '"all"', "42", "null"])
def test_a_json_body_that_is_not_an_object_is_400(client, teacher, raw):
    resp = client.post("/api/v1/regrades", data=raw, headers=teacher | {"Content-Type": "application/json"})
    refused(resp, 400, "bad_json")
    assert count(RegradeBatch) == 0


def test_json_nested_thousands_deep_is_refused_without_a_server_error(client, teacher, app):
    app.config["PROPAGATE_EXCEPTIONS"] = False  # a 500 is answered as a real server would
    deep = "[" * 5000 + "]" * 5000  # within the size bound; past the parser's recursion limit
    resp = client.post("/api/v1/regrades", data=deep, headers=teacher | {"Content-Type": "application/json"})
    body = refused(resp, 400, "bad_json")
    assert "deep" in body["message"]["en"]


def test_a_json_body_past_16_kib_is_413_before_it_is_parsed(client, teacher):
    big = json.dumps({"scope": "all", "assignment": "x" * 20_000})
    resp = client.post("/api/v1/regrades", data=big, headers=teacher | {"Content-Type": "application/json"})
    refused(resp, 413, "body_too_large")
    assert count(RegradeBatch) == 0


def test_an_empty_body_still_means_the_default_assignment(client, teacher):
    # POST /api/v1/similarity with no body at all is documented (assignment optional): kept.
    assert client.post("/api/v1/similarity", headers=teacher).status_code == 202
    assert count(SimilarityReport) == 1


# --- fields ------------------------------------------------------------------------------------------

def test_a_misspelt_field_is_refused_with_its_name_and_the_fields_taken(client, teacher):
    resp = client.post("/api/v1/similarity", json={"assignmnet": "another-course"}, headers=teacher)
    body = refused(resp, 400, "unknown_field")
    assert "'assignmnet'" in body["message"]["en"] and "assignment" in body["message"]["en"]
    assert "'assignmnet'" in body["message"]["zh"]
    assert count(SimilarityReport) == 0


@pytest.mark.parametrize("path,body,field", [
    ("/api/v1/similarity", {"assignment": {"slug": "attention"}}, "assignment"),
    ("/api/v1/similarity", {"assignment": ["attention"]}, "assignment"),
    ("/api/v1/regrades", {"scope": "student", "student": ["alice@example.edu"]}, "student"),
    ("/api/v1/regrades", {"scope": "submission", "submission": True}, "submission"),
    ("/api/v1/regrades", {"scope": "submission", "submission": "1"}, "submission"),
    ("/api/v1/regrades", {"scope": "submission", "submission": 10 ** 30}, "submission"),
    ("/api/v1/regrades", {"scope": 3}, "scope"),
    ("/api/v1/extensions", {"student": "alice@example.edu", "extra_days": True}, "extra_days"),
    ("/api/v1/extensions", {"student": "alice@example.edu", "extra_days": 1.5}, "extra_days"),
    ("/api/v1/extensions", {"student": "alice@example.edu", "deadline": 20261231}, "deadline"),
])
def test_a_field_of_the_wrong_type_is_400_naming_it_and_nothing_is_done(client, teacher, app, path, body, field):
    app.config["PROPAGATE_EXCEPTIONS"] = False
    resp = client.post(path, json=body, headers=teacher)
    message = refused(resp, 400, "bad_field")["message"]
    assert f"'{field}'" in message["en"] and f"「{field}」" in message["zh"]
    assert count(SimilarityReport) == count(RegradeBatch) == count(Extension) == 0


def test_null_for_an_optional_field_is_taken_as_absent(client, teacher, course):
    resp = client.post("/api/v1/extensions", json={"assignment": None, "student": course["alice"].email,
                                                   "extra_days": 2, "deadline": None, "reason": None},
                       headers=teacher)
    assert resp.status_code == 201, resp.json
    assert resp.json["extra_days"] == 2


# --- the upload ----------------------------------------------------------------------------------------

def test_an_upload_with_a_misspelt_audit_field_is_refused_not_graded_without_its_audit(client, factory, course):
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", headers=bearer(token), content_type="multipart/form-data",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py"),
                             "audti": (io.BytesIO(AUDIT_MD), "audit.md")})
    body = refused(resp, 400, "unknown_field")
    assert "'audti'" in body["message"]["en"] and "audit" in body["message"]["en"]
    assert count(Submission) == 0


def test_an_upload_sent_as_json_is_415_saying_to_send_files(client, factory, course):
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", json={"code": GOOD_CODE.decode()}, headers=bearer(token))
    body = refused(resp, 415, "unsupported_media_type")
    assert "multipart/form-data" in body["message"]["en"] and "code=@attention.py" in body["message"]["zh"]
    assert count(Submission) == 0


def test_every_documented_upload_field_is_still_taken(client, factory, course):
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", headers=bearer(token), content_type="multipart/form-data",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), "assignment": "attention",
                             "remove_audit": "1", "remove_figure": "1"})
    assert resp.status_code == 202, resp.json


@pytest.mark.parametrize("field, status", [("confirm_no_audit", 202), ("confirm_no_audti", 400)])
def test_the_upload_pages_confirmation_field_is_taken_and_ignored_a_misspelling_of_it_is_not(client, factory, course,
                                                                                             field, status):
    # Scripts that copy the upload page's form send its confirmation too (a CI run's storage test did).
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", headers=bearer(token), content_type="multipart/form-data",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), field: "1"})
    assert resp.status_code == status, resp.json
    assert count(Submission) == (1 if status == 202 else 0)
