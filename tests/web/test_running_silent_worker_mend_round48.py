"""Mend round 48 (review E, M1): a ``running`` attempt whose worker has given no sign of life (no heartbeat of it
within HEARTBEAT_STALE_S, the claim older than that) said "a worker is running the tests on your code…" until some
worker's sweeper sent it again, and for ever with no worker alive. The page now says what was checked: that
worker is silent (or the run is older than any task may live, RUN_DEADLINE_S), whether any worker is live, and
whether the run has tries left (the sweeper's rules decide what happens next: worker/sweeper.py, worker/runs.py).
A beating holder within the deadline still reads "a worker is running the tests"."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from app import monitoring
from app.extensions import db
from app.models import GradingRun, Status, WorkerHeartbeat, utcnow

# The page's words, (zh, en); a stalled run's detail is a "seen" sentence and then a "then" sentence.
WORDS = {
    "running": ("评分进程正在运行你的代码的测试…", "A worker is running the tests on your code…"),
    "silent": ("接手这份提交的评分进程已超过 30 秒没有发出运行信号。",
               "The grader that took this submission has given no sign of life for over 30 seconds. "),
    "overdue": ("这份提交的评分已开始超过 6 分钟，比任何一次评分允许的时间都长。",
                "Grading of this submission started more than 6 minutes ago, longer than any grading may take. "),
    "no_worker": ("目前没有在线的评分进程：评分进程启动后会重新评分。",
                  "No grader is running right now: it is graded again when one starts."),
    "retry": ("正在运行的评分进程会接手，重新评分。", "A grader that is running takes it over and grades it again."),
    "given_up": ("这份提交已经开始评分 3 次，达到上限：不会再自动重试，教师可以重新评分。",
                 "Grading it has been started 3 times, the most allowed: it is not started again by itself; an "
                 "instructor can regrade it."),
}


def words(lang: str, *parts: str) -> str:
    return "".join(WORDS[p][lang == "en"] for p in parts)


def _beat(name: str, seconds_ago: float, started_min_ago: float = 60) -> None:
    db.session.add(WorkerHeartbeat(hostname=name, started_at=utcnow() - timedelta(minutes=started_min_ago),
                                   last_seen=utcnow() - timedelta(seconds=seconds_ago)))
    db.session.commit()


def _running(sub, worker: str = "w1@g:1", claimed_s_ago: float = 120, tries: int = 1) -> GradingRun:
    run = sub.latest_run
    run.status, run.worker, run.tries = Status.RUNNING.value, worker, tries
    run.started_at = utcnow() - timedelta(seconds=claimed_s_ago)
    sub.status = Status.RUNNING.value
    db.session.commit()
    return run


def _detail(page: str) -> str:
    m = re.search(r"<span data-detail class=\"muted\" aria-live=\"polite\">(.*?)</span>", page, re.S)
    assert m
    return m.group(1).strip()


def _note_shown(page: str) -> bool:
    m = re.search(r"<p data-no-workers [^>]*?( hidden)?>", page)
    assert m
    return m.group(1) is None


def _see(client, web, course, sub, lang: str) -> tuple[dict, str]:
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    return (client.get(f"/submissions/{sub.id}/status").json,
            client.get(f"/submissions/{sub.id}").get_data(as_text=True))


# name: (claim age s, tries, {worker: heartbeat age s}, (worker_silent, overdue, workers_live, tries_left), words)
PAGES = {
    # the review's reproducer: claimed 30 min ago by w1, whose last heartbeat is an hour old; no worker beats
    "holder and every other worker silent": (1800, 1, {"w1@g:1": 3600}, (True, False, False, True),
                                             ("silent", "no_worker")),
    "holder silent, another worker beats": (120, 1, {"w1@g:1": 3600, "w2@g:2": 1}, (True, False, True, True),
                                            ("silent", "retry")),
    "holder silent, no tries left": (120, 3, {"w2@g:2": 1}, (True, False, True, False), ("silent", "given_up")),
    # the sweeper's deadline rule (RUN_DEADLINE_S, 6 min here): no task lives that long, though its worker beats
    "holder beats, claimed past the deadline": (1800, 1, {"w1@g:1": 3}, (False, True, True, True),
                                                ("overdue", "retry")),
    "holder beats": (120, 1, {"w1@g:1": 5}, (False, False, None, None), ("running",)),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("case", PAGES)
def test_a_running_attempt_says_what_was_checked_of_its_worker(client, web, course, app, case, lang):
    claimed, tries, beats, flags, parts = PAGES[case]
    assert int(app.config["MAX_TRIES"]) == 3
    sub = web.submit(course["alice"], audit=False, figure=False)
    _running(sub, claimed_s_ago=claimed, tries=tries)
    for name, age in beats.items():
        _beat(name, age)
    status, page = _see(client, web, course, sub, lang)
    assert status["status"] == "running"
    assert (status["worker_silent"], status["overdue"], status["workers_live"], status["tries_left"]) == flags
    assert _detail(page) == words(lang, *parts)
    assert status["stalled"] == (None if parts == ("running",) else words(lang, *parts))
    assert not _note_shown(page)        # the queue's note speaks of a place in the queue: not a running run's case


# (holder's heartbeat age s or None for no row, minutes its process started before now, claim age s)
CASES = {
    "holder beats, claimed past RUN_DEADLINE_S": (3, 60, 1800),
    "holder silent, claimed past RUN_DEADLINE_S": (3600, 60, 1800),
    "holder beats": (3, 60, 120),
    "holder beat 29 s ago": (29, 60, 120),
    "holder silent 31 s": (31, 60, 120),
    "holder silent an hour": (3600, 60, 120),
    "no row of the holder": (None, 60, 120),
    "no row, claimed 10 s ago": (None, 60, 10),
    "holder's name reused by a process started after the claim": (3, 1, 120),
}


@pytest.mark.parametrize("case", CASES)
def test_the_page_calls_a_run_stalled_exactly_when_the_sweeper_would_take_it_over(web, course, case):
    """The web's checks and worker.runs.abandoned_clause (what the sweeper and the claim use) agree on every
    heartbeat and deadline case, so the page never says "taken over" of a run the sweeper leaves alone, or the
    reverse. (Its one other rule, a dead pid of the worker's own host, needs that host.)"""
    from worker.runs import RUNS, abandoned_clause

    age, started_min, claimed = CASES[case]
    sub = web.submit(course["alice"], audit=False, figure=False)
    run = _running(sub, claimed_s_ago=claimed)
    if age is not None:
        _beat("w1@g:1", age, started_min_ago=started_min)
    abandoned = db.session.scalar(select(abandoned_clause()).select_from(RUNS).where(RUNS.c.id == run.id))
    assert (monitoring.holder_silent(run) or monitoring.run_overdue(run)) is bool(abandoned)
    assert monitoring.stall_checks(run) == (monitoring.holder_silent(run), monitoring.run_overdue(run))


def test_any_worker_live_agrees_with_the_dashboards_count(web, course):
    assert monitoring.any_worker_live() is False and monitoring.live_workers() == []
    _beat("w1@g:1", 3600)
    assert monitoring.any_worker_live() is False
    _beat("w2@g:2", 2)
    assert monitoring.any_worker_live() is True and len(monitoring.live_workers()) == 1


def test_an_instructor_reads_the_queue_note_about_this_submission_not_yours(client, web, course):
    """Review E, L2: the note was addressed to the student ("your submission") on the teacher's view too."""
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.login(client, course["teacher"])
    client.get("/lang/en")
    page = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert _note_shown(page)
    assert "No grader is running right now: this submission keeps its place in the queue" in page
    assert "your submission keeps" not in page
