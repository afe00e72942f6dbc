"""Round 19 of hostile submissions at the sandbox's level: what the worker reads of refused replies,
and what one jail of an executor can take from the one beside it (their uid's thread limit)."""

from __future__ import annotations

import pytest
import torch

from grading.sandbox import StudentError
from grading.sandbox.client import ReplyAllowance
from tests.sandbox.helpers import assert_healthy

# Each call replies with a header of ~900 KB (a long string) and a body over any cap left: the
# header is read and parsed, then the reply is refused for its body and the session dies.
BIG_HEADER_THEN_REFUSED = '''
import torch


def big(n):
    return ("x" * n, torch.zeros(4_000_000))
'''


@pytest.fixture
def cap_ignored(monkeypatch):
    """The jail told no reply cap: it sends what a jail that ignores its cap (round 31: the runtime refuses a
    result over it itself) would, which this side refuses and charges."""
    monkeypatch.setattr(ReplyAllowance, "reply_cap", lambda self: 1 << 40)


def test_a_reply_refused_for_its_body_is_charged_for_the_header_read(executor, cap_ignored):
    # The refused reply's header (up to 1 MiB, read and JSON-parsed by the worker) was not counted
    # against the grading's allowance: six sessions each ending this way made the worker read 6 MiB
    # beyond Limits.max_received, and the next session's cap was still the whole allowance.
    shared = ReplyAllowance(8 << 20)
    for _ in range(3):
        with executor.session(BIG_HEADER_THEN_REFUSED, "big.py", "big", replies=shared) as s:
            s.load()
            before = shared.spent
            with pytest.raises(StudentError) as ei:
                s.call_function("big", 900_000)
            assert ei.value.kind == "InvalidResult", ei.value
            assert shared.spent - before >= 900_000, (before, shared.spent)
    assert shared.spent >= 3 * 900_000
    assert_healthy(executor)


def test_once_refused_headers_have_spent_the_allowance_the_next_session_reads_no_more_of_them(executor, cap_ignored):
    # Charged, a refused header shrinks what the next session may read: its header cap is what is
    # left, so a second 1 MB header is refused from its length (4 bytes read), not read and parsed.
    shared = ReplyAllowance(1_500_000)
    with executor.session(BIG_HEADER_THEN_REFUSED, "big.py", "big", replies=shared) as s:
        s.load()
        with pytest.raises(StudentError):
            s.call_function("big", 1_000_000)
    spent = shared.spent
    assert spent > 1_000_000
    with executor.session(BIG_HEADER_THEN_REFUSED, "big.py", "big", replies=shared) as s:
        s.load()
        with pytest.raises(StudentError) as ei:
            s.call_function("big", 1_000_000)
        assert ei.value.kind == "InvalidResult"
    assert shared.spent - spent < ReplyAllowance.FLOOR, shared.spent - spent
    x = torch.zeros(3)
    with executor.session("def f(x):\n    return x + 1\n", "ok.py", "ok", replies=shared) as s:
        s.load()
        assert torch.equal(s.call_function("f", x), x + 1)    # small replies still fit (the floor)


# A module that starts threads (each sleeping) until RLIMIT_NPROC refuses one, and says how many it got.
THREAD_HOARDER = '''
import os
import threading
import time

_held = []


def hoard():
    while True:
        try:
            t = threading.Thread(target=time.sleep, args=(60,), daemon=True)
            t.start()
        except RuntimeError:
            break
        _held.append(t)
    return len(_held)


def uid():
    return os.getuid()
'''


def test_jails_open_side_by_side_each_get_the_threads_rlimit_nproc_allows(executor):
    # The jails of one executor ran as one uid, and RLIMIT_NPROC (16) counts a uid's threads: a jail
    # holding all it could get left the one opened next to it, in the same grading (the determinism
    # test's fresh session), what was left of the 16. Each live jail now has a uid
    # of its own among the executor's (the zygote picks one no live jail has).
    with executor.session(THREAD_HOARDER, "h.py", "h") as a:
        a.load()
        got_a = a.call_function("hoard")
        with executor.session(THREAD_HOARDER, "h.py", "h") as b:
            b.load()
            got_b = b.call_function("hoard")
            uid_a, uid_b = a.call_function("uid"), b.call_function("uid")
    # Measured: 10 each (the address space ends them first); before, the second jail got 4.
    assert got_a >= 4, got_a
    assert got_b == got_a, (got_a, got_b)
    assert uid_a != uid_b and {uid_a, uid_b} <= set(executor.uids), (uid_a, uid_b, executor.uids)
    assert min(executor.uids) >= 60000
    with executor.session(THREAD_HOARDER, "h.py", "h") as c:    # alone again: any of the executor's uids
        c.load()                                                # (drawn: round 31)
        assert c.call_function("uid") in executor.uids
    assert_healthy(executor)


def test_past_its_uids_an_executor_shares_the_least_used_one(executor):
    # More live jails than uids (none in a grading: at most 2-3 at once) share, as all did before.
    import contextlib

    with contextlib.ExitStack() as stack:
        seen = []
        for _ in range(len(executor.uids) + 1):
            s = stack.enter_context(executor.session(THREAD_HOARDER, "h.py", "h"))
            s.load()
            seen.append(s.call_function("uid"))
    # Each a free uid while there is one (drawn among them: round 31), then one of the least shared.
    assert sorted(seen[:-1]) == sorted(executor.uids) and seen[-1] in executor.uids, seen
    assert_healthy(executor)


def test_no_two_slots_share_a_uid_and_each_first_uid_is_60000_plus_its_slot():
    # Slots are exclusive (a lock file each), so disjoint uids keep every executor's jails apart; the
    # first uid is the one a slot had before round 19 (an executor still on it never meets a new one).
    from grading.sandbox.client import MAX_SLOTS, Executor

    seen: set[int] = set()
    for slot in range(MAX_SLOTS):
        ex = object.__new__(Executor)           # the uids only: no zygote
        ex.slot, ex.uid = slot, 60000 + slot
        uids = ex.uids
        assert uids[0] == 60000 + slot and len(set(uids)) == len(uids) >= 2
        assert all(60000 <= u <= 65000 for u in uids)
        assert not seen & set(uids), slot
        seen |= set(uids)
