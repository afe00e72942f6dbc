"""Round 33 of hostile submissions (the attacks: tests/grading/hostile_attacks_round33.py).

Found open: a reply that had begun to arrive was read under the call's wall backstop only (15 s): the idle
watch and the CPU limit stopped looking at the jail at its first byte. A submission whose runtime wrote each
reply a byte at a time (``socket.sendall`` rewritten), asleep between bytes, held every session until 128
small reads refused it (12.8 s) and the whole grading ran to its 40 s budget; spinning between bytes, each call
ran to the 15 s wall backstop. Every wait for more of a reply is now watched as the wait for its first byte
is: an idle jail is stopped after ``idle_window`` (the feedback says only part of the reply arrived), a
spinning one at its CPU limit.

The round's other attacks found nothing open; they are kept so that what holds keeps holding: each is graded
in the real sandbox and must end `graded`, score no more than the honest file, say in both languages what
happened, cost the worker about what an honest grading does and leave nothing running."""

from __future__ import annotations

import time

import pytest

from grading.proxy import idle_text
from grading.runner import GradeInput, grade
from grading.sandbox import Limits, StudentIdle, StudentTimeout
from tests.grading.helpers import english_in_zh, graded_attack, honest_cost
from tests.grading.hostile_attacks_round33 import ATTACKS, CORRECT, FORBIDDEN
from tests.sandbox.helpers import GOOD, assert_healthy

# From the first Scale() on, the jail's own socket writes every reply a byte at a time, ``between`` being what
# it does after each byte. Since round 45 the jail sends through a reference taken before student code runs
# (protocol._SENDALL), so rebinding ``socket.socket.sendall`` no longer reaches the wire: the attack replaces
# that reference itself, in the protocol module it reaches through the frames of the runtime that calls it.
_TRICKLE = '''
import sys as _sys, time as _time
def _trickle(self, data, *a):
    data = bytes(data)
    for i in range(len(data)):
        self.send(data[i:i + 1])
        {between}
_init = Scale.__init__
def _trickling(self, *a, **k):
    _f = _sys._getframe()
    while _f is not None and "protocol" not in _f.f_globals:
        _f = _f.f_back
    _f.f_globals["protocol"]._SENDALL = _trickle
    _init(self, *a, **k)
Scale.__init__ = _trickling
'''
ASLEEP = _TRICKLE.format(between="_time.sleep(0.05)")
SPINNING = _TRICKLE.format(between="_end = _time.process_time() + 0.05\n        while _time.process_time() < _end:\n"
                                   "            pass")
# A call's CPU limit of 1 s, its wall backstop 8 s, an idle window of 0.5 s: a trickle of 128 reads takes
# 6.4 s, so before the fix the asleep one met Trickled and the spinning one the backstop.
_LIMITS = Limits(cpu=10, wall=30, call_timeout=1.0, import_timeout=5.0, wall_backstop=8, idle_window=0.5,
                 idle_total=5.0)


def _trickled_call(executor, head: str):
    """What stops the first call of a session whose replies trickle from then on, and the seconds it took."""
    with executor.session(GOOD + head, "m.py", "m", limits=_LIMITS) as s:
        s.load()
        t0 = time.monotonic()
        with pytest.raises(StudentTimeout) as ei:
            s.new("Scale")
        return ei.value, time.monotonic() - t0


def test_a_reply_trickled_by_a_jail_asleep_between_bytes_is_stopped_by_the_idle_window(executor):
    exc, took = _trickled_call(executor, ASLEEP)
    assert isinstance(exc, StudentIdle), exc
    assert exc.partial, "the reply had begun to arrive"
    assert took < 3.0, f"{took:.1f} s: the wait for the rest of the reply was not watched"
    assert_healthy(executor)


def test_a_reply_trickled_by_a_jail_spinning_between_bytes_is_stopped_at_the_calls_cpu_limit(executor):
    exc, took = _trickled_call(executor, SPINNING)
    assert not isinstance(exc, StudentIdle) and exc.clock == "cpu", exc
    assert exc.seconds == _LIMITS.call_timeout
    assert took < 5.0, f"{took:.1f} s: the wait for the rest of the reply was not watched"
    assert_healthy(executor)


def test_an_idle_stop_after_part_of_the_reply_says_so_in_both_languages():
    what = {"en": "ScaledDotProductAttention.forward", "zh": "ScaledDotProductAttention.forward"}
    for total in (False, True):
        part = idle_text(what, StudentIdle(2.0, "call forward", 0.01, total=total, partial=True))
        none = idle_text(what, StudentIdle(2.0, "call forward", 0.01, total=total))
        assert "part of" in part["en"] and "一部分" in part["zh"], part
        assert "nothing" in none["en"] and "part of" not in none["en"] and "一部分" not in none["zh"], none
        assert english_in_zh(part["zh"], frozenset({"ScaledDotProductAttention.forward"})) == []
    assert "only part of the reply arrived" in str(StudentIdle(2.0, "call forward", 0.0, partial=True))


# ---------------------------------------------------------------------------- the whole grading
@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


@pytest.mark.slow
def test_a_grading_whose_replies_trickle_ends_within_the_idle_allowance_not_the_budget(served, honest):
    name = "the_runtimes_replies_trickled_a_byte_every_tenth_of_a_second"
    t0 = time.monotonic()
    result = graded_attack(name, honest, _grade, served, ATTACKS[name])
    took = time.monotonic() - t0
    # Before: 40 s (the budget), every test lost to a session held 12.8 s each. Now each session is stopped
    # after the idle window (2 s), the grading's idle allowance (6 s) bounds them all. The load's own reply
    # trickles (the rewrite runs at import): the file "did not load", and the message says what was seen.
    assert took < 15, f"{took:.1f} s"
    said = result["message"]
    assert "only part of its reply arrived" in said["en"] and "回复只传回了一部分" in said["zh"], said


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_33_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    from tests.sandbox.helpers import wait_no_leftovers

    assert wait_no_leftovers(served, timeout=5.0) == [], "a jail outlived its grading"
    assert served.alive


@pytest.mark.slow
def test_homoglyph_names_around_a_forbidden_call_earn_no_more_than_the_call_written_plainly(served):
    plain = _grade(served, FORBIDDEN)
    hidden = _grade(served, ATTACKS["homoglyph_and_bidi_names_around_a_forbidden_call"])
    assert plain["status"] == hidden["status"] == "graded"
    assert hidden["total"] <= plain["total"], (hidden["total"], plain["total"])
