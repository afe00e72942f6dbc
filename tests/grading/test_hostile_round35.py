"""Round 35 of hostile submissions (the attacks: tests/grading/hostile_attacks_round35.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running.

Found open: a signal whose default action ends a process, sent by the jail to itself (``os.kill(os.getpid(),
signal.SIGTERM)``, ``signal.raise_signal``, an alarm with no handler), was dropped by the kernel (the jail is pid 1
of its pid namespace) and the code went on; it now ends the jail, said as "ended by SIGTERM" in both languages
(tests/sandbox/test_sandbox_round35.py). A jail ended by a SIGKILL the grader did not send is said so, with no cause
named: no count of OOM kills is the jail's own (review R1)."""

from __future__ import annotations

import pytest

from grading.proxy import Feedback, SessionLost, StudentProxy, gave_up_text
from grading.sandbox import SandboxDied
from grading.sandbox.client import RECEIVED_TEXT, UNSENT_KILL_TEXT
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round35 import ATTACKS, CORRECT
from tests.grading.test_hostile_round31 import _grade, _nothing_left


class _Sessions:
    """An InheritedSession stand-in: the proxy closes what it loses here."""

    def close(self, session) -> None:
        pass


@pytest.mark.parametrize("reason, en, zh", [
    (RECEIVED_TEXT.format(name="SIGTERM"), "was ended by a signal", "被信号结束"),
    (UNSENT_KILL_TEXT, "was ended by a signal", "被信号结束"),
    ("the sandboxed process was killed by SIGKILL", "was ended by a signal", "被信号结束"),
    ("the sandboxed process crashed (SIGSEGV)", "crashed", "崩溃")])
def test_the_checks_skipped_after_a_jail_ended_by_a_signal_say_so_not_crashed(reason, en, zh):
    proxy = StudentProxy(_Sessions())
    proxy.loaded, proxy._session = True, object()

    def call(session):
        raise SandboxDied(reason)

    with pytest.raises(Feedback):
        proxy._run("ScaledDotProductAttention.forward", call)
    with pytest.raises(SessionLost) as lost:
        proxy._ensure_session()
    for said in (lost.value.message, gave_up_text("attention.py", 3, proxy.causes)):
        assert en in said["en"] and zh in said["zh"], said
        if en != "crashed":
            assert "crashed" not in said["en"] and "崩溃" not in said["zh"], said


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_35_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)


@pytest.mark.slow
def test_a_grading_whose_code_sends_itself_sigterm_says_it_was_ended_by_sigterm_in_both_languages(served):
    result = _grade(served, ATTACKS["sigterm_raised_in_the_fourth_call"])
    assert result["status"] == "graded", result["message"]
    told = [t["feedback"] for t in result["tests"] if t["outcome"] != "passed" and not t["hidden"]]
    assert any("ended by SIGTERM" in f["en"] and "信号 SIGTERM 结束" in f["zh"] for f in told), told
    _nothing_left(served)


def test_no_lost_cause_names_a_cause_the_sandbox_does_not_check():
    """Review R1: "ran out of memory" was repeated in every check skipped after a SIGKILL, from host-wide counts."""
    from grading.proxy import LOST_CAUSES

    said = " ".join(en + zh for en, zh in LOST_CAUSES.values())
    assert "memory" not in said and "内存" not in said, said
