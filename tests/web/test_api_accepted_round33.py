"""Round 33: an API refusal of a value outside a fixed set says, in each language, what each value
does, and lists the values for a program in "accepted".

The answers listed the accepted values as bare codes, the Chinese text too: "scope 必须是以下之一：
counting, all, student, submission" told a reader neither what "counting" regrades nor which one to
pick, and a misspelt field was answered "此请求接受的字段为 assignment"; a client had to parse the
sentence to find the values. Now each value is quoted exactly as it is sent, followed by what it does
(en and zh), and the body carries "accepted": the values (or field names) as a list.
"""

from __future__ import annotations

import re

import pytest

from app.openapi import spec
from tests.web.test_api import bearer

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def teacher(factory, course) -> dict:
    return bearer(factory.token(course["teacher"]))


def _explained(body: dict) -> None:
    """Every accepted value is quoted as sent and followed by a description in the message's language."""
    en, zh = body["message"]["en"], body["message"]["zh"]
    for value in body["accepted"]:
        after_en = re.search(re.escape(f"'{value}' (") + r"([^)]*)\)", en)
        after_zh = re.search(re.escape(f"'{value}'（") + r"([^）]*)）", zh)
        assert after_en and re.search(r"[a-z]{3,} [a-z]{3,}", after_en.group(1)), (value, en)
        assert after_zh and CJK.search(after_zh.group(1)), (value, zh)
    assert body["error"] == en


def _enum(path: str, method: str, name: str) -> list[str]:
    op = spec()["paths"][path][method]
    if name in [p["name"] for p in op.get("parameters", [])]:
        return next(p for p in op["parameters"] if p["name"] == name)["schema"]["enum"]
    return op["requestBody"]["content"]["application/json"]["schema"]["properties"][name]["enum"]


@pytest.mark.parametrize("scope", ["everyone", None])
def test_a_regrade_scope_not_taken_is_explained_in_both_languages_and_listed(client, teacher, scope):
    body = {"scope": scope} if scope else {}
    resp = client.post("/api/v1/regrades", json=body, headers=teacher)
    assert resp.status_code == 400 and resp.json["code"] == "bad_scope"
    assert resp.json["accepted"] == _enum("/regrades", "post", "scope")
    _explained(resp.json)
    if scope is None:
        assert "none was sent" in resp.json["message"]["en"] and "没有发送" in resp.json["message"]["zh"]
    else:
        assert "'everyone'" in resp.json["message"]["en"] and "'everyone'" in resp.json["message"]["zh"]


def test_a_gradebook_format_not_taken_is_explained_in_both_languages_and_listed(client, teacher):
    resp = client.get("/api/v1/gradebook?format=ods", headers=teacher)
    assert resp.status_code == 400 and resp.json["code"] == "bad_format"
    assert resp.json["accepted"] == _enum("/gradebook", "get", "format")
    _explained(resp.json)


def test_an_unknown_field_lists_the_fields_taken_quoted_and_for_a_program(client, teacher):
    resp = client.post("/api/v1/regrades", json={"scope": "all", "scoep": "all"}, headers=teacher)
    assert resp.status_code == 400 and resp.json["code"] == "unknown_field"
    fields = list(spec()["paths"]["/regrades"]["post"]["requestBody"]["content"]["application/json"]["schema"]
                  ["properties"])
    assert resp.json["accepted"] == fields
    zh = resp.json["message"]["zh"]
    assert all(f"「{name}」" in zh for name in fields) and "、".join(f"「{n}」" for n in fields) in zh
    assert all(f"'{name}'" in resp.json["message"]["en"] for name in fields)


def test_errors_about_no_fixed_set_carry_no_accepted_list(client, teacher):
    resp = client.get("/api/v1/submissions?limit=0", headers=teacher)
    assert resp.status_code == 400 and resp.json["code"] == "bad_limit" and "accepted" not in resp.json


def test_the_documented_error_shape_names_the_accepted_list():
    props = spec()["components"]["schemas"]["Error"]["properties"]
    assert props["accepted"]["type"] == "array"


def test_an_unknown_assignment_lists_the_ones_the_user_may_name(client, teacher, factory, course):
    from app.assignments import ensure_assignment
    from app.extensions import db

    hidden = ensure_assignment("draft-lab", "Draft lab", "attention")
    hidden.published = False
    db.session.commit()
    resp = client.get("/api/v1/gradebook?assignment=lab1", headers=teacher)
    assert resp.status_code == 404 and resp.json["code"] == "assignment_not_found"
    assert resp.json["accepted"] == ["attention", "draft-lab"]   # an instructor may name a draft
    assert "'draft-lab' ('Draft lab')" in resp.json["message"]["en"] and "'draft-lab'（'Draft lab'）" in \
        resp.json["message"]["zh"]
    student = bearer(factory.token(course["alice"]))
    resp = client.post("/api/v1/submissions", data={"assignment": "lab1"}, headers=student)
    assert resp.status_code == 404 and resp.json["accepted"] == ["attention"]   # a student: published ones only
    assert "draft" not in resp.get_data(as_text=True)
