"""Round 37: the assignment page's list of attempts watches graded attempts for a later regrade.

The list polled only the rows queued or running (one status request per row); a graded attempt regraded by an
instructor kept its old score until a reload. The page now asks `/assignments/<slug>/attempts` once a minute:
every attempt of the student in one answer, with an ETag (a 304 when nothing changed), that never waits on the
server (no long-poll slot taken). Here: the answer, its tag across a real regrade, who sees what, and the rows'
attributes the page compares with it."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from app.extensions import db
from app.longpoll import waits
from app.models import Submission
from app.regrading import request_regrade
from tests.browser.helpers import full_result


@pytest.fixture
def graded(app, web, course):
    """Alice's two attempts, both graded; Bob's one."""
    alice, a = course["alice"], course["assignment"]
    first, second = web.submit(alice, a), web.submit(alice, a)
    web.grade(first, full_result())
    web.grade(second, full_result(failing=("test_large_logits_stable",)))
    bob_sub = web.submit(course["bob"], a)
    web.grade(bob_sub, full_result())
    return {"first": first.id, "second": second.id, "bob": bob_sub.id}


def _list(client, slug: str = "attention", tag: str | None = None):
    return client.get(f"/assignments/{slug}/attempts", headers={"If-None-Match": tag} if tag else {})


def test_the_list_answers_each_attempt_of_the_student_and_a_304_for_its_current_tag(app, client, web, course, graded):
    web.login(client, course["alice"])
    res = _list(client)
    assert res.status_code == 200 and res.headers["Cache-Control"] == "private, no-store"
    rows = {r["id"]: r for r in res.json["attempts"]}
    assert set(rows) == {graded["first"], graded["second"]}                 # not Bob's
    first = db.session.get(Submission, graded["first"])
    assert rows[graded["first"]] == {"id": first.id, "attempt": first.attempt, "status": "graded",
                                     "run_id": first.latest_run.id, "graded_run_id": first.latest_graded_run.id, "total": 96.0,
                                     "max_total": 100.0}
    assert rows[graded["second"]]["total"] < 96
    again = _list(client, tag=res.headers["ETag"])
    assert again.status_code == 304 and not again.data


def test_a_real_regrade_changes_the_answer_queued_then_with_its_new_score(app, client, web, course, graded):
    web.login(client, course["alice"])
    tag = _list(client).headers["ETag"]
    run = request_regrade(db.session.get(Submission, graded["first"]))
    queued = _list(client, tag=tag)
    assert queued.status_code == 200
    row = next(r for r in queued.json["attempts"] if r["id"] == graded["first"])
    assert row["status"] == "queued" and row["total"] == 96.0   # the earlier result stays until the new one is in
    web.grade(db.session.get(Submission, graded["first"]), full_result(failing=("test_large_logits_stable",)),
              run=run)
    done = _list(client, tag=queued.headers["ETag"])
    assert done.status_code == 200
    row = next(r for r in done.json["attempts"] if r["id"] == graded["first"])
    assert row["status"] == "graded" and row["graded_run_id"] == run.id and row["total"] < 96


def test_the_list_takes_no_long_poll_slot_and_needs_a_session(app, client, web, course, graded):
    assert _list(client).status_code in (302, 401)                              # signed out: no attempts
    web.login(client, course["alice"])
    with waits.admit(course["alice"].id, per_user=1, slots=1):                   # the user's one wait held
        assert _list(client).status_code == 200
    assert _list(client, slug="no-such-lab").status_code == 404


def test_each_row_carries_what_the_page_compares_with_the_list(app, client, web, course, graded):
    web.login(client, course["alice"])
    html = client.get("/assignments/attention?lang=zh").get_data(as_text=True)
    assert 'data-attempts-url="/assignments/attention/attempts"' in html
    first = db.session.get(Submission, graded["first"])
    assert re.search(rf'data-id="{first.id}" data-graded-run="{first.latest_graded_run.id}"\s+data-total="96.0"',
                     html)
    labels = json.loads(unescape(re.search(r'id="attempts"[^>]*data-labels=\'([^\']*)\'', html).group(1)))
    assert labels["rescored"] == "第 %n 次提交：分数现在是 %total / %max。"
