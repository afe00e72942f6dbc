"""Round 31 at the sandbox's level: what a jail can read of the session it runs in (its CPU rlimit, its uid)
tells it nothing of which session it is, and a result over a reply's cap costs that call only."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
import torch

from grading.sandbox import SandboxDied, StudentError
from grading.sandbox.client import ReplyAllowance
from grading.sandbox.zygote import jail_uid
from tests.sandbox.helpers import assert_healthy

SPIN = '''
import resource, time


def rlimit_cpu():
    return list(resource.getrlimit(resource.RLIMIT_CPU))


def spin():
    while True:
        pass
'''


def test_a_session_cut_below_the_executors_cpu_sees_the_executors_rlimit_and_is_stopped_at_its_own(executor):
    # The rlimit followed the grading's budget: 20 s in the visible tests' session, 8 s in the hidden tests'
    # (what was left), and getrlimit() told a submission which tests it was answering.
    cut = dataclasses.replace(executor.limits, cpu=1.0, call_timeout=8.0)
    with executor.session(SPIN, "spin.py", "spin", limits=cut) as s:
        s.load()
        base = int(executor.limits.cpu)
        assert s.call_function("rlimit_cpu") == [base, base + 1]
        with pytest.raises(SandboxDied) as ei:
            s.call_function("spin")
    assert "CPU time limit exceeded" in ei.value.reason, ei.value.reason
    used = float(ei.value.reason.split("(")[1].split(" s CPU")[0])
    assert 1.0 <= used < 1.6, ei.value.reason            # the zygote reads it every 0.1 s
    assert_healthy(executor)


def test_every_session_draws_its_uid_from_the_same_distribution_whichever_it_is():
    # The first session of a grading (the visible tests') always had the executor's first uid and the one
    # opened beside it (the hidden tests') another: os.getuid() said which tests were being run.
    uids = [60007, 61271, 61272, 61273]
    rng = random.Random(31)
    first, beside = Counter(), Counter()
    for _ in range(4000):
        a = jail_uid(uids, [], rng.choice)
        b = jail_uid(uids, [a], rng.choice)
        assert b != a                                     # a free uid while there is one (RLIMIT_NPROC)
        first[a] += 1
        beside[b] += 1
    for u in uids:
        assert 0.2 < first[u] / 4000 < 0.3, first
        assert 0.2 < beside[u] / 4000 < 0.3, beside
    assert jail_uid(uids, uids + [61271], rng.choice) in {60007, 61272, 61273}   # then the least shared


BIG = '''
import numpy as np
import torch


def tensor(n):
    return torch.zeros(n)


def array(n):
    return np.zeros(n, dtype=np.float32)


def many(n):
    return [torch.zeros(1) for _ in range(n)]
'''


@pytest.mark.parametrize("fn, n, said", [
    ("tensor", 7_000_000, "a tensor of shape [7000000], whose values take 28000000 bytes: larger than the"),
    ("array", 7_000_000, "an array of shape [7000000], whose values take 28000000 bytes: larger than the"),
    ("many", 200, "message body larger than"),
])
def test_a_result_over_the_reply_cap_fails_its_call_and_the_session_answers_the_next(executor, fn, n, said):
    # The jail sent it and the trusted side refused it, which ended the session: in a grading every later
    # session lost its first test the same way, then the rest were "not run" (a 7 M float tensor cost all 85).
    shared = ReplyAllowance(executor.limits.max_received)
    with executor.session(BIG, "big.py", "big", replies=shared) as s:
        s.load()
        with pytest.raises(StudentError) as ei:
            s.call_function(fn, n)
        assert ei.value.kind == "InvalidResult" and said in ei.value.message, ei.value.message
        assert shared.spent < 4096                        # refused in the jail: nothing large was read
        assert torch.equal(s.call_function("tensor", 3), torch.zeros(3))
    assert_healthy(executor)


def test_the_reply_cap_told_to_the_jail_is_the_same_in_every_session_of_an_honest_grading():
    # Told exactly what is left, a session would learn what the sessions before it read, hence which it is.
    shared = ReplyAllowance(8 << 20)
    first = shared.reply_cap()
    shared.take(150_000)                                  # more than an honest grading reads in all
    assert shared.reply_cap() == first == 1 << 20
    shared.take((8 << 20) - 150_000 - 100_000)
    assert ReplyAllowance.FLOOR <= shared.reply_cap() <= shared.left()

