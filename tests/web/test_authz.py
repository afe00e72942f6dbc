"""Authorisation on every route and role, CSRF, escaping of student text, rate limits."""

from __future__ import annotations

import io
import re

import pytest

from app.extensions import db
from tests.web.helpers import GOOD_CODE, realistic_result


@pytest.fixture
def graded(web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    return sub


def student_routes(sub_id: int) -> list[str]:
    return [f"/submissions/{sub_id}", f"/submissions/{sub_id}/status", f"/submissions/{sub_id}/result",
            f"/submissions/{sub_id}/figure", f"/submissions/{sub_id}/audit", f"/submissions/{sub_id}/code"]


# Anonymous visitors and students on every route: tests/web/test_route_access.py (from app.url_map).
INSTRUCTOR_GET = ["/instructor/", "/instructor/students/{alice}", "/instructor/regrades", "/instructor/roster",
                  "/instructor/gradebook.csv"]


def test_owner_reaches_every_submission_route(client, web, course, graded):
    web.login(client, course["alice"])
    for url in student_routes(graded.id):
        assert client.get(url).status_code == 200, url


def test_other_student_gets_404_on_code_scores_audit_and_figure(client, web, course, graded):
    web.login(client, course["bob"])
    for url in student_routes(graded.id):
        resp = client.get(url)
        assert resp.status_code == 404, url
        assert b"def forward" not in resp.data and b"\x89PNG" not in resp.data


def test_instructor_reaches_any_submission(client, web, course, graded):
    web.login(client, course["teacher"])
    for url in student_routes(graded.id):
        assert client.get(url).status_code == 200, url
    for url in INSTRUCTOR_GET:
        assert client.get(url.format(alice=course["alice"].id)).status_code == 200, url


def test_student_cannot_revoke_someone_elses_token(client, web, factory, course):
    from app.models import ApiToken

    factory.token(course["bob"])
    row = db.session.query(ApiToken).one()
    web.login(client, course["alice"])
    assert client.post("/account/tokens", data={"revoke": row.id}).status_code == 404
    db.session.refresh(row)
    assert row.revoked is False


def test_script_in_feedback_audit_and_name_is_escaped(client, web, factory, course):
    from app.models import User

    evil = "<script>alert(1)</script>"
    mallory = factory.student(email="mallory@example.edu", name=f"Mal {evil}")
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    sub = submit(course["assignment"], mallory, Upload("attention.py", GOOD_CODE + f"# {evil}\n".encode()),
                 Upload("audit.md", f"# Audit\n\n{evil}\n\n<img src=x onerror=alert(2)>\n[x](javascript:alert(3))".encode()),
                 None, store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    web.grade(sub, realistic_result(visible_feedback=f"expected {evil}",
                                    audit_feedback={"en": evil, "zh": evil}))
    assert db.session.get(User, mallory.id)
    web.login(client, mallory)
    for url in (f"/submissions/{sub.id}", f"/submissions/{sub.id}/result"):
        html = client.get(url).get_data(as_text=True)
        # no script, no handler, no javascript: link (the link's source may show as text: cmark-gfm
        # reads the line after a raw <img> as part of that HTML block)
        assert "<script>alert" not in html and "onerror" not in html
        assert not re.search(r"href\s*=\s*[\"']?\s*javascript:", html, re.I)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    client.post("/logout")
    web.login(client, course["teacher"])
    for url in ("/instructor/", f"/instructor/students/{mallory.id}", f"/submissions/{sub.id}"):
        html = client.get(url).get_data(as_text=True)
        assert "<script>alert" not in html and "onerror=" not in html, url
    assert "Mal &lt;script&gt;" in client.get("/instructor/").get_data(as_text=True)


def test_pages_send_a_content_security_policy(client, course):
    csp = client.get("/login").headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]


def test_csrf_token_is_required_on_forms(client, web, course, app, graded):
    app.config["WTF_CSRF_ENABLED"] = True
    login_page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', login_page).group(1)
    assert client.post("/login", data={"email": "alice@example.edu", "password": "correct horse battery"}
                       ).status_code == 400
    assert client.post("/login", data={"email": "alice@example.edu", "password": "correct horse battery",
                                       "csrf_token": token}).status_code == 302
    resp = client.post("/assignments/attention/submit", data={"code": (io.BytesIO(GOOD_CODE), "attention.py")},
                       content_type="multipart/form-data")
    assert resp.status_code == 400
    page = client.get("/").get_data(as_text=True)
    form_token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    resp = client.post("/assignments/attention/submit",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), "csrf_token": form_token,
                             "confirm_no_audit": "1"},
                       content_type="multipart/form-data")
    assert resp.status_code == 302


def test_csrf_on_instructor_review_form(client, web, course, app, graded):
    web.login(client, course["teacher"])
    app.config["WTF_CSRF_ENABLED"] = True
    assert client.post(f"/instructor/submissions/{graded.id}/review", data={"score": "12"}).status_code == 400
    db.session.expire_all()
    assert graded.audit_review is None


def test_api_is_exempt_from_csrf_but_needs_a_token(client, factory, course, app):
    app.config["WTF_CSRF_ENABLED"] = True
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", data={"code": (io.BytesIO(GOOD_CODE), "attention.py")},
                       headers={"Authorization": f"Bearer {token}"}, content_type="multipart/form-data")
    assert resp.status_code == 202


def test_sign_in_is_rate_limited(limited_app, course):
    client = limited_app.test_client()
    codes = [client.post("/login", data={"email": "alice@example.edu", "password": "wrong"}).status_code
             for _ in range(4)]
    assert codes[:3] == [200, 200, 200] and codes[3] == 429


def test_form_submission_is_rate_limited_per_user(limited_app, web, course):
    client = limited_app.test_client()
    web.login(client, course["alice"])
    codes = [client.post("/assignments/attention/submit",
                         data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), "confirm_no_audit": "1"},
                         content_type="multipart/form-data").status_code for _ in range(3)]
    assert codes == [302, 302, 429]


def test_open_redirect_after_sign_in_is_refused(client, course):
    resp = client.post("/login?next=//evil.example/", data={"email": "alice@example.edu",
                                                             "password": "correct horse battery"})
    assert resp.status_code == 302 and "evil.example" not in resp.headers["Location"]
