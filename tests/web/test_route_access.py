"""Every route of `app.url_map` is classified by who may reach it, and each class is enforced.

A new route fails `test_every_route_is_classified` until it is added to ACCESS below: nobody can
add a page or an endpoint without deciding who may see it."""

from __future__ import annotations

import pytest

ACCESS: dict[str, set[str]] = {
    # anyone, signed in or not
    "public": {"static", "auth.login", "auth.logout", "auth.set_language", "health.healthz",
               "api.openapi", "api.docs", "signin.signin_page", "signin.signin_use",
               "too_large_at_the_proxy",  # only the error nginx refused the body with (a 413, no data)
               # the same for its other refusals (headers too large: 400, connections: 429)
               "refused_at_the_proxy_headers", "refused_at_the_proxy_connections"},
    # a signed-in user (students see only their own submissions: tests/web/test_authz.py)
    "signed_in": {"student.index", "student.assignment", "student.upload", "student.submission",
                  "student.submission_status", "student.submission_result", "student.audit_file",
                  "student.code_file", "student.figure", "student.compare", "student.tokens",
                  "student.attempts_status"},
    # instructors only: students get 403
    "instructor": {"instructor.dashboard", "instructor.student", "instructor.review", "instructor.override",
                   "instructor.regrade", "instructor.regrades", "instructor.regrade_batch",
                   "instructor.regrade_progress", "instructor.regrade_cancel", "instructor.roster", "instructor.drop", "instructor.restore",
                   "instructor.sign_in_links", "instructor.gradebook_csv", "instructor.settings",
                   "instructor.grant_extension", "instructor.revoke_extension", "instructor.course_log",
                   "instructor.similarity", "instructor.similarity_status", "instructor.similarity_pair",
                   "instructor.test_failures"},
    # Prometheus scrapers: METRICS_TOKEN, or a direct loopback client when none is set (404 otherwise)
    "scraper": {"metrics.metrics"},
    # the JSON API: a bearer token (401 without one)
    "token": {"api.create_submission", "api.list_submissions", "api.get_submission", "api.regrade",
              "api.get_gradebook", "api.create_regrade", "api.cancel_regrade", "api.create_extension",
              "api.get_similarity", "api.start_similarity"},
}


def routes(app, access: str) -> list[tuple[str, str, str]]:
    """(endpoint, method, url) of every route of one class, its path arguments filled with 1."""
    adapter = app.url_map.bind("localhost")
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint not in ACCESS[access]:
            continue
        url = adapter.build(rule.endpoint, {arg: 1 for arg in rule.arguments})
        out.extend((rule.endpoint, m, url) for m in sorted(rule.methods - {"HEAD", "OPTIONS"}))
    return out


def test_every_route_is_classified(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    classified = set().union(*ACCESS.values())
    assert endpoints - classified == set(), "classify the new route in ACCESS"
    assert classified - endpoints == set(), "ACCESS names a route that no longer exists"
    assert sum(len(v) for v in ACCESS.values()) == len(classified), "a route is in two classes"


def test_anonymous_visitors_are_sent_to_sign_in_from_every_signed_in_and_instructor_route(app, client):
    for endpoint, method, url in routes(app, "signed_in") + routes(app, "instructor"):
        resp = client.open(url, method=method)
        assert resp.status_code == 302 and "/login" in resp.headers["Location"], (endpoint, method)


def test_students_get_403_on_every_instructor_route(app, client, web, course):
    web.login(client, course["alice"])
    for endpoint, method, url in routes(app, "instructor"):
        assert client.open(url, method=method).status_code == 403, (endpoint, method)


@pytest.mark.parametrize("header", [None, "Bearer not-a-token", "Basic YWxpY2U6eA=="])
def test_every_api_route_wants_a_valid_token(app, client, header):
    headers = {"Authorization": header} if header else {}
    for endpoint, method, url in routes(app, "token"):
        resp = client.open(url, method=method, headers=headers)
        assert resp.status_code == 401 and resp.is_json, (endpoint, method, resp.status_code)


def test_public_routes_answer_anonymous_visitors(app, client):
    for endpoint, method, url in routes(app, "public"):
        if method != "GET" or endpoint in ("static", "auth.set_language", "signin.signin_page"):
            continue  # a file name, a redirect, and a one-time link need real arguments
        expected = {"too_large_at_the_proxy": 413, "refused_at_the_proxy_headers": 400,  # it is that error's answer
                    "refused_at_the_proxy_connections": 429}.get(endpoint, 200)
        assert client.get(url).status_code == expected, endpoint


def test_metrics_are_for_a_loopback_scraper_or_the_token_holder_only(app, client):
    remote = {"REMOTE_ADDR": "203.0.113.9"}
    for endpoint, method, url in routes(app, "scraper"):
        assert client.open(url, method=method, environ_base=remote).status_code == 404, endpoint
        proxied = client.open(url, method=method, headers={"X-Forwarded-For": "203.0.113.9"})
        assert proxied.status_code == 404, "a request relayed by the proxy is not local"
        assert client.open(url, method=method).status_code == 200, "a direct loopback scraper is served"
        app.config["METRICS_TOKEN"] = "scrape-secret"
        assert client.open(url, method=method).status_code == 404, "with a token, loopback alone is not enough"
        ok = client.open(url, method=method, environ_base=remote,
                         headers={"Authorization": "Bearer scrape-secret"})
        assert ok.status_code == 200, endpoint
