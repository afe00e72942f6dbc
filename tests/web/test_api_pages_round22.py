"""GET /api/v1/submissions in pages: a cursor (`after`, the last id seen) and `limit`, the next page
named in the body (`next`) and in a `Link: rel="next"` header, documented in the OpenAPI spec."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _follow(client, token, url):
    """Every id listed by following `next` from `url`, and the pages' sizes."""
    ids, sizes = [], []
    while url:
        resp = client.get(url, headers=bearer(token))
        assert resp.status_code == 200, resp.json
        page = resp.json
        ids += [i["id"] for i in page["submissions"]]
        sizes.append(len(page["submissions"]))
        link = resp.headers.get("Link")
        if page["next"]:
            assert link == f'<{page["next"]}>; rel="next"'
        else:
            assert link is None
        url = page["next"]
    return ids, sizes


def test_the_list_comes_in_pages_that_together_hold_each_own_submission_once(client, factory, course, web):
    subs = [web.submit(course["alice"], audit=False, figure=False) for _ in range(5)]
    web.submit(course["bob"], audit=False, figure=False)
    token = factory.token(course["alice"])
    ids, sizes = _follow(client, token, "/api/v1/submissions?limit=2")
    assert ids == [s.id for s in subs]
    assert sizes == [2, 2, 1]


def test_a_client_that_knows_no_pages_gets_every_attempt_of_a_student_and_next_null(client, factory, course, web):
    subs = [web.submit(course["alice"], audit=False, figure=False) for _ in range(3)]
    token = factory.token(course["alice"])
    resp = client.get("/api/v1/submissions", headers=bearer(token))
    assert [i["id"] for i in resp.json["submissions"]] == [s.id for s in subs]
    assert resp.json["next"] is None and "Link" not in resp.headers


def test_an_attempt_made_while_paging_is_neither_skipped_nor_listed_twice(client, factory, course, web):
    first = [web.submit(course["alice"], audit=False, figure=False) for _ in range(3)]
    token = factory.token(course["alice"])
    page = client.get("/api/v1/submissions?limit=2", headers=bearer(token)).json
    late = web.submit(course["alice"], audit=False, figure=False,
                      now=first[-1].created_at + timedelta(minutes=1))
    ids, _ = _follow(client, token, page["next"])
    assert [i["id"] for i in page["submissions"]] + ids == [s.id for s in first] + [late.id]


def test_a_cursor_never_reveals_another_students_submissions(client, factory, course, web):
    web.submit(course["alice"], audit=False, figure=False)
    mine = web.submit(course["bob"], audit=False, figure=False)
    token = factory.token(course["bob"])
    ids, _ = _follow(client, token, "/api/v1/submissions?after=0&limit=1")
    assert ids == [mine.id]


@pytest.mark.parametrize("query, code", [
    ("limit=0", "bad_limit"), ("limit=501", "bad_limit"), ("limit=-1", "bad_limit"), ("limit=ten", "bad_limit"),
    ("limit=%EF%BC%95", "bad_limit"), ("limit=" + "9" * 40, "bad_limit"),
    ("after=abc", "bad_cursor"), ("after=-5", "bad_cursor"), ("after=" + "9" * 40, "bad_cursor"),
    ("after=2147483648", "bad_cursor"),
])
def test_a_bad_limit_or_cursor_is_a_400_saying_why_in_both_languages(client, factory, course, query, code):
    token = factory.token(course["alice"])
    resp = client.get(f"/api/v1/submissions?{query}", headers=bearer(token))
    assert resp.status_code == 400
    assert resp.json["code"] == code
    assert resp.json["message"]["en"] != resp.json["message"]["zh"]
    assert re.search(r"[\u4e00-\u9fff]", resp.json["message"]["zh"])


def test_the_openapi_spec_describes_the_pages(client):
    get = client.get("/api/v1/openapi.json").json["paths"]["/submissions"]["get"]
    params = {p["name"]: p for p in get["parameters"]}
    assert params["limit"]["schema"]["maximum"] == 500 and params["after"]["in"] == "query"
    assert "Link" in get["responses"]["200"]["headers"]
    assert "next" in get["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
