"""Round 38, review RE of the long-polled attempts list (`/assignments/<slug>/attempts?wait=S`).

HIGH: list waits were counted in the API's per-user allowance (LONGPOLL_PER_USER): two open tabs made the
student's API long poll a 429 for as long as they stayed open. MED: two students' pages kept the list's share of
the slots (the page waits again at once), so a third student's list was always answered `now`, and API waits for
a change of a graded attempt were answered 304 at once while two list waits were held. LOW: the assignment deleted
during a wait was a 500 (ObjectDeletedError), hidden during a wait was answered as if visible, and `wait=1_0` or
full-width digits were taken as numbers.

Signed-in clients each run their requests in a thread of their own: in the test's thread, Flask's `g` (the
signed-in user) is shared by every client (review RE's note)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text, update

from app.extensions import db
from app.longpoll import Admission, WaitPool, parse_wait
from app.models import Assignment
from autograder import settings
from tests.browser.helpers import full_result
from tests.factories import PASSWORD
from tests.web.test_api import bearer

URL = "/assignments/attention/attempts"


def in_thread(fn: Callable[[], Any]) -> Any:
    """`fn()` run in a thread of its own (a request's `g` is then its own)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - the test asserts on what was raised
            box["value"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    return box["value"]


def in_background(fn: Callable[[], Any], out: dict, key: object) -> threading.Thread:
    def run() -> None:
        t0 = time.monotonic()
        try:
            res = fn()
            out[key] = (res.status_code, res.headers.get("X-Long-Poll"), time.monotonic() - t0)
        except Exception as exc:  # noqa: BLE001 - the test asserts on what was raised
            out[key] = (repr(exc), None, time.monotonic() - t0)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def signed_in(app, email: str):
    client = app.test_client()
    assert in_thread(lambda: client.post("/login", data={"email": email, "password": PASSWORD})).status_code == 302
    return client


def _graded_students(web, factory, assignment, n: int) -> list:
    students = [factory.student(email=f"s{i}@example.edu") for i in range(n)]
    for student in students:
        web.grade(web.submit(student, assignment), full_result())
    return students


def test_two_open_tabs_leave_the_students_api_long_poll_its_allowance(app, web, course):
    alice, a = course["alice"], course["assignment"]
    web.grade(web.submit(alice, a), full_result())
    pending = web.submit(alice, a).id       # queued: the API waits for its grading's end
    token = web.f.token(alice)
    tabs = [signed_in(app, alice.email) for _ in range(2)]
    tag = in_thread(lambda: tabs[0].get(URL)).headers["ETag"]
    out: dict = {}
    threads = [in_background(lambda c=c, i=i: c.get(f"{URL}?wait=2.5&tab=t{i}", headers={"If-None-Match": tag}),
                             out, i) for i, c in enumerate(tabs)]
    time.sleep(0.8)
    t0 = time.monotonic()
    res = in_thread(lambda: app.test_client().get(f"/api/v1/submissions/{pending}?wait=1", headers=bearer(token)))
    took = time.monotonic() - t0
    for thread in threads:
        thread.join(10)
    assert res.status_code == 200, res.get_data(as_text=True)
    assert took > 0.8, "the API's wait was not held"
    assert [out[i][1] for i in range(2)] == ["held", "held"], out


def test_an_api_change_wait_is_held_while_two_students_lists_wait(app, web, course, factory):
    a, bob = course["assignment"], course["bob"]
    students = _graded_students(web, factory, a, 2)
    sub = web.submit(bob, a)
    web.grade(sub, full_result())
    sub_id, token = sub.id, web.f.token(bob)
    api = app.test_client()
    etag = in_thread(lambda: api.get(f"/api/v1/submissions/{sub_id}", headers=bearer(token))).headers["ETag"]
    clients = [signed_in(app, s.email) for s in students]
    out: dict = {}
    threads = []
    for i, c in enumerate(clients):
        tag = in_thread(lambda c=c: c.get(URL)).headers["ETag"]
        threads.append(in_background(lambda c=c, tag=tag: c.get(f"{URL}?wait=2.8", headers={"If-None-Match": tag}),
                                     out, i))
    time.sleep(0.8)
    t0 = time.monotonic()
    res = in_thread(lambda: api.get(f"/api/v1/submissions/{sub_id}?wait=1.5",
                                    headers={**bearer(token), "If-None-Match": etag}))
    took = time.monotonic() - t0
    for thread in threads:
        thread.join(10)
    assert res.status_code == 304 and took > 1.3, (res.status_code, took)
    assert [out[i][1] for i in range(2)] == ["held", "held"], out


def test_three_students_pages_take_turns_at_two_list_slots(app, web, course, factory):
    """As review RE's probe 8: two pages wait again as soon as an answer comes, a third asks again soon after each
    `now` (the page: at its next minute's check; here 0.5 s to keep the test short). Each student's list must be held in turn."""
    assert app.config["LONGPOLL_LIST_SLOTS"] == 2
    students = [factory.student(email=f"s{i}@example.edu") for i in range(3)]   # no attempt: a list all the same
    clients = [signed_in(app, s.email) for s in students]
    tags = [in_thread(lambda c=c: c.get(URL)).headers["ETag"] for c in clients]
    stop = time.monotonic() + 4.5
    seen = [Counter() for _ in clients]

    def page(i: int, start: float) -> None:
        time.sleep(start)
        while time.monotonic() < stop:
            res = clients[i].get(f"{URL}?wait=0.8&tab=t{i}", headers={"If-None-Match": tags[i]})
            seen[i][res.headers.get("X-Long-Poll")] += 1
            if res.headers.get("X-Long-Poll") != "held":
                time.sleep(0.5)

    threads = [threading.Thread(target=page, args=(i, 0.5 * (i == 2))) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert all(s["held"] >= 2 for s in seen), seen


def test_a_user_who_just_held_a_list_wait_gives_way_to_one_refused_meanwhile():
    clock = [0.0]
    pool = WaitPool(turns=True, clock=lambda: clock[0])

    def enter(user: int):
        cm = pool.admit(user, per_user=2, slots=2)
        return cm, cm.__enter__()

    holders = []
    for user in (1, 2):
        cm, verdict = enter(user)
        assert verdict is Admission.WAIT
        holders.append((user, cm))
    cm, verdict = enter(3)                       # both slots held: the third is refused
    assert verdict is Admission.NOW
    cm.__exit__(None, None, None)
    refused, grants = 3, Counter()
    for turn in range(6):   # the longest-held wait ends, its page asks again at once, then the refused one asks
        clock[0] += 1
        user, cm = holders.pop(0)
        cm.__exit__(None, None, None)
        cm, verdict = enter(user)
        assert verdict is Admission.NOW, f"turn {turn}: user {user} took the slot back"
        cm.__exit__(None, None, None)
        cm, verdict = enter(refused)
        assert verdict is Admission.WAIT, f"turn {turn}: user {refused} refused"
        holders.append((refused, cm))
        grants[refused] += 1
        refused = user
    assert grants == {1: 2, 2: 2, 3: 2}
    for _user, cm in holders:
        cm.__exit__(None, None, None)
    clock[0] += 100                              # nobody refused lately: a free slot is taken at once
    cm, verdict = enter(1)
    assert verdict is Admission.WAIT
    cm.__exit__(None, None, None)


def test_the_assignment_deleted_during_a_list_wait_is_a_404_not_an_error(app, web, course):
    alice, a = course["alice"], course["assignment"]
    web.grade(web.submit(alice, a), full_result())
    client = signed_in(app, alice.email)
    tag = in_thread(lambda: client.get(URL)).headers["ETag"]
    out: dict = {}
    thread = in_background(lambda: client.get(f"{URL}?wait=6", headers={"If-None-Match": tag}), out, "w")
    time.sleep(0.8)
    db.session.execute(text("TRUNCATE assignments CASCADE"))
    db.session.commit()
    thread.join(10)
    assert out["w"][0] == 404 and out["w"][2] < 4, out


def test_the_assignment_hidden_during_a_list_wait_is_answered_as_a_fresh_request(app, web, course):
    alice, a = course["alice"], course["assignment"]
    web.grade(web.submit(alice, a), full_result())
    client = signed_in(app, alice.email)
    tag = in_thread(lambda: client.get(URL)).headers["ETag"]
    out: dict = {}
    thread = in_background(lambda: client.get(f"{URL}?wait=6", headers={"If-None-Match": tag}), out, "w")
    time.sleep(0.8)
    db.session.execute(update(Assignment).where(Assignment.id == a.id).values(published=False))
    db.session.commit()
    thread.join(10)
    fresh = in_thread(lambda: client.get(URL)).status_code
    assert fresh == 404 and out["w"][0] == fresh and out["w"][2] < 4, out


NOT_DECIMAL = ["1_0", "\uff15", " 2", "2 ", "1e1", "inf", "nan", "-1", "0x10", "", "+2", "١٢"]


def test_wait_accepts_ascii_decimal_only_in_the_list_and_the_api(app, web, course):
    alice, a = course["alice"], course["assignment"]
    graded = web.submit(alice, a)
    web.grade(graded, full_result())
    sub_id, token = graded.id, web.f.token(alice)
    client = signed_in(app, alice.email)
    tag = in_thread(lambda: client.get(URL)).headers["ETag"]
    for raw in NOT_DECIMAL:
        listed = in_thread(lambda raw=raw: client.get(URL, query_string={"wait": raw},
                                                      headers={"If-None-Match": tag}))
        api = in_thread(lambda raw=raw: app.test_client().get(f"/api/v1/submissions/{sub_id}",
                                                              query_string={"wait": raw}, headers=bearer(token)))
        assert (listed.status_code, api.status_code) == (400, 400), raw
        assert listed.json["code"] == api.json["code"] == "bad_wait"
    assert [parse_wait(raw, 20) for raw in ("0", "2", "2.5", ".5", "7.", "99")] == [0, 2, 2.5, 0.5, 7, 20]
    assert parse_wait(None, 20) == 0
    ok = in_thread(lambda: client.get(f"{URL}?wait=0.3", headers={"If-None-Match": tag}))
    assert ok.status_code == 304 and ok.headers["X-Long-Poll"] == "held"


def test_the_429s_say_what_they_count_in_both_languages(app, web, course):
    from app.longpoll import list_waits, waits

    alice, a = course["alice"], course["assignment"]
    pending = web.submit(alice, a).id
    token = web.f.token(alice)
    client = signed_in(app, alice.email)
    tag = in_thread(lambda: client.get(URL)).headers["ETag"]
    uid = alice.id
    with waits.admit(uid, per_user=9, slots=9), waits.admit(uid, per_user=9, slots=9):
        api = in_thread(lambda: app.test_client().get(f"/api/v1/submissions/{pending}?wait=1", headers=bearer(token)))
        listed = in_thread(lambda: client.get(f"{URL}?wait=0.3", headers={"If-None-Match": tag}))
    assert api.status_code == 429 and listed.status_code == 304       # API waits do not fill the list's allowance
    assert "API long polls" in api.json["message"]["en"] and "pages are not counted" in api.json["message"]["en"]
    assert "接口长轮询" in api.json["message"]["zh"] and "页面不计在内" in api.json["message"]["zh"]
    with list_waits.admit(uid, per_user=9, slots=9), list_waits.admit(uid, per_user=9, slots=9):
        listed = in_thread(lambda: client.get(f"{URL}?wait=1", headers={"If-None-Match": tag}))
    assert listed.status_code == 429 and listed.headers["Retry-After"] == "60"
    assert "2 attempts lists" in listed.json["message"]["en"] and "2 个提交列表" in listed.json["message"]["zh"]


@pytest.mark.parametrize("name", ["LONGPOLL_LIST_SLOTS", "LONGPOLL_LIST_PER_USER", "LONGPOLL_SLOTS",
                                  "LONGPOLL_PER_USER"])
def test_negative_long_poll_counts_are_refused_at_start(name):
    with pytest.raises(settings.SettingsError, match=name):
        settings.check({name: -1})
    settings.check({name: 0})


def test_the_web_threads_count_the_list_waits_too():
    held = {"DECODE_SLOTS": 1, "DECODE_QUEUE": 1, "LONGPOLL_SLOTS": 1, "LONGPOLL_LIST_SLOTS": 3}
    with pytest.raises(settings.SettingsError, match="LONGPOLL_LIST_SLOTS"):
        settings.check_web_threads(6, held)
    settings.check_web_threads(7, held)
