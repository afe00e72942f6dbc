"""Web hardening (issue 16), one test per finding, through HTTP against the production server:
gunicorn with threads (as docker-compose runs it), real PostgreSQL and Redis, CSRF on, and nginx
with deploy/nginx.conf where the proxy is the point."""

from __future__ import annotations

import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
import redis

from app.extensions import db
from tests.factories import PASSWORD
from tests.helpers import REDIS_TEST_URL
from tests.live import NGINX, Client, gunicorn, is_local_path, multipart, nginx
from tests.web.helpers import GOOD_CODE
from tests.workers import service_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

# Tight limits so each finding shows in a few requests.
SETTINGS = {
    "LOGIN_RATE_LIMIT": "3 per minute",
    "LOGIN_ADDRESS_RATE_LIMIT": "8 per minute",
    "SUBMIT_RATE_LIMIT": "2 per minute",
    "API_RATE_LIMIT": "1000 per minute",
    "MAX_LIVE_TOKENS_PER_USER": 2,
    "LONGPOLL_PER_USER": 2,
    "LONGPOLL_SLOTS": 4,
    "PROXY_COUNT": 1,
    "PUBLIC_URL": "https://grader.example.edu",
    "MAX_PENDING_PER_STUDENT": 50,
}
# One gunicorn worker process with the production command's threads (autograder/gunicorn_conf.py).
THREADS = 16


@pytest.fixture(scope="module")
def server_env(migrated_pg: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return service_env(tmp_path_factory.mktemp("live"), migrated_pg, REDIS_TEST_URL, **SETTINGS)


@pytest.fixture(scope="module")
def server(server_env: dict[str, str]) -> Iterator[int]:
    log = Path(server_env["DATA_DIR"]) / "gunicorn.log"
    with gunicorn(server_env, log, workers=1, threads=THREADS) as port:
        # Warm the worker (imports, templates, connection pool), so timings measure the finding.
        Client(port).get("/login")
        Client(port).get("/api/v1/submissions")
        yield port


@pytest.fixture
def live(server: int, app, course) -> int:
    """The server's port, with an empty database (but the course) and no rate-limit counts."""
    redis.Redis.from_url(REDIS_TEST_URL).flushdb()
    return server


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def from_address(addr: str) -> dict[str, str]:
    """What the proxy sends on behalf of a client at `addr` (the server trusts one proxy hop)."""
    return {"X-Forwarded-For": addr}


def upload(client: Client, headers: dict[str, str]):
    body, ctype = multipart({"code": ("attention.py", GOOD_CODE)})
    return client.request("POST", "/api/v1/submissions", body, {**headers, "Content-Type": ctype})


# --- 1. limits keyed on identity ----------------------------------------------------------------


def test_a_students_failed_sign_ins_never_lock_out_another_account_from_the_same_address(live, course):
    classroom = from_address("198.51.100.7")  # one NAT address for the whole class
    student = Client(live, headers=classroom)
    codes = [student.sign_in("alice@example.edu", "wrong guess").status for _ in range(5)]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    # Her own account is now limited from this address, with Retry-After for the styled page.
    refused = student.sign_in("alice@example.edu", PASSWORD)
    assert refused.status == 429 and 0 < int(refused.headers["Retry-After"]) <= 60
    # The teacher and another student, behind the same address, sign in at once.
    assert Client(live, headers=classroom).sign_in("teacher@example.edu", PASSWORD).status == 302
    assert Client(live, headers=classroom).sign_in("bob@example.edu", PASSWORD).status == 302


def test_successful_sign_ins_never_count_against_the_limit(live, course):
    me = Client(live, headers=from_address("198.51.100.8"))
    for _ in range(11):  # the limit is 3 failures a minute
        assert me.sign_in("alice@example.edu", PASSWORD).status == 302
        assert me.sign_out().status == 302


def test_a_higher_per_address_ceiling_stops_spraying_across_accounts(live, factory):
    sprayer = from_address("203.0.113.9")
    emails = [factory.student().email for _ in range(10)]
    codes = [Client(live, headers=sprayer).sign_in(e, "Winter2026!").status for e in emails]
    assert codes[:8] == [200] * 8 and codes[8:] == [429, 429]  # 8 failures a minute per address
    # The ceiling is per address: the class next door is not affected.
    assert Client(live, headers=from_address("203.0.113.10")).sign_in(emails[0], PASSWORD).status == 302


def test_api_submission_limit_follows_the_user_not_the_spelling_of_the_header(live, course, factory):
    alice = course["alice"]
    first, second = factory.token(alice), factory.token(alice)
    spellings = [
        {"Authorization": f"Bearer {first}"},
        {"Authorization": f"bearer  {first} "},
        {"Authorization": f"BEARER {first}"},
        {"Authorization": f"Bearer {second}"},  # a second token of the same user
    ]
    client = Client(live)
    codes = [upload(client, h).status for h in spellings]
    assert codes == [202, 202, 429, 429]  # 2 submissions a minute per user, however asked
    refused = upload(client, spellings[3])
    assert refused.status == 429 and int(refused.headers["Retry-After"]) > 0
    assert refused.json()["code"] == "too_many_requests" and refused.json()["message"]["zh"]
    # Another student's bucket is their own.
    assert upload(client, bearer(factory.token(course["bob"]))).status == 202


def test_live_api_tokens_per_user_are_capped(live, course):
    me = Client(live)
    assert me.sign_in("alice@example.edu", PASSWORD).status == 302

    def create() -> str:
        return me.post_form("/account/tokens", {"csrf_token": me.csrf("/account/tokens")}).text

    assert "ag_" in create() and "ag_" in create()
    third = create()
    assert "ag_" not in third and "请先撤销一个" in third  # the cap is 2 live tokens here (zh page)
    from app.extensions import db
    from app.models import ApiToken

    rows = db.session.query(ApiToken).filter_by(user_id=course["alice"].id).all()
    assert len(rows) == 2
    me.post_form("/account/tokens", {"csrf_token": me.csrf("/account/tokens"), "revoke": str(rows[0].id)})
    assert "ag_" in create()  # a revoked token frees its place


def test_thirty_long_polls_by_one_user_leave_sign_in_answering_under_a_second(live, course, factory, web):
    """Under gunicorn --threads 16, one student opens 30 long polls on their own queued attempt
    (before: /login then waited 11 s)."""
    token = factory.token(course["alice"])
    sub_id = web.submit(course["alice"]).id
    wait = 8
    replies = []

    def poll() -> None:
        replies.append(Client(live).get(f"/api/v1/submissions/{sub_id}?wait={wait}", headers=bearer(token)))

    threads = [threading.Thread(target=poll) for _ in range(30)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    # The polls past the user's cap are refused at once; the others hold their threads.
    deadline = t0 + wait / 2
    while len(replies) < 28 and time.monotonic() < deadline:
        time.sleep(0.05)
    sign_in_pages = [Client(live).get("/login") for _ in range(3)]
    still_waiting = len(replies) == 28 and time.monotonic() - t0 < wait
    for t in threads:
        t.join(timeout=30)
    assert still_waiting, "the measurement must happen while the long polls are held"
    assert all(r.status == 200 for r in sign_in_pages)
    assert max(r.seconds for r in sign_in_pages) < 1.0, [r.seconds for r in sign_in_pages]
    statuses = sorted(r.status for r in replies)
    assert statuses == [200] * 2 + [429] * 28  # LONGPOLL_PER_USER = 2 waits at once
    refused = [r for r in replies if r.status == 429]
    assert all(int(r.headers["Retry-After"]) >= 1 for r in refused)
    assert max(r.seconds for r in refused) < wait / 2  # refused at once, not after waiting
    assert refused[0].json()["message"]["zh"]


def test_waits_beyond_the_process_pool_are_answered_at_once(live, factory, web):
    """Three students with two long polls each: 4 slots wait, the other 2 answer at once."""
    wait = 6
    polls = []
    for _ in range(3):
        student = factory.student()
        polls += [(web.submit(student).id, factory.token(student))] * 2
    replies = []

    def poll(sub_id: int, token: str) -> None:
        replies.append(Client(live).get(f"/api/v1/submissions/{sub_id}?wait={wait}", headers=bearer(token)))

    threads = [threading.Thread(target=poll, args=p) for p in polls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert [r.status for r in replies] == [200] * 6
    quick = sorted(r.seconds for r in replies)
    assert quick[1] < wait / 2 and quick[2] > wait - 0.5  # two answered at once, four waited


# --- 2. a buffering reverse proxy in front --------------------------------------------------------


@pytest.fixture
def proxied(live: int, tmp_path: Path) -> Iterator[int]:
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (make system-deps installs it)")
    with nginx(live, tmp_path / "nginx") as port:
        yield port


@contextmanager
def slow_clients(port: int, n: int = 100) -> Iterator[Callable[[], None]]:
    """n connections that send their headers one line at a time and never finish; yields a
    function that sends each of them one more line."""
    conns = []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /login HTTP/1.1\r\nHost: grader\r\n")
            conns.append(s)

        def trickle() -> None:
            for s in conns:
                s.sendall(b"X-Slow: 1\r\n")

        yield trickle
    finally:
        for s in conns:
            s.close()


def test_a_hundred_slow_clients_stall_bare_gunicorn_but_not_the_proxy(live, proxied):
    # Without the proxy (the finding): gunicorn's threads wait on the slow clients' headers.
    with slow_clients(live) as trickle:
        time.sleep(1)
        trickle()
        with pytest.raises(TimeoutError):
            Client(live, timeout=2).get("/login")
    # Through nginx with deploy/nginx.conf: everyone else is served at once.
    with slow_clients(proxied) as trickle:
        for _ in range(3):
            time.sleep(1)
            trickle()
            reply = Client(proxied).get("/login")
            assert reply.status == 200 and reply.seconds < 1.0, reply.seconds


def test_the_client_address_cannot_be_forged_through_the_proxy(proxied, factory):
    """Each failed sign-in claims another X-Forwarded-For; the proxy replaces it with the real
    address, so the per-address ceiling (8 a minute) still applies."""
    emails = [factory.student().email for _ in range(10)]
    codes = [Client(proxied, headers=from_address(f"192.0.2.{i}")).sign_in(e, "guess").status
             for i, e in enumerate(emails)]
    assert codes[:8] == [200] * 8 and codes[8:] == [429, 429]


def test_only_the_proxy_publishes_a_port_in_compose():
    import yaml

    compose = yaml.safe_load((Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text())
    publishing = {name for name, svc in compose["services"].items() if svc.get("ports")}
    assert publishing == {"proxy"}
    proxy = compose["services"]["proxy"]
    assert any("deploy/nginx.conf" in v for v in proxy["volumes"])
    assert compose["services"]["web"]["environment"]["PROXY_COUNT"] == "1"  # one proxy hop trusted


# --- 3. sessions that end -------------------------------------------------------------------------


def test_a_session_cookie_copied_before_sign_out_is_dead_after_it(live, course):
    me = Client(live)
    assert me.sign_in("alice@example.edu", PASSWORD).status == 302
    thief = Client(live, cookies=dict(me.cookies))
    assert thief.get("/").status == 200
    assert me.sign_out().status == 302
    after = thief.get("/")
    assert after.status == 302 and after.location.startswith("/login")


def test_remember_me_cookie_is_samesite_with_a_lifetime_and_dies_at_sign_out(live, course):
    me = Client(live)
    signed_in = me.sign_in("alice@example.edu", PASSWORD, remember=True)
    raw = [c for c in signed_in.headers.get_all("Set-Cookie") if c.startswith("remember_token=")]
    assert len(raw) == 1
    cookie = SimpleCookie(raw[0])["remember_token"]
    assert cookie["samesite"] == "Lax" and cookie["httponly"]
    expires = parsedate_to_datetime(cookie["expires"])
    assert timedelta(days=13) < expires - datetime.now(UTC) <= timedelta(days=14, minutes=1)
    # The remember-me cookie alone signs in (a browser restarted) ...
    other_device = Client(live, cookies={"remember_token": cookie.value})
    assert other_device.get("/").status == 200
    # ... until the account signs out anywhere: then it is refused server-side.
    me.sign_out()
    stale = Client(live, cookies={"remember_token": cookie.value}).get("/")
    assert stale.status == 302 and stale.location.startswith("/login")
    # A later sign-in gets a different remember-me cookie.
    again = Client(live).sign_in("alice@example.edu", PASSWORD, remember=True)
    new = [c for c in again.headers.get_all("Set-Cookie") if c.startswith("remember_token=")]
    assert SimpleCookie(new[0])["remember_token"].value != cookie.value


def test_a_session_ends_server_side_after_its_lifetime_even_when_copied(migrated_pg, tmp_path, app, course):
    env = service_env(tmp_path / "data", migrated_pg, REDIS_TEST_URL, **{**SETTINGS, "SESSION_MAX_HOURS": 3 / 3600})
    with gunicorn(env, tmp_path / "gunicorn.log", workers=1) as port:
        me = Client(port)
        assert me.sign_in("alice@example.edu", PASSWORD).status == 302
        copy = Client(port, cookies=dict(me.cookies))
        assert me.get("/").status == 200
        time.sleep(3.5)
        for client in (copy, me):  # the browser's cookie and a copy both end after 3 s
            ended = client.get("/")
            assert ended.status == 302 and ended.location.startswith("/login")


def test_sign_in_rotates_the_session_and_the_csrf_token(live, course):
    me = Client(live)
    before_token = me.csrf("/login")
    before_session = me.cookies["session"]
    assert me.sign_in("alice@example.edu", PASSWORD).status == 302
    assert me.cookies["session"] != before_session
    after_token = me.csrf("/account/tokens")
    assert after_token != before_token
    # The token from before sign-in is refused on the signed-in session's forms.
    stale = me.post_form("/account/tokens", {"csrf_token": before_token})
    assert stale.status == 400
    assert me.post_form("/account/tokens", {"csrf_token": after_token}).status == 200


# --- 4. no enumeration ---------------------------------------------------------------------------


def test_sign_in_costs_the_same_and_says_the_same_for_unknown_accounts(live, course):
    # Factory users' password is hashed with one PBKDF2 round (tests/factories.py): this one is hashed as the app
    # hashes every real password, so the known account pays what a real one pays.
    course["alice"].set_password(PASSWORD)
    db.session.commit()

    def attempt(email: str, i: int):
        client = Client(live, headers={**from_address(f"10.9.0.{i}"), "Accept-Language": "en"})
        return client.sign_in(email, "not the password")

    known, unknown = [], []
    for i in range(7):  # interleaved, so a change in the machine's load hits both alike
        known.append(attempt("alice@example.edu", i))
        unknown.append(attempt(f"nobody{i}@example.edu", 100 + i))
    t_known = statistics.median(r.seconds for r in known)
    t_unknown = statistics.median(r.seconds for r in unknown)
    # Before: 110 ms vs 7 ms. Now both pay one password hash.
    assert 0.6 < t_unknown / t_known < 1.6, (t_known, t_unknown)
    message = "Wrong email or password."
    assert all(r.status == 200 for r in known + unknown)
    assert {(message in r.text) for r in known + unknown} == {True}


# --- 5. redirects parsed, not string-matched --------------------------------------------------------


@pytest.mark.parametrize("target", [
    "/\t/evil.example/x", "/\n/evil.example", "//evil.example/x", "/\\evil.example", "\\\\evil.example",
    "https://evil.example/", "javascript:alert(1)", " //evil.example", "/%09/evil.example",
    "http:/evil.example", "\x00//evil.example",
])
def test_next_never_leads_off_the_site(live, course, target):
    reply = Client(live).sign_in("alice@example.edu", PASSWORD, next_=target)
    if "\x00" in target:       # refused before any view reads it: no field takes a NUL (app/errors.py)
        assert reply.status == 400 and not reply.location
        return
    # A path on this site (what a browser makes of it: no control characters, no host).
    assert reply.status == 302 and is_local_path(reply.location), reply.location
    assert not any(ord(ch) < 0x20 or ch == "\\" for ch in reply.location)


def test_next_keeps_a_local_path_with_its_query(live, course):
    reply = Client(live).sign_in("alice@example.edu", PASSWORD, next_="/account/tokens?x=1")
    assert reply.status == 302 and reply.location == "/account/tokens?x=1"


# --- 7. public endpoints say little -----------------------------------------------------------------


def test_healthz_says_only_ok_to_the_public(live):
    public = Client(live, headers=from_address("198.51.100.20")).get("/healthz")
    assert public.status == 200 and public.json() == {"ok": True}


def test_healthz_details_are_for_instructors_and_the_local_host(live, course):
    local = Client(live).get("/healthz").json()  # no proxy hop: the container's own healthcheck
    assert local["database"]["ok"] and "names" in local["workers"]
    teacher = Client(live, headers=from_address("198.51.100.21"))
    assert teacher.sign_in("teacher@example.edu", PASSWORD).status == 302
    assert "workers" in teacher.get("/healthz").json()
    student = Client(live, headers=from_address("198.51.100.22"))
    student.sign_in("alice@example.edu", PASSWORD)
    assert student.get("/healthz").json() == {"ok": True}


def test_api_docs_use_the_configured_url_never_the_host_header(live):
    reply = Client(live).get("/api/v1/docs", headers={"Host": "evil.example"})
    assert reply.status == 200
    assert "evil.example" not in reply.text
    assert "https://grader.example.edu/api/v1/submissions" in reply.text


def test_no_server_version_banner(live):
    server = Client(live).get("/login").headers.get("Server", "")
    assert "werkzeug" not in server.lower() and not any(ch.isdigit() for ch in server), server


# --- issue 17 item 1: the limiter survives a Redis outage ----------------------------------------


def test_sign_in_and_uploads_survive_a_redis_outage_and_limits_hold_from_memory(
        migrated_pg, tmp_path, app, course, factory):
    """A private redis-server (limiter store and broker) is stopped under a running gunicorn:
    sign-in and uploads keep working (no 500), limits still apply from memory, a log line says
    so, and the limiter goes back to Redis once it is restarted."""
    from tests.live import RedisServer

    store = RedisServer(tmp_path / "redis")
    store.start()
    log = tmp_path / "gunicorn.log"
    env = service_env(tmp_path / "data", migrated_pg, store.url, **SETTINGS)
    token = factory.token(course["alice"])
    try:
        with gunicorn(env, log, workers=1, threads=THREADS) as port:
            assert Client(port).sign_in("alice@example.edu", PASSWORD).status == 302
            store.stop()

            assert Client(port).sign_in("bob@example.edu", PASSWORD).status == 302
            accepted = upload(Client(port), bearer(token))
            assert accepted.status == 202, accepted.text  # committed; the sweeper queues it later
            text = log.read_text()
            assert "Rate limit storage unreachable - falling back to in-memory storage" in text
            # The limits still hold, counted in this process's memory.
            guesser = Client(port, headers=from_address("198.51.100.30"))
            codes = [guesser.sign_in("teacher@example.edu", "guess").status for _ in range(4)]
            assert codes == [200, 200, 200, 429]

            store.start()  # same port
            deadline = time.monotonic() + 20
            while "Rate limit storage recovered" not in log.read_text() and time.monotonic() < deadline:
                Client(port).get("/login")
                time.sleep(0.5)
            assert "Rate limit storage recovered" in log.read_text()
            assert Client(port).sign_in("teacher@example.edu", PASSWORD).status == 302
            assert Client(port).sign_in("teacher@example.edu", "guess").status == 200
            keys = redis.Redis.from_url(store.url).keys("LIMITS*")
            assert keys, "failed sign-ins are counted in Redis again"
    finally:
        store.stop()
    assert "Traceback" not in log.read_text()


def test_autograder_web_sends_no_version_banner(migrated_pg, tmp_path, app):
    """`autograder web` (what `make run` serves) used to answer `Server: Werkzeug/3.x Python/3.11`."""
    import subprocess
    import sys

    from tests.live import free_port, stop_group, wait_for_port

    port = free_port()
    log = tmp_path / "web.log"
    env = service_env(tmp_path / "data", migrated_pg, REDIS_TEST_URL)
    with open(log, "ab") as out:
        proc = subprocess.Popen([str(Path(sys.executable).parent / "autograder"), "web", "--port", str(port),
                                 "--workers", "1"],
                                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_port(port, proc, log)
        server = Client(port).get("/login").headers.get("Server", "")
        assert "werkzeug" not in server.lower() and not any(ch.isdigit() for ch in server), server
    finally:
        stop_group(proc)


def test_language_switch_goes_back_to_a_local_page_only(live):
    client = Client(live)
    back = client.get("/lang/en", headers={"Referer": "https://evil.example/steal?x=1"})
    assert back.status == 302 and is_local_path(back.location) and back.location == "/steal?x=1"
    assert is_local_path(client.get("/lang/zh", headers={"Referer": "//evil.example"}).location)
