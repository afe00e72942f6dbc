"""Round 24: an id that cannot exist is "not found" (404), on every route, on PostgreSQL and SQLite.

Ids are 32-bit. `/submissions/99999999999` reached PostgreSQL (`integer out of range`, a DataError
answered 400) and, past 2^63, SQLite's driver (OverflowError: a 500). Every `<int:...>` of a route now
stops at 2^31 - 1 (app/ids.py), so such a path matches no route: 404, JSON under /api/; ids read from
a query or form (compare's `a`/`b`, a regrade's `submission_id`, a roster's `user_id`) find nothing.
"""

from __future__ import annotations

import shutil

import pytest
from werkzeug.routing import IntegerConverter

from app.extensions import db
from app.ids import MAX_ID
from tests.factories import PASSWORD, Factory
from tests.helpers import make_app
from tests.web.test_sqlite_saves_round21 import migrated_sqlite  # noqa: F401 - a fixture

TOO_LARGE = [MAX_ID + 1, 99_999_999_999, 2**63 + 1, 10**30]


def _int_routes(app) -> list[tuple[str, str, list[str]]]:
    """(endpoint, method, [url with each too-large id]) of every route that takes an int."""
    adapter = app.url_map.bind("localhost")
    out = []
    for rule in app.url_map.iter_rules():
        ints = [name for name, conv in rule._converters.items() if isinstance(conv, IntegerConverter)]
        if not ints:
            continue
        urls = [adapter.build(rule.endpoint, dict.fromkeys(ints, n)) for n in TOO_LARGE]
        out.extend((rule.endpoint, m, urls) for m in sorted(rule.methods - {"HEAD", "OPTIONS"}))
    return out


def _check_every_route(app, client, token: str) -> int:
    checked = 0
    for endpoint, method, urls in _int_routes(app):
        for url in urls:
            api = url.startswith("/api/")
            headers = {"Authorization": f"Bearer {token}"} if api else {}
            resp = client.open(url, method=method, headers=headers, json={} if api and method == "POST" else None)
            assert resp.status_code == 404, (endpoint, method, url, resp.status_code)
            if api:
                assert resp.json["code"] == "not_found" and set(resp.json["message"]) == {"en", "zh"}
            checked += 1
    return checked


def test_the_largest_id_still_matches_a_route_and_is_an_ordinary_not_found(app, client, web, course):
    web.login(client, course["alice"])
    assert client.get(f"/submissions/{MAX_ID}").status_code == 404


def test_every_route_answers_404_to_an_id_past_32_bits_on_postgresql(app, client, web, factory, course):
    teacher = course["teacher"]
    token = factory.token(teacher)
    web.login(client, teacher)
    assert _check_every_route(app, client, token) >= 4 * 15


def test_every_route_answers_404_to_an_id_past_32_bits_on_sqlite(tmp_path, migrated_sqlite):  # noqa: F811
    shutil.copy(migrated_sqlite, tmp_path / "autograder.sqlite")
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'autograder.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        f = Factory()
        f.assignment()
        teacher = f.instructor(email="li@example.edu", name="Teacher Li")
        email, token = teacher.email, f.token(teacher)
        db.session.remove()
    client = app.test_client()
    assert client.post("/login", data={"email": email, "password": PASSWORD}).status_code == 302
    assert _check_every_route(app, client, token) >= 4 * 15


@pytest.mark.parametrize("n", TOO_LARGE)
def test_ids_in_a_query_or_form_past_32_bits_find_nothing(app, client, web, course, n):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.login(client, course["alice"])
    assert client.get(f"/submissions/compare?a={n}&b={sub.id}").status_code == 404
    assert client.get(f"/submissions/compare?b={n}").status_code == 404
    assert client.post("/account/tokens", data={"revoke": str(n)}).status_code == 404


@pytest.mark.parametrize("n", TOO_LARGE)
def test_ids_an_instructor_sends_past_32_bits_find_nothing(app, client, web, course, n):
    web.login(client, course["teacher"])
    resp = client.post("/instructor/regrade", data={"scope": "submission", "submission_id": str(n)})
    assert resp.status_code == 404
    resp = client.post("/instructor/roster/links", data={"user_id": [str(n), str(course["alice"].id)]})
    assert resp.status_code == 200  # the links of the students that exist
