"""Round 24: a JSON body that names a field twice is refused (400 `duplicate_field`, zh and en), nothing done.

json.loads keeps the last of two equal keys: `{"scope": "counting", "scope": "all"}` queued a regrade of
every attempt of every student, and `{"extra_days": 2, "extra_days": 400}` was read as 400 days, while a
reader (or a log) taking the first saw the harmless value. Which one the client meant cannot be known."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Extension, RegradeBatch
from tests.web.test_api_input_round21 import teacher  # noqa: F401 - a fixture


@pytest.mark.parametrize("path, raw, field", [
    ("/api/v1/regrades", '{"scope": "counting", "scope": "all"}', "scope"),
    ("/api/v1/regrades", '{"assignment": "attention", "scope": "counting", "assignment": "attention"}', "assignment"),
    ("/api/v1/extensions", '{"assignment": "attention", "student": "bob@example.edu", "extra_days": 2, '
                           '"extra_days": 400}', "extra_days"),
    ("/api/v1/extensions", '{"student": "alice@example.edu", "student": "bob@example.edu", "extra_days": 1}', "student"),
    ("/api/v1/similarity", '{"assignment": "attention", "assignment": "other"}', "assignment"),
])
def test_a_field_sent_twice_is_refused_naming_it_and_nothing_is_done(client, teacher, path, raw, field):  # noqa: F811
    resp = client.post(path, data=raw, headers={**teacher, "Content-Type": "application/json"})
    assert resp.status_code == 400, resp.json
    assert resp.json["code"] == "duplicate_field"
    assert f"'{field}'" in resp.json["message"]["en"] and f"「{field}」" in resp.json["message"]["zh"]
    assert db.session.query(RegradeBatch).count() == 0 and db.session.query(Extension).count() == 0


def test_a_body_naming_each_field_once_is_still_taken(client, web, course, teacher):  # noqa: F811
    # An attempt to regrade: a batch over none is refused (409 nothing_to_regrade, round 38).
    web.submit(course["alice"], audit=False, figure=False)
    resp = client.post("/api/v1/regrades", data='{"scope": "counting"}',
                       headers={**teacher, "Content-Type": "application/json"})
    assert resp.status_code == 202
