"""Round 48, a zh student whose attempt waits while no grading worker is alive (no heartbeat within
HEARTBEAT_STALE_S): the page said only how many submissions are ahead, under a spinner that never ended, while
the instructor's dashboard says runs wait for a worker. The student's page and its status JSON say so too; with
a live worker, or once graded, nothing is added."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import WorkerHeartbeat, utcnow

NOTE = {"zh": "目前没有在线的评分进程：这份提交会保留在队列中的位置，评分进程启动后就会评分。",
        "en": "No grader is running right now: this submission keeps its place in the queue and is graded when "
              "one starts."}


def _note(page: str) -> tuple[bool, str]:
    m = re.search(r"<p data-no-workers class=\"small muted\" role=\"status\" ?(hidden)?>(.*?)</p>", page, re.S)
    assert m, "the note's element is on the page (the live script shows and hides it)"
    return m.group(1) is None, m.group(2)


def _beat(seconds_ago: float) -> None:
    db.session.add(WorkerHeartbeat(hostname="w1@grader", started_at=utcnow() - timedelta(hours=1),
                                   last_seen=utcnow() - timedelta(seconds=seconds_ago)))
    db.session.commit()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_queued_attempt_with_no_live_worker_says_none_is_running(client, web, course, lang):
    sub = web.submit(course["alice"], audit=False, figure=False)
    _beat(3600)                                     # a worker that stopped an hour ago is not alive
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    shown, text = _note(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert shown and text == NOTE[lang]
    assert client.get(f"/submissions/{sub.id}/status").json["workers_live"] is False


def test_a_live_worker_or_a_graded_attempt_adds_nothing(client, web, course):
    sub = web.submit(course["alice"], audit=False, figure=False)
    _beat(1)
    web.login(client, course["alice"])
    shown, _ = _note(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert not shown and client.get(f"/submissions/{sub.id}/status").json["workers_live"] is True
    web.grade(sub)
    shown, _ = _note(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert not shown and client.get(f"/submissions/{sub.id}/status").json["workers_live"] is None
