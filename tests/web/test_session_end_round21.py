"""Round 21: a request that needs a signed-in user says so in the reader's language, and a form
sent after the session ended says nothing was saved and leads back to its page.

* The sign-in page said "Please log in to access this page." in English to Chinese readers
  (Flask-Login's default message, never translated).
* A form posted after the session ended (signed out in another tab, or past SESSION_MAX_HOURS)
  was sent to /login?next=<the form's POST-only action>: after signing in, a 405 page.
* The upload page's background upload followed that redirect to the sign-in page and showed the
  status of that page, "200", as the refusal.
"""

from __future__ import annotations

import io

import pytest

from tests.factories import PASSWORD
from tests.web.helpers import GOOD_CODE


def expire(client) -> None:
    """The session is past SESSION_MAX_HOURS, as a page left open overnight."""
    with client.session_transaction() as s:
        s["signed_in_at"] = s["signed_in_at"] - 10 ** 7


def upload(client, **headers):
    return client.post("/assignments/attention/submit", data={"code": (io.BytesIO(GOOD_CODE), "attention.py")},
                       content_type="multipart/form-data", headers=headers)


@pytest.mark.parametrize("lang, said, english", [
    ("zh", "请先登录才能查看此页面。", "Please log in"),
    ("en", "Please sign in to see this page.", "请先登录"),
])
def test_the_sign_in_page_asks_to_sign_in_in_the_readers_language(client, course, lang, said, english):
    page = client.get("/assignments/attention", headers={"Accept-Language": lang}, follow_redirects=True)
    text = page.get_data(as_text=True)
    assert page.request.path == "/login" and said in text and english not in text


def test_a_page_asked_for_signed_out_is_where_sign_in_leads(client, course):
    resp = client.get("/instructor/students/3?a=attention")
    signed_in = client.post(resp.headers["Location"], data={"email": course["teacher"].email, "password": PASSWORD})
    assert signed_in.headers["Location"] == "/instructor/students/3?a=attention"


def test_a_form_sent_after_the_session_ended_leads_back_to_its_page_not_to_its_action(client, course, web):
    web.login(client, course["alice"])
    expire(client)
    resp = upload(client, Referer="http://localhost/assignments/attention", **{"Accept-Language": "en"})
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/login?next=/assignments/attention"
    page = client.get(resp.headers["Location"], headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "so nothing was saved. Sign in, then send it again." in page
    signed_in = client.post(resp.headers["Location"], data={"email": course["alice"].email, "password": PASSWORD})
    assert signed_in.status_code == 302 and signed_in.headers["Location"] == "/assignments/attention"
    assert client.get(signed_in.headers["Location"]).status_code == 200


def test_a_form_sent_from_another_site_signed_out_gets_no_next(client, course, web):
    web.login(client, course["alice"])
    expire(client)
    resp = upload(client, Referer="https://evil.example/assignments/attention")
    assert resp.status_code == 302 and resp.headers["Location"] == "/login"


@pytest.mark.parametrize("lang, said", [
    ("en", "Your session ended before this form was sent"),
    ("zh", "发送此表单之前你的登录已结束"),
])
def test_the_background_upload_after_the_session_ended_gets_a_401_it_can_show(client, course, web, lang, said):
    web.login(client, course["alice"])
    expire(client)
    resp = upload(client, **{"X-Upload": "fetch", "Accept": "text/html", "Accept-Language": lang})
    assert resp.status_code == 401
    text = resp.get_data(as_text=True)
    # app.js shows the text of #error-message (it showed "200", the sign-in page's status)
    assert 'id="error-message"' in text and said in text
