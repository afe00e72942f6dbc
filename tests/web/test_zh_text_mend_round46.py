"""Round 46 mend: the API's zh refusals list with 、, as every other zh list (a 405 said "只接受 GET, HEAD, POST";
an unknown field "未知字段 'colour', 'flavour'；此请求只接受以下字段：「code」、「audit」": two list styles in one
sentence)."""

from __future__ import annotations

import re

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


def test_the_zh_api_docs_say_where_each_parameter_goes_in_chinese(client, web, course):
    """Round 46 mend: the "Where" column under the zh headers (参数/位置/含义) said query / path / header / form / JSON."""
    web.login(client, course["alice"])
    client.get("/lang/zh")
    zh = client.get("/api/v1/docs").get_data(as_text=True)
    cells = re.findall(r"<tr><td><code>[^<]*</code></td><td>([^<]*)</td>", zh)
    assert cells and set(cells) <= {"查询参数", "路径", "请求头", "表单", "JSON 请求体"}, sorted(set(cells))
    assert {"查询参数", "路径", "表单"} <= set(cells)
    client.get("/lang/en")
    en = client.get("/api/v1/docs").get_data(as_text=True)
    assert {"query", "path", "form", "JSON body"} <= set(re.findall(r"<tr><td><code>[^<]*</code></td><td>([^<]*)</td>", en))
