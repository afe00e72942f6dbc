"""No cache keeps a private answer: every page and API answer (grades, feedback, code, a new token,
the class) says `Cache-Control: no-store`, so a shared lab computer's back button after sign-out or
a proxy shows nobody's work to the next person. Static files stay cacheable."""

from __future__ import annotations

from tests.web.test_course_management import switch


def _urls(app, user_kind: str, ids: dict) -> list[str]:
    """Every GET route of one access class, its arguments filled with real ids."""
    from tests.web.test_route_access import ACCESS

    adapter = app.url_map.bind("localhost")
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in ACCESS[user_kind] and "GET" in rule.methods:
            out.append(adapter.build(rule.endpoint, {arg: ids[arg] for arg in rule.arguments}))
    return out


def test_every_student_page_and_file_says_no_store(app, client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    web.login(client, course["alice"])
    ids = {"submission_id": sub.id, "slug": "attention"}
    urls = _urls(app, "signed_in", ids) + [f"/submissions/compare?b={sub.id}&a={sub.id}"]
    assert len(urls) >= 10
    for url in urls:
        resp = client.get(url)
        assert resp.status_code in (200, 404), (url, resp.status_code)
        assert "no-store" in resp.headers.get("Cache-Control", ""), url


def test_every_instructor_page_says_no_store(app, client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    switch(client, web, course["teacher"])
    ids = {"submission_id": sub.id, "student_id": course["alice"].id, "user_id": course["alice"].id,
           "batch_id": 1, "report_id": 1, "index": 0, "test_id": "t"}
    for url in _urls(app, "instructor", ids):
        resp = client.get(url)
        assert "no-store" in resp.headers.get("Cache-Control", ""), (url, resp.status_code)


def test_api_answers_and_errors_say_no_store(client, factory, web, course):
    sub = web.submit(course["alice"])
    headers = {"Authorization": f"Bearer {factory.token(course['alice'])}"}
    for url in ("/api/v1/submissions", f"/api/v1/submissions/{sub.id}", "/api/v1/submissions/999999"):
        assert "no-store" in client.get(url, headers=headers).headers.get("Cache-Control", ""), url


def test_the_sign_in_page_is_not_kept_with_a_stale_form_token(client):
    assert "no-store" in client.get("/login").headers.get("Cache-Control", "")


def test_static_files_stay_cacheable(client):
    resp = client.get("/static/app.js")
    assert resp.status_code == 200
    assert "no-store" not in resp.headers.get("Cache-Control", "")
