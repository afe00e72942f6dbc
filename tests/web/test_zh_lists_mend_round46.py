"""Round 46 mend: the API's zh refusals list with 、, as every other zh list (a 405 said "只接受 GET, HEAD, POST";
an unknown field "未知字段 'colour', 'flavour'；此请求只接受以下字段：「code」、「audit」": two list styles in one
sentence)."""

from __future__ import annotations

import pytest

from tests.web.test_api import bearer


@pytest.fixture
def teacher(factory, course) -> dict:
    return bearer(factory.token(course["teacher"]))


def test_the_zh_405_lists_the_methods_taken_with_the_enumeration_comma(client):
    message = client.delete("/api/v1/submissions").get_json()["message"]
    assert "GET, HEAD, POST" in message["en"]
    assert "GET、HEAD、POST" in message["zh"] and ", " not in message["zh"], message["zh"]


def test_the_zh_unknown_field_refusal_lists_the_fields_sent_with_the_enumeration_comma(client, teacher):
    resp = client.post("/api/v1/regrades", json={"scope": "all", "colour": 1, "flavour": 2}, headers=teacher)
    assert resp.status_code == 400 and resp.json["code"] == "unknown_field"
    assert "'colour', 'flavour'" in resp.json["message"]["en"]
    assert "'colour'、'flavour'" in resp.json["message"]["zh"] and ", " not in resp.json["message"]["zh"]
