"""Mend round 48 (review E, L7): an instructor of an install with no assignment yet opened /instructor/ and read the
generic 404, "the link may be mistyped, or the item belongs to someone else". The page now says no assignment
exists and how one is made, in zh and en, and the API answer carries its own code."""

from __future__ import annotations

import pytest

SAID = {"zh": "还没有任何作业，所以这里没有内容可显示。作业在服务器上创建：autograder assignment add attention",
        "en": "No assignment exists yet, so there is nothing to show here. It is created on the server: "
              "autograder assignment add attention"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_dashboard_without_an_assignment_says_none_exists_and_how_to_make_one(client, web, factory, lang):
    web.login(client, factory.instructor(email="teacher@example.edu", name="李老师"))
    client.get(f"/lang/{lang}")
    resp = client.get("/instructor/")
    page = resp.get_data(as_text=True).replace("&#34;", '"').replace("&quot;", '"')
    assert resp.status_code == 404
    assert SAID[lang] in page
    assert "mistyped" not in page and "链接可能有误" not in page
