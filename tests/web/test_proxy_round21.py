"""Round 21: the requests nginx refuses itself get the app's bilingual answer, JSON under /api/.

Round 18 did it for a body over client_max_body_size (413). The proxy refused two more kinds of
request before the app saw them, with its own English HTML page, under /api/ too:
* request headers past large_client_header_buffers (an 8 KiB line: a cookie grown too large, a
  script's over-long Idempotency-Key): "400 Request Header Or Cookie Too Large";
* a client address past limit_conn (a classroom behind one NAT address): "429 Too Many Requests",
  with no Retry-After.
deploy/nginx.conf now sends both to the app (app/errors.py, PROXY_REFUSALS), without the original
headers (they may be what was refused); the status stays nginx's.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from app.extensions import db
from app.models import Submission
from tests.live import NGINX, Client, nginx
from tests.web.test_api import bearer
from tests.web.test_hardening import live, proxied, server, server_env  # noqa: F401 - the live service's fixtures

pytestmark = [pytest.mark.slow, pytest.mark.redis]


def test_headers_too_large_for_the_proxy_get_the_apps_answer_json_under_the_api(proxied):  # noqa: F811
    api = Client(proxied).get("/api/v1/submissions", headers={"Idempotency-Key": "k" * 9000,
                                                                "Accept-Language": "en"})
    assert api.status == 400, api.text[:200]
    reply = api.json()
    assert reply["code"] == "headers_too_large" and "8 KiB" in reply["message"]["en"]
    assert "8 KiB" in reply["message"]["zh"] and "nginx" not in api.text


@pytest.mark.parametrize("lang, said", [("zh-CN,zh;q=0.9", "请求头大于服务器接受的大小"),
                                        ("en", "headers are larger than the server accepts")])
def test_a_cookie_grown_too_large_gets_a_page_in_the_readers_language(proxied, lang, said):  # noqa: F811
    # Browsers send the Cookie line last; nginx reads the lines before the one too large.
    page = Client(proxied).get("/assignments/attention", headers={"Accept-Language": lang,
                                                                   "Cookie": "session=" + "c" * 20000})
    assert page.status == 400 and said in page.text and "nginx" not in page.text


def test_a_client_past_the_proxys_connection_limit_gets_the_apps_429_with_retry_after(
        live, tmp_path: Path, course, factory, web):  # noqa: F811
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (make system-deps installs it)")
    token = factory.token(course["alice"])
    sub = web.submit(course["alice"])  # queued: a long poll on it waits
    sub_id = sub.id
    db.session.remove()
    with nginx(live, tmp_path / "nginx", {"limit_conn per_address 256;": "limit_conn per_address 1;"}) as port:
        waiting = threading.Thread(target=lambda: Client(port, timeout=30).get(
            f"/api/v1/submissions/{sub_id}?wait=6", headers=bearer(token)))
        waiting.start()
        time.sleep(1.0)  # the long poll holds the address's one connection
        try:
            api = Client(port).get("/api/v1/submissions", headers=bearer(token))
            page = Client(port).get("/login", headers={"Accept-Language": "en"})
        finally:
            waiting.join(30)
    assert api.status == 429 and api.json()["code"] == "too_many_connections", api.text[:200]
    assert api.headers.get("Retry-After") == "5" and api.json()["message"]["zh"]
    assert page.status == 429 and "Too many connections from your network address" in page.text
    assert Submission.query.count() == 1
