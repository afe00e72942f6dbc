"""Round 26: a form field or query parameter sent twice to the API is refused (400 `duplicate_field`, zh and en).

Round 24 refused a JSON key sent twice. A multipart field or a query parameter sent twice was read by
Werkzeug as its first value, silently: `assignment=lab1 ... assignment=lab2` made an attempt at lab1, and
`/api/v1/gradebook?assignment=lab1&assignment=lab2` exported lab1. Which one the client meant cannot be known."""

from __future__ import annotations

import io

import pytest
from werkzeug.datastructures import MultiDict

from app.assignments import ensure_assignment
from app.extensions import db
from app.models import Submission
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer


def refused_twice(resp, name: str) -> None:
    assert resp.status_code == 400 and resp.json["code"] == "duplicate_field", (resp.status_code, resp.json)
    message = resp.json["message"]
    assert f"'{name}'" in message["en"] and f"「{name}」" in message["zh"], message


def test_an_upload_naming_its_assignment_twice_is_refused_and_nothing_is_stored(client, factory, course):
    ensure_assignment("lab2", "Lab 2", "attention")
    db.session.commit()
    data = MultiDict([("code", (io.BytesIO(GOOD_CODE), "attention.py")),
                      ("assignment", course["assignment"].slug), ("assignment", "lab2")])
    resp = client.post("/api/v1/submissions", data=data, headers=bearer(factory.token(course["alice"])),
                       content_type="multipart/form-data")
    refused_twice(resp, "assignment")
    assert db.session.query(Submission).count() == 0


@pytest.mark.parametrize("query, name", [("assignment=attention&assignment=lab2", "assignment"),
                                         ("format=csv&format=json", "format"),
                                         ("assignment=attention&format=csv&format=canvas", "format")])
def test_a_gradebook_query_naming_a_parameter_twice_is_refused(client, factory, course, query, name):
    refused_twice(client.get(f"/api/v1/gradebook?{query}", headers=bearer(factory.token(course["teacher"]))), name)


def test_a_page_of_submissions_with_two_limits_is_refused_and_one_limit_still_answers(client, factory, course):
    headers = bearer(factory.token(course["alice"]))
    refused_twice(client.get("/api/v1/submissions?limit=1&limit=500", headers=headers), "limit")
    assert client.get("/api/v1/submissions?limit=1", headers=headers).status_code == 200
