"""Admission for long polls (`?wait=S`): a waiting request holds a server thread, so waits are
bounded per user and per process.

* A user holding `LONGPOLL_PER_USER` waits in this process gets a 429 with `Retry-After` for the
  next one: one client cannot open thirty waits.
* The attempts lists' waits (the assignment page) are counted apart, in `list_waits` (LONGPOLL_LIST_PER_USER,
  LONGPOLL_LIST_SLOTS), whose users take turns: open tabs never take the API's waits.
* The process holds at most `LONGPOLL_SLOTS` waits in all. Set below gunicorn's `--threads`, this
  keeps threads free for sign-in and pages whoever is waiting; a request past it is answered at
  once with the current state instead of waiting (the client simply polls again).

Counts are per web process (gunicorn worker), kept in memory: no Redis round trip per poll, and
nothing to clean up when a process dies.

When the process is asked to stop (gunicorn's SIGTERM: autograder/gunicorn_conf.py calls
`stop_waiting`), every wait ends at once and answers the current status, and later polls do not wait:
a restart took up to LONGPOLL_MAX_WAIT_S (18.4 s measured with one `?wait=20` open), as long as
gunicorn's graceful_timeout, so a poll could be cut off with no answer.
"""

from __future__ import annotations

import enum
import logging
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)


class Admission(enum.Enum):
    WAIT = "wait"  # a slot is held for the duration of the block
    NOW = "now"  # every slot of the process is taken: answer at once without waiting
    USER_BUSY = "user_busy"  # this user already holds their share: refuse (429)


# Set once the process is stopping: no wait starts, and the waiting ones end (stop_waiting).
_stopping = threading.Event()


def stopping() -> bool:
    return _stopping.is_set()


def pause(seconds: float) -> bool:
    """Sleep `seconds` unless the process is stopping; True when it is (the wait should end now)."""
    return _stopping.wait(seconds)


def stop_waiting() -> None:
    """End every long poll of this process now (each answers the status it reads), and answer later
    ones at once. Called from the SIGTERM handler, which runs in the main thread: it sets one Event,
    whose own lock only request threads and the watcher take (gunicorn's gthread main thread never
    waits on it), and takes no other lock; the thread `watch_for_stop` started wakes the waits parked
    on a listener (taking the listeners' lock in the handler could deadlock with an interrupted main
    thread holding it)."""
    _stopping.set()


def watch_for_stop() -> threading.Thread:
    """Start the thread that wakes this process's listened waits once `stop_waiting` is called (one
    per process: call it in each forked worker)."""
    def watch() -> None:
        _stopping.wait()
        with _listeners_lock:
            listeners = list(_listeners.values())
        for listener in listeners:
            listener.wake()

    thread = threading.Thread(target=watch, name="longpoll-stop", daemon=True)
    thread.start()
    return thread


# How long a list wait refused for want of a slot (`now`) counts as a user waiting for a turn: the page asks
# again within 1-2 s, backing off to a try each 60-70 s (app/static/app.js, round 39 and its mend), so a user still
# on the page asks again within it.
TURN_S = 75.0

_WAIT_RE = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", re.ASCII)


def parse_wait(raw: str | None, longest: float) -> float | None:
    """`?wait=` as seconds within [0, longest]: 0 when absent, None when it is not ASCII decimal digits with at
    most one point (float() also took `1_0`, full-width digits, blanks, `1e9`, `inf`). The API and the attempts
    list share it, so that both accept the same texts."""
    if raw is None:
        return 0.0
    if not _WAIT_RE.fullmatch(raw):
        return None
    return min(float(raw), longest)


class WaitPool:
    """Waits held per user and in all. With ``turns`` (the attempts lists' pool) a free slot goes first to a user
    refused meanwhile (`now` within TURN_S) whose last wait ended earlier: a page asks again at once when its
    wait ends, so two students' pages kept both slots and a third's always got `now`."""

    def __init__(self, *, turns: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._by_user: Counter[int] = Counter()
        self._total = 0
        self._turns = turns
        self._clock = clock
        self._refused: dict[int, float] = {}   # user -> when last answered `now` (turns only)
        self._ended: dict[int, float] = {}     # user -> when their last wait ended (turns only)

    def _gives_way(self, user_id: int, free: int, now: float) -> bool:
        """Called with the lock held: whether this user's turn comes after that of enough users refused meanwhile
        to fill the free slots (those whose last wait ended before this user's, or who never held one)."""
        for table in (self._refused, self._ended):
            for user in [u for u, t in table.items() if now - t > TURN_S]:
                del table[user]
        mine = self._ended.get(user_id, float("-inf"))
        ahead = sum(1 for user in self._refused
                    if user != user_id and not self._by_user[user] and self._ended.get(user, float("-inf")) < mine)
        return ahead >= free

    @contextmanager
    def admit(self, user_id: int, *, per_user: int, slots: int) -> Iterator[Admission]:
        with self._lock:
            now = self._clock()
            if self._by_user[user_id] >= per_user:
                verdict = Admission.USER_BUSY
            elif (self._total >= slots or _stopping.is_set()
                  or (self._turns and self._gives_way(user_id, slots - self._total, now))):
                verdict = Admission.NOW
            else:
                verdict = Admission.WAIT
                self._by_user[user_id] += 1
                self._total += 1
            if self._turns and verdict is Admission.NOW:
                self._refused[user_id] = now
            elif self._turns and verdict is Admission.WAIT:
                self._refused.pop(user_id, None)
        try:
            yield verdict
        finally:
            if verdict is Admission.WAIT:
                with self._lock:
                    self._total -= 1
                    self._by_user[user_id] -= 1
                    if not self._by_user[user_id]:
                        del self._by_user[user_id]
                    if self._turns:
                        self._ended[user_id] = self._clock()


# One pool per process for the API's waits, gunicorn's threads share it; the attempts lists' waits have their own
# (LONGPOLL_LIST_PER_USER, LONGPOLL_LIST_SLOTS), taking turns: a page never takes a slot an API client was promised.
waits = WaitPool()
list_waits = WaitPool(turns=True)


# --- waking waiters when a grading ends ----------------------------------------------------------
#
# PostgreSQL sends `NOTIFY autograder_submission_final, '<submission id>'` when a submission's
# status becomes final (migration 0008: a trigger, so every writer is covered, the workers
# included, and the notification is delivered when their transaction commits). One thread per web
# process LISTENs on its own connection and wakes the requests waiting for that submission: a
# wait for a grading's end reads its status only every SAFETY_CHECK_S (a lost notification) until
# then. A wait for a change of the answer (If-None-Match, app/api.py) also reads a small version of
# the answer every CHANGE_CHECK_S (a regrade queued, an override or a review notify nothing), one
# statement, and rebuilds the answer only when it changed. Where there is no listener (SQLite, or
# the listening connection is down) a wait reads the status every POLL_S, as before.

FINAL_CHANNEL = "autograder_submission_final"
POLL_S = 0.1            # the status read of a wait that has no listener
SAFETY_CHECK_S = 5.0    # a listened wait still reads the status this often (a lost notification)
IDLE_STOP_S = 60.0      # the listener disconnects after this long with nobody waiting
RECENT_S = 120.0        # how long a notification is remembered for waits that start late


class FinalListener:
    """One LISTEN connection per process and database; waits park on a condition variable."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._cond = threading.Condition()
        self._final_at: dict[int, float] = {}   # submission id -> monotonic time notified
        self._listening_since: float | None = None  # None: not listening right now
        self._waiting = 0
        self._last_wait = time.monotonic()
        self._thread: threading.Thread | None = None
        self._pid = 0

    # -- the waiting side (request threads) --

    def wait_final(self, submission_id: int | Collection[int], since: float, deadline: float,
                   is_final: Callable[[], bool], until: threading.Event | None = None) -> bool:
        """Block until submission ``submission_id`` (or one of several ids: the attempts list) is final or
        ``deadline`` (monotonic) passes.

        ``since``: a monotonic time taken before the caller last read the status and found it
        not final. ``is_final()`` reads the status from the database (used only when a
        notification may have been missed: the listener started or reconnected after ``since``,
        no listener, or every SAFETY_CHECK_S). ``until``: set (then `wake()`), the wait ends now (a
        tab's newer list wait, app/attempts_wait.py). Returns True when the submission is final."""
        ids = (submission_id,) if isinstance(submission_id, int) else tuple(submission_id)
        checked = since      # a final status committed after this would have been notified
        last_read = time.monotonic()
        with self._cond:
            self._waiting += 1
            self._ensure_thread()
        try:
            while ((now := time.monotonic()) < deadline and not _stopping.is_set()
                   and not (until is not None and until.is_set())):
                with self._cond:
                    listening = self._listening_since
                    if listening is not None and any(self._final_at.get(i, -1.0) >= checked for i in ids):
                        return True
                    must_read = listening is None or listening > checked or now - last_read >= SAFETY_CHECK_S
                    if not must_read:
                        # checked again under the lock the stop's wake-up takes: a wake-up between the loop's
                        # check and this wait would otherwise be lost, and the poll wait up to SAFETY_CHECK_S
                        if not _stopping.is_set() and not (until is not None and until.is_set()):
                            self._cond.wait(min(deadline - now, SAFETY_CHECK_S - (now - last_read)))
                        continue
                if listening is None:  # no listener: poll, as without notifications
                    with self._cond:
                        self._cond.wait(min(POLL_S, max(0.0, deadline - now)))
                t = time.monotonic()
                if is_final():
                    return True
                checked = last_read = t
            return False
        finally:
            with self._cond:
                self._waiting -= 1
                self._last_wait = time.monotonic()

    def wake(self) -> None:
        """Wake every wait parked here so that it sees the process is stopping."""
        with self._cond:
            self._cond.notify_all()

    # -- the listening side (one daemon thread) --

    def _ensure_thread(self) -> None:
        # Called with the lock held. A forked process (gunicorn worker) starts its own thread.
        if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._listening_since = None
        self._thread = threading.Thread(target=self._run, name="longpoll-listener", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        backoff = 0.2
        while True:
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {FINAL_CHANNEL}")
                    with self._cond:
                        self._listening_since = time.monotonic()
                        self._cond.notify_all()  # waits re-read once: they may have missed one
                    backoff = 0.2
                    while not self._idle():
                        for note in conn.notifies(timeout=SAFETY_CHECK_S):
                            self._notified(note.payload)
                        conn.execute("SELECT 1")  # a dead connection raises here
                    with self._cond:
                        if self._idle_locked():
                            self._listening_since = None
                            self._thread = None
                            return
            except Exception as exc:  # noqa: BLE001 - any failure: poll meanwhile, reconnect
                log.warning("long-poll listener: %s; waits poll the database until it is back", exc)
            with self._cond:
                self._listening_since = None
                self._cond.notify_all()
                if self._idle_locked():
                    self._thread = None
                    return
            time.sleep(backoff)
            backoff = min(backoff * 2, 10.0)

    def _notified(self, payload: str) -> None:
        try:
            submission_id = int(payload)
        except ValueError:
            return
        now = time.monotonic()
        with self._cond:
            self._final_at[submission_id] = now
            if len(self._final_at) > 1000:
                self._final_at = {k: t for k, t in self._final_at.items() if now - t < RECENT_S}
            self._cond.notify_all()

    def _idle(self) -> bool:
        with self._cond:
            return self._idle_locked()

    def _idle_locked(self) -> bool:
        return not self._waiting and time.monotonic() - self._last_wait > IDLE_STOP_S


_listeners: dict[str, FinalListener] = {}
_listeners_lock = threading.Lock()


def final_listener(engine) -> FinalListener | None:
    """The process's listener for this engine's database; None where there are no notifications."""
    if engine.dialect.name != "postgresql":
        return None
    conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with _listeners_lock:
        listener = _listeners.get(conninfo)
        if listener is None:
            listener = _listeners[conninfo] = FinalListener(conninfo)
        return listener
