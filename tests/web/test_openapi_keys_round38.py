"""Every key the API answers is in the OpenAPI text (round 38, brief F item 2). `left_out` was missed because
each earlier check looked for the one field its round added (graded_run_id, renamed, accepted): a new field
was documented only when its author remembered to. This test reads real answers of every documented
endpoint, one of each outcome, and walks each through the schema of its status."""

from __future__ import annotations

import io
from typing import Any

from app.extensions import db
from app.models import SimilarityReport
from app.openapi import spec
from tests.web.helpers import GOOD_CODE, realistic_result


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _resolve(schema: dict, doc: dict) -> dict:
    while "$ref" in schema:
        node: Any = doc
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def undocumented(body: Any, schema: dict | None, doc: dict, where: str = "$") -> list[str]:
    """The places of `body` its schema does not describe: an object key not in `properties` (unless
    `additionalProperties` takes it), an object or array whose schema names no keys or items."""
    if schema is None:
        return [f"{where}: no schema"]
    schema = _resolve(schema, doc)
    if isinstance(body, dict):
        props, extra = schema.get("properties"), schema.get("additionalProperties")
        if props is None and extra is None:
            return [f"{where}: an object whose keys are not documented"]
        out = []
        for key, value in body.items():
            if props and key in props:
                out += undocumented(value, props[key], doc, f"{where}.{key}")
            elif isinstance(extra, dict):
                out += undocumented(value, extra, doc, f"{where}.{key}")
            elif extra is not True:
                out.append(f"{where}.{key}")
        return out
    if isinstance(body, list):
        return [p for i, item in enumerate(body[:3]) for p in undocumented(item, schema.get("items"), doc,
                                                                           f"{where}[{i}]")]
    return []


def _check(resp, path: str, method: str) -> list[str]:
    doc = spec()
    op = doc["paths"][path][method]
    status = str(resp.status_code)
    assert status in op["responses"], f"{method.upper()} {path} answered {status}, not documented"
    content = op["responses"][status].get("content", {}).get("application/json")
    schema = content["schema"] if content else None
    return [f"{method.upper()} {path} {status} {p}" for p in undocumented(resp.json, schema, doc)]


def test_every_key_of_every_documented_answer_is_in_the_openapi_text(app, client, web, course, factory):
    alice, teacher = course["alice"], course["teacher"]
    student, staff = factory.token(alice), factory.token(teacher)
    missing: list[str] = []
    # Sent as attention.py.txt: kept as attention.py, so `renamed` has an item to walk.
    up = client.post("/api/v1/submissions", headers=bearer(student), content_type="multipart/form-data",
                     data={"code": (io.BytesIO(GOOD_CODE), "attention.py.txt")})
    assert up.json["renamed"]
    missing += _check(up, "/submissions", "post")
    sub = web.submit(course["bob"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    missing += _check(client.get("/api/v1/submissions", headers=bearer(student)), "/submissions", "get")
    for token in (student, staff):
        sid = up.json["id"] if token == student else sub.id
        missing += _check(client.get(f"/api/v1/submissions/{sid}", headers=bearer(token)), "/submissions/{id}", "get")
    missing += _check(client.get(f"/api/v1/submissions/{up.json['id']}", headers=bearer(staff)),
                      "/submissions/{id}", "get")
    missing += _check(client.post(f"/api/v1/submissions/{up.json['id']}/regrade", headers=bearer(staff)),
                      "/submissions/{id}/regrade", "post")
    missing += _check(client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=bearer(staff)),
                      "/submissions/{id}/regrade", "post")
    missing += _check(client.get("/api/v1/gradebook", headers=bearer(staff)), "/gradebook", "get")
    made = client.post("/api/v1/regrades", headers=bearer(staff), json={"scope": "all"})
    missing += _check(made, "/regrades", "post")
    missing += _check(client.delete(f"/api/v1/regrades/{made.json['batch']}", headers=bearer(staff)),
                      "/regrades/{id}", "delete")
    missing += _check(client.post("/api/v1/extensions", headers=bearer(staff),
                                  json={"student": alice.email, "extra_days": 2}), "/extensions", "post")
    missing += _check(client.get("/api/v1/similarity", headers=bearer(staff)), "/similarity", "get")
    started = client.post("/api/v1/similarity", headers=bearer(staff), json={})
    missing += _check(started, "/similarity", "post")
    # The report as the worker stores it (worker/similarity.py, tested in test_similarity_left_out_round37.py),
    # with files left out, so the key's inner shape is walked too.
    report = db.session.get(SimilarityReport, started.json["id"])
    report.status, report.submissions_compared, report.left_out = "done", 2, {"empty": 1, "alone": 1}
    report.pairs, report.finished_at = [{"a": up.json["id"], "b": sub.id, "score": 0.9}], report.created_at
    db.session.commit()
    missing += _check(client.get("/api/v1/similarity", headers=bearer(staff)), "/similarity", "get")
    # Errors: one of each family.
    missing += _check(client.get("/api/v1/submissions/999999", headers=bearer(student)), "/submissions/{id}", "get")
    missing += _check(client.get("/api/v1/gradebook?format=pdf", headers=bearer(staff)), "/gradebook", "get")
    assert missing == [], "\n".join(missing)
