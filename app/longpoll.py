"""Admission for long polls (`?wait=S`): a waiting request holds a server thread, so waits are
bounded per user and per process.

* A user holding `LONGPOLL_PER_USER` waits in this process gets a 429 with `Retry-After` for the
  next one: one client cannot open thirty waits.
* The process holds at most `LONGPOLL_SLOTS` waits in all. Set below gunicorn's `--threads`, this
  keeps threads free for sign-in and pages whoever is waiting; a request past it is answered at
  once with the current state instead of waiting (the client simply polls again).

Counts are per web process (gunicorn worker), kept in memory: no Redis round trip per poll, and
nothing to clean up when a process dies.
"""

from __future__ import annotations

import enum
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager


class Admission(enum.Enum):
    WAIT = "wait"  # a slot is held for the duration of the block
    NOW = "now"  # every slot of the process is taken: answer at once without waiting
    USER_BUSY = "user_busy"  # this user already holds their share: refuse (429)


class WaitPool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_user: Counter[int] = Counter()
        self._total = 0

    @contextmanager
    def admit(self, user_id: int, *, per_user: int, slots: int) -> Iterator[Admission]:
        with self._lock:
            if self._by_user[user_id] >= per_user:
                verdict = Admission.USER_BUSY
            elif self._total >= slots:
                verdict = Admission.NOW
            else:
                verdict = Admission.WAIT
                self._by_user[user_id] += 1
                self._total += 1
        try:
            yield verdict
        finally:
            if verdict is Admission.WAIT:
                with self._lock:
                    self._total -= 1
                    self._by_user[user_id] -= 1
                    if not self._by_user[user_id]:
                        del self._by_user[user_id]


# One pool per process: gunicorn's threads share it.
waits = WaitPool()
