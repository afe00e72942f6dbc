"""Round 24: an API upload whose multipart body cannot be read says so, instead of "attention.py is required".

A script that sets `Content-Type: multipart/form-data` by hand (requests with files= and that header)
sends no boundary: Werkzeug reads no part, and the answer (400 code_missing, "attention.py is
required") sent the student looking for a file they had sent. A body whose parts do not use the
boundary the header names is the same case. Both are now 400 with what to do, in zh and en."""

from __future__ import annotations

import pytest

from app.models import Submission
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer

BODY = (b'--xyz\r\nContent-Disposition: form-data; name="code"; filename="attention.py"\r\n'
        b"Content-Type: text/x-python\r\n\r\n" + (GOOD_CODE if isinstance(GOOD_CODE, bytes) else GOOD_CODE.encode())
        + b"\r\n--xyz--\r\n")


@pytest.mark.parametrize("content_type, code, words", [
    ("multipart/form-data", "no_boundary", "Do not set Content-Type yourself"),
    ("multipart/form-data; charset=utf-8", "no_boundary", "Do not set Content-Type yourself"),
    ("multipart/form-data; boundary=other", "unreadable_multipart", "No field or file could be read"),
])
def test_an_upload_whose_parts_cannot_be_read_says_why_and_saves_nothing(client, factory, course, app,
                                                                         content_type, code, words):
    resp = client.post("/api/v1/submissions", data=BODY,
                       headers={**bearer(factory.token(course["alice"])), "Content-Type": content_type})
    assert resp.status_code == 400, resp.json
    assert resp.json["code"] == code and words in resp.json["message"]["en"]
    assert "boundary" in resp.json["message"]["zh"] and "没有保存任何内容" in resp.json["message"]["zh"]
    assert Submission.query.count() == 0


def test_the_same_body_with_its_boundary_is_taken(client, factory, course):
    resp = client.post("/api/v1/submissions", data=BODY,
                       headers={**bearer(factory.token(course["alice"])), "Content-Type": "multipart/form-data; boundary=xyz"})
    assert resp.status_code == 202, resp.json


def test_an_upload_with_no_file_at_all_still_says_the_code_is_required(client, factory, course):
    resp = client.post("/api/v1/submissions", data={"assignment": "attention"},
                       headers=bearer(factory.token(course["alice"])), content_type="multipart/form-data")
    assert resp.status_code == 400 and resp.json["code"] == "code_missing"
