"""The long poll of the assignment page's attempts list (`GET /assignments/<slug>/attempts?wait=S`, round 38).

The list was asked once a minute, so an instructor's regrade showed on an open page up to a minute late. With
`?wait=S` and If-None-Match the answer comes as soon as it is another than the one tagged, or a 304 after S s.
The wait reads one statement for the whole list every CHANGE_CHECK_S (how many attempts, runs, overrides and
reviews, the newest of each, each one's status: whatever the number of attempts) and rebuilds the answer only when
that changed; on PostgreSQL a final status of one of the student's attempts wakes it at once (app/longpoll.py).
Waits are admitted per user and per process in a pool of their own (app/longpoll.py list_waits, where users take
turns), never taking the API's; the answer says whether it waited (`X-Long-Poll`), so
the page falls back to its minute check when the server answered at once."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Select, bindparam, case, func, select

from app.coursework import rubric_stamp
from app.extensions import db
from app.longpoll import final_listener, stopping
from app.models import Assignment, AuditReview, GradingRun, ScoreOverride, Status, Submission, User

# How often a held list wait reads the list's version: a regrade queued or started, an override or a review
# notify nothing (only a final status does, which wakes the wait at once). The brief: a change within seconds.
CHANGE_CHECK_S = 1.0


# A page left while its list wait is held (a link, the back button, a language switch, a reload) does not end the
# wait: the server is not told the connection is gone, so the wait held its slot up to 20 s, and the tab's next page
# was refused (429: the user's two waits taken) and checked once a minute. Each tab sends an id kept in its
# sessionStorage (`tab`, the same across the tab's pages); its newer wait ends the older one at once.
SUPERSEDE_S = 2.0   # how long a newer wait waits for the older one to give its slot back


class _Held:
    def __init__(self) -> None:
        self.stop = threading.Event()   # set: a newer wait of the same tab came; this one answers now
        self.done = threading.Event()   # set: this wait gave its slot back


_held: dict[tuple[int, str], _Held] = {}
_held_lock = threading.Lock()


@contextmanager
def tab_wait(user_id: int, tab: str | None) -> Iterator[threading.Event]:
    """The wait of one tab (``tab``: its id, None when not sent): an earlier wait of the same tab still held ends
    at once and gives back its slot before this one is admitted. Yields the event that ends this wait."""
    mine = _Held()
    key = (user_id, tab) if tab else None
    old = None
    if key is not None:
        with _held_lock:
            old, _held[key] = _held.get(key), mine
    if old is not None:
        old.stop.set()
        listener = final_listener(db.engine)
        if listener is not None:
            listener.wake()
        old.done.wait(SUPERSEDE_S)
    try:
        yield mine.stop
    finally:
        mine.done.set()
        if key is not None:
            with _held_lock:
                if _held.get(key) is mine:
                    del _held[key]


@functools.cache
def _version_statement() -> Select:
    """One statement for the whole list, built once (the student and the assignment bound parameters)."""
    student, assignment = bindparam("student"), bindparam("assignment")
    mine = select(Submission.id).where(Submission.student_id == student,
                                       Submission.assignment_id == assignment).scalar_subquery()
    states = case(*((GradingRun.status == s.value, i + 1) for i, s in enumerate(Status)), else_=0)
    sub_states = case(*((Submission.status == s.value, i + 1) for i, s in enumerate(Status)), else_=0)

    def of(model, *columns):
        return [select(c).where(model.submission_id.in_(mine)).scalar_subquery() for c in columns]

    return select(
        # published: hidden during a wait, the wait ends and is answered as a fresh request (404)
        Assignment.published, Assignment.late_penalty_per_day, Assignment.suite,
        *[select(c).where(Submission.student_id == student, Submission.assignment_id == assignment)
          .scalar_subquery()
          for c in (func.count(Submission.id), func.max(Submission.id), func.sum(Submission.id * sub_states),
                    func.sum(Submission.id * Submission.late_days))],
        *of(GradingRun, func.count(GradingRun.id), func.max(GradingRun.id), func.sum(GradingRun.id * states)),
        *of(ScoreOverride, func.count(ScoreOverride.id), func.max(ScoreOverride.id)),
        *of(AuditReview, func.count(AuditReview.id), func.max(AuditReview.id)),
        # renewed at sign-out (another tab's, a password change): the wait ends, the page is told it is signed out
        select(User.session_nonce).where(User.id == student).scalar_subquery().label("nonce"),
    ).where(Assignment.id == assignment)


def list_version(student_id: int, assignment_id: int) -> tuple:
    """What the list's answer is made of, in one read: the same version, the same answer (runs, overrides and
    reviews are added or deleted, never edited in place, except a run's status, which is summed in; the rubric
    file's stamp: its audit category decides whether a review counts)."""
    row = db.session.execute(_version_statement(), {"student": student_id, "assignment": assignment_id}).first()
    return (*row, rubric_stamp(row.suite)) if row is not None else ()


def wait_for_list_change(student_id: int, assignment_id: int, since: float, wait: float,
                         still_current: Callable[[], bool], end_read: Callable[[], None],
                         until: threading.Event, nonce: str) -> bool:
    """Return when the list's answer is another than the one tagged (`still_current()` false), after `wait` s, or
    once ``until`` is set (the tab's newer wait). `end_read()` ends the request's read transaction (no pooled
    connection held while parked, new commits seen). False when the session ended meanwhile (the user's
    ``nonce`` renewed: signed out elsewhere), which the page was told only up to 20 s later. The assignment deleted
    or hidden meanwhile changes the version (none, or `published`): `still_current()` then says whether it ends."""
    deadline = time.monotonic() + wait
    listener = final_listener(db.engine)
    seen: tuple | None = None
    ids: tuple[int, ...] = ()
    while not stopping() and not until.is_set() and time.monotonic() < deadline:
        checked = time.monotonic()
        end_read()
        version = list_version(student_id, assignment_id)
        if version and version[-2] != nonce:
            end_read()
            return False
        if version != seen:
            if not still_current():
                break
            seen = version
            ids = tuple(db.session.scalars(select(Submission.id).where(
                Submission.student_id == student_id, Submission.assignment_id == assignment_id)))
        end_read()
        step = min(deadline, checked + CHANGE_CHECK_S)
        if listener is not None and ids:
            listener.wait_final(ids, max(since, checked), step, lambda: False, until=until)
        else:   # no notifications: a check a second (a process stopping answers within it)
            until.wait(max(0.0, step - time.monotonic()))
    end_read()
    return True
