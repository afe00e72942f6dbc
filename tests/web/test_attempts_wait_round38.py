"""Round 38: the attempts list (`/assignments/<slug>/attempts`) is long-polled, so an open page shows a regrade within
seconds instead of at the next minute's check.

`?wait=S` with If-None-Match holds the answer until it changes (a 304 after S s), says it waited (`X-Long-Poll:
held`), reads one statement per check whatever the number of attempts, and answers at once (`now`) when the
process has no slot for it; a user whose waits are all taken gets a 429, and the page checks once a minute."""

from __future__ import annotations

import re
import threading
import time
from html import unescape

import pytest
from sqlalchemy import event

from app.extensions import db
from app.longpoll import list_waits
from app.models import Submission
from app.regrading import request_regrade
from tests.browser.helpers import full_result

URL = "/assignments/attention/attempts"


@pytest.fixture
def alice_graded(app, web, course):
    alice, a = course["alice"], course["assignment"]
    sub = web.submit(alice, a)
    web.grade(sub, full_result())
    return sub.id


def _tag(client) -> str:
    return client.get(URL).headers["ETag"]


def test_a_wait_with_nothing_changed_is_a_304_after_the_wait_and_says_it_was_held(app, client, web, course,
                                                                                  alice_graded):
    web.login(client, course["alice"])
    t0 = time.monotonic()
    res = client.get(f"{URL}?wait=1.2", headers={"If-None-Match": _tag(client)})
    took = time.monotonic() - t0
    assert res.status_code == 304 and res.headers["X-Long-Poll"] == "held"
    assert 1.1 < took < 4


def test_a_regrade_queued_during_the_wait_ends_it_within_seconds(app, client, web, course, alice_graded):
    web.login(client, course["alice"])
    tag, out = _tag(client), {}

    def poll() -> None:
        t0 = time.monotonic()
        res = client.get(f"{URL}?wait=10", headers={"If-None-Match": tag})
        out.update(status=res.status_code, body=res.get_json(silent=True), took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.8)
    assert thread.is_alive(), "the wait ended before anything changed"
    t_change = time.monotonic()
    request_regrade(db.session.get(Submission, alice_graded))
    thread.join(10)
    assert out["status"] == 200 and out["body"]["attempts"][0]["status"] == "queued"
    assert time.monotonic() - t_change < 3, "the change was seen later than a couple of seconds"


def _statements_of_a_wait(app, client, wait: float) -> tuple[int, int]:
    """(statements that are not the version read, version reads) during one held wait with nothing changed."""
    tag, seen = _tag(client), []

    def count(conn, cursor, statement, *args) -> None:
        seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        assert client.get(f"{URL}?wait={wait}", headers={"If-None-Match": tag}).status_code == 304
    finally:
        event.remove(engine, "before_cursor_execute", count)
    version_reads = sum("late_penalty_per_day" in s and "sum(" in s.lower() for s in seen)
    return len(seen) - version_reads, version_reads


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_a_wait_reads_one_statement_per_check_whatever_the_number_of_attempts(app, client, web, course,
                                                                              alice_graded):
    web.login(client, course["alice"])
    few = _statements_of_a_wait(app, client, 1.5)
    for _ in range(4):
        web.grade(web.submit(course["alice"], course["assignment"]), full_result())
    many = _statements_of_a_wait(app, client, 1.5)
    assert few[0] == many[0], (few, many)          # the answer built at the start and the end: no query per attempt
    assert 1 <= few[1] <= 4 and 1 <= many[1] <= 4  # about one version read a second


def test_no_slot_free_answers_at_once_and_a_users_third_wait_is_a_429_in_both_languages(app, client, web, course,
                                                                                        alice_graded):
    web.login(client, course["alice"])
    tag = _tag(client)
    slots = app.config["LONGPOLL_LIST_SLOTS"]      # round 38 mend: the lists' own pool (review RE)
    with list_waits.admit(course["bob"].id, per_user=99, slots=99):   # another student's waits take the lists' slots
        with list_waits.admit(course["bob"].id, per_user=99, slots=99):
            t0 = time.monotonic()
            res = client.get(f"{URL}?wait=5", headers={"If-None-Match": tag})
            assert slots == 2 and res.status_code == 304 and res.headers["X-Long-Poll"] == "now"
            assert time.monotonic() - t0 < 2
    per_user = app.config["LONGPOLL_LIST_PER_USER"]
    with list_waits.admit(course["alice"].id, per_user=99, slots=99), list_waits.admit(course["alice"].id,
                                                                                         per_user=99, slots=99):
        assert per_user == 2
        en = client.get(f"{URL}?wait=5&lang=en", headers={"If-None-Match": tag})
        zh = client.get(f"{URL}?wait=5&lang=zh", headers={"If-None-Match": tag})
    assert en.status_code == zh.status_code == 429 and en.headers["Retry-After"] == "60"
    assert en.json["code"] == "too_many_waits" and "once a minute" in en.json["message"]["en"]
    assert "每分钟" in zh.json["message"]["zh"]


def test_a_wait_without_a_tag_or_a_bad_wait_answers_at_once(app, client, web, course, alice_graded):
    assert client.get(f"{URL}?wait=5", headers={"If-None-Match": "x"}).status_code in (302, 401)  # signed out
    web.login(client, course["alice"])
    t0 = time.monotonic()
    res = client.get(f"{URL}?wait=5")
    assert res.status_code == 200 and "X-Long-Poll" not in res.headers and time.monotonic() - t0 < 2
    row = res.json["attempts"][0]
    assert row["run_id"] == db.session.get(Submission, alice_graded).latest_run.id
    assert client.get(f"{URL}?wait=nan", headers={"If-None-Match": _tag(client)}).status_code == 400


def test_the_page_carries_the_lists_tag_so_its_first_request_already_waits(app, client, web, course, alice_graded):
    web.login(client, course["alice"])
    html = client.get("/assignments/attention").get_data(as_text=True)
    tag = re.search(r'data-attempts-tag="([^"]*)"', html).group(1)
    assert unescape(tag) == _tag(client)


def test_a_tabs_newer_wait_ends_its_older_one_at_once(app, client, web, course, alice_graded):
    """A page left while its wait is held (the server does not see it gone) gave back its slot only after 20 s: the
    tab's next pages were refused (429, the user's two waits taken) and checked once a minute."""
    web.login(client, course["alice"])
    tag, out = _tag(client), []

    def poll() -> None:
        t0 = time.monotonic()
        res = client.get(f"{URL}?wait=15&tab=t1", headers={"If-None-Match": tag})
        out.append((res.status_code, res.headers.get("X-Long-Poll"), time.monotonic() - t0))

    left = [threading.Thread(target=poll) for _ in range(2)]   # two pages the tab left, one after the other
    for thread in left:
        thread.start()
        time.sleep(0.5)
    t0 = time.monotonic()
    res = client.get(f"{URL}?wait=1&tab=t1", headers={"If-None-Match": tag})   # the tab's page now
    assert res.status_code == 304 and res.headers["X-Long-Poll"] == "held"
    assert time.monotonic() - t0 < 4
    for thread in left:
        thread.join(5)
    assert sorted(h for _s, h, _t in out) == ["superseded", "superseded"], out
    assert all(took < 5 for _s, _h, took in out), out
    other = client.get(f"{URL}?wait=0.5&tab=t2", headers={"If-None-Match": tag})      # another tab is its own
    assert other.headers["X-Long-Poll"] == "held"


def test_signed_out_elsewhere_during_the_wait_ends_it_with_a_401(app, client, web, course, alice_graded):
    """The wait carried the session it started with: signed out in another tab, the page heard it up to 20 s later."""
    web.login(client, course["alice"])
    tag, out = _tag(client), {}

    def poll() -> None:
        t0 = time.monotonic()
        res = client.get(f"{URL}?wait=10", headers={"If-None-Match": tag})
        out.update(status=res.status_code, took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.8)
    alice = db.session.get(type(course["alice"]), course["alice"].id)
    alice.end_all_sessions()                       # what signing out does to every session of the account
    db.session.commit()
    thread.join(10)
    assert out["status"] == 401 and out["took"] < 4, out
