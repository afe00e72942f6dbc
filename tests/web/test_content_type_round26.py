"""Round 26: no response names a Content-Type parameter twice.

Werkzeug 3 appends "; charset=utf-8" to any text/* `mimetype`, also when it already has one: the CSV
downloads (pages and API), a student's code and text audit, and /metrics went out as
"text/csv; charset=utf-8; charset=utf-8" and "text/plain; version=1.0.0; charset=utf-8; charset=utf-8".
A repeated parameter makes the header invalid: Go's mime.ParseMediaType, which Prometheus uses to pick a
scrape format, refuses it ("duplicate parameter name")."""

from __future__ import annotations

import re

from flask import g

from tests.factories import PASSWORD
from tests.web.test_api import bearer


def parameter_names(content_type: str) -> list[str]:
    return [part.split("=", 1)[0].strip().lower() for part in content_type.split(";")[1:]]


def assert_well_formed(url: str, resp) -> None:
    content_type = resp.headers.get("Content-Type", "")
    names = parameter_names(content_type)
    assert len(names) == len(set(names)), (url, content_type)


def test_no_page_file_export_or_metrics_names_a_content_type_parameter_twice(app, web, course, factory):
    sub = web.submit(course["alice"], course["assignment"], figure=False)   # no decoding child to start
    web.grade(sub)
    sid, slug, student_id = sub.id, course["assignment"].slug, course["alice"].id
    student_email, teacher_email = course["alice"].email, course["teacher"].email
    token = factory.token(course["teacher"])
    # Every GET route as the student (their pages, code, audit and figure; the instructor's routes refuse
    # quickly), then the instructor's CSV downloads.
    client = app.test_client()
    assert client.post("/login", data={"email": student_email, "password": PASSWORD}).status_code == 302
    seen = set()
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "static" or "logout" in rule.rule:
            continue
        url = re.sub(r"<int:(student_id|user_id)>", str(student_id), rule.rule)
        url = re.sub(r"<int:[a-z_]+>", str(sid), url)
        url = re.sub(r"<(?:string:)?[a-z_]+>", slug, url)
        resp = client.get(url, environ_base={"REMOTE_ADDR": "127.0.0.1"})
        assert_well_formed(url, resp)
        seen.add(resp.headers.get("Content-Type", "").split(";")[0])
    g.pop("_login_user", None)   # the test's one app context keeps Flask-Login's user: sign in afresh
    client = app.test_client()
    assert client.post("/login", data={"email": teacher_email, "password": PASSWORD}).status_code == 302
    for fmt in ("csv", "canvas", "moodle"):
        url = f"/instructor/gradebook.csv?a={slug}&format={fmt}"
        assert_well_formed(url, client.get(url))
        url = f"/api/v1/gradebook?assignment={slug}&format={fmt}"
        resp = client.get(url, headers=bearer(token))
        assert resp.status_code == 200
        assert_well_formed(url, resp)
        seen.add(resp.headers["Content-Type"].split(";")[0])
    metrics = client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert metrics.status_code == 200 and "version=" in metrics.headers["Content-Type"]
    assert_well_formed("/metrics", metrics)
    # the crawl reached the responses that had the fault, so a pass means something
    assert {"text/csv", "text/plain", "text/html", "application/json"} <= seen, seen
