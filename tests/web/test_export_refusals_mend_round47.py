"""Mend round 47: the page's export link with a wrong format or header value says which and what the right ones do,
in the reader's language (was a bare 400 page); the API's description says its rows come in class-list order."""

from __future__ import annotations

import html

import pytest


@pytest.mark.parametrize(("query", "name", "values"), [
    ("headers=zh", "headers", ("'keys'", "'labels'")),
    ("format=pdf", "format", ("'csv'", "'xlsx'", "'canvas'", "'moodle'")),
])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_wrong_export_value_on_the_page_is_named_with_the_right_ones(client, web, course, query, name, values,
                                                                       lang):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    resp = client.get(f"/instructor/gradebook.csv?{query}")
    assert resp.status_code == 400
    page = html.unescape(resp.get_data(as_text=True))
    assert all(v in page for v in values), page
    if lang == "zh":
        assert f"「{name}」只接受以下取值之一" in page, page
    else:
        assert f"'{name}' takes one of these values" in page, page


def test_the_apis_gradebook_description_says_its_rows_come_in_class_list_order(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert "class-list order" in spec["paths"]["/gradebook"]["get"]["description"]
