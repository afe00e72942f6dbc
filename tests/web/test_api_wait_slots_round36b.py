"""Round 36b: waits for a change of a graded attempt neither crowd out waits for a grading nor rebuild the
answer every second.

`?wait=` with If-None-Match on a graded attempt waits for a regrade that may never come. Such waits took
long-poll slots like any other: two students with two of them each filled LONGPOLL_SLOTS=4, and a third
student's wait for her queued attempt was answered at once. They now hold at most half of the slots. And the
wait rebuilt the whole answer every second (26 SQL statements in 5 s against 7 for a plain wait): it now reads
a small version of the answer and rebuilds it only when that changed."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import event

from app.extensions import db
from app.models import Submission
from app.regrading import request_regrade
from tests.web.test_api import bearer


def _poll(app, sub_id: int, token: str, wait: float, tag: str | None = None) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def poll() -> None:
        t0 = time.monotonic()
        headers = {**bearer(token), **({"If-None-Match": tag} if tag else {})}
        res = app.test_client().get(f"/api/v1/submissions/{sub_id}?wait={wait}", headers=headers)
        out.update(status=res.status_code, body=res.get_json(silent=True), took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    return thread, out


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 41)
def test_waits_on_graded_attempts_leave_slots_for_a_wait_on_a_queued_one(app, web, factory, monkeypatch):
    monkeypatch.setitem(app.config, "LONGPOLL_SLOTS", 4)
    monkeypatch.setitem(app.config, "LONGPOLL_PER_USER", 2)
    holders = []
    for n in range(2):
        student = factory.student(email=f"s{n}@example.edu")
        token = factory.token(student)
        sub = web.submit(student)
        web.grade(sub)
        tag = app.test_client().get(f"/api/v1/submissions/{sub.id}", headers=bearer(token)).headers["ETag"]
        holders += [_poll(app, sub.id, token, 4, tag) for _ in range(2)]
    time.sleep(0.5)
    carol = factory.student(email="carol@example.edu")
    queued = web.submit(carol)
    thread, out = _poll(app, queued.id, factory.token(carol), 1.5)
    thread.join(6)
    assert out["status"] == 200 and out["body"]["status"] == "queued"
    assert out["took"] >= 1.4, f"a wait for a grading was answered after {out['took']:.2f} s"
    for held, _ in holders:
        held.join(8)


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 41)
def test_a_wait_for_a_change_of_a_graded_attempt_reads_a_small_version_not_the_answer(app, web, factory):
    student = factory.student()
    token = factory.token(student)
    sub = web.submit(student)
    web.grade(sub)
    tag = app.test_client().get(f"/api/v1/submissions/{sub.id}", headers=bearer(token)).headers["ETag"]
    statements: list[str] = []
    main = threading.get_ident()

    def count(conn, cursor, statement, *args) -> None:
        if threading.get_ident() != main and not statement.lstrip().upper().startswith(("LISTEN", "SELECT 1")):
            statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        thread, out = _poll(app, sub.id, token, 5, tag)
        thread.join(10)
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    assert out["status"] == 304
    assert len(statements) <= 18, f"{len(statements)} SQL statements in a 5 s wait"
    # ... and a change still ends it
    thread, out = _poll(app, sub.id, token, 8, tag)
    time.sleep(1.2)
    request_regrade(db.session.get(Submission, sub.id))
    thread.join(6)
    assert out["status"] == 200 and out["body"]["status"] == "queued" and out["took"] < 4
