"""Round 36 of hostile submissions (the attacks: tests/grading/hostile_attacks_round36.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running.

Found open (tests/sandbox/test_sandbox_round36.py): a signal the jail sent itself while the kernel's action for it was
the default (set back through ctypes ``sigaction``; SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT or SIGKILL sent with
``os.kill`` or ``signal.raise_signal``) was dropped by the kernel (the jail is pid 1) and the code went on; it now ends
the jail, said as "ended by SIGSEGV, the signal's default action" in both languages. A SIGINT arriving between calls
was said as "the sandbox stopped answering the grader"; it is now said as a SIGINT that arrived between calls."""

from __future__ import annotations

import pytest

from grading.proxy import Feedback, StudentProxy, gave_up_text
from grading.sandbox import SandboxDied
from grading.sandbox.client import INTERRUPTED_TEXT, SERVE_FAILED_TEXT
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round36 import ATTACKS, CORRECT
from tests.grading.test_hostile_round31 import _grade, _nothing_left
from tests.grading.test_hostile_round35 import _Sessions


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_36_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)


def _told(result: dict) -> list[dict]:
    assert result["status"] == "graded", result["message"]
    return [t["feedback"] for t in result["tests"] if t["outcome"] != "passed" and not t["hidden"]]


@pytest.mark.slow
@pytest.mark.parametrize("attack, en, zh", [
    ("sigterm_set_to_the_default_through_ctypes_then_sent_to_itself_in_the_second_call",
     "ended by SIGTERM, the signal's default action", "信号 SIGTERM 结束"),
    ("sigsegv_sigbus_and_sigfpe_sent_to_itself_with_os_kill_and_raise_signal",
     "ended by SIGSEGV, the signal's default action", "信号 SIGSEGV 结束")])
def test_a_grading_whose_code_sends_itself_a_dropped_signal_says_what_ended_it_in_both_languages(served, attack, en, zh):
    told = _told(_grade(served, ATTACKS[attack]))
    assert any(en in f["en"] and zh in f["zh"] for f in told), told
    assert not any("stopped answering" in f["en"] or "crashed" in f["en"] for f in told), told
    _nothing_left(served)



@pytest.mark.slow
def test_a_sigint_from_a_timer_thread_is_said_as_where_it_arrived_never_as_stopped_answering(served):
    """The timer fires 50 ms after the import: between two calls (told so), or inside one, where plain Python raises
    KeyboardInterrupt in the code that runs (told as the call's exception with its line): the fresh-clone slow lane saw
    the second. Either way, never "stopped answering" or "crashed". tests/sandbox/test_sandbox_round36.py pins the
    between-calls case with a session that sits idle when the signal comes."""
    told = _told(_grade(served, ATTACKS["a_sigint_from_a_timer_thread_arriving_between_calls"]))
    between = any("KeyboardInterrupt (what a SIGINT raises) in the grader's loop between calls" in f["en"]
                  and "两次调用之间因评分器循环中的 KeyboardInterrupt" in f["zh"] for f in told)
    in_call = any("raised KeyboardInterrupt" in f["en"] and "抛出 KeyboardInterrupt" in f["zh"] for f in told)
    assert between or in_call, told
    assert not any("stopped answering" in f["en"] or "crashed" in f["en"] for f in told), told
    _nothing_left(served)

@pytest.mark.parametrize("reason, en, zh", [
    (SERVE_FAILED_TEXT, "stopped answering the grader 3 times", "已不再回应评分器 3 次"),
    (INTERRUPTED_TEXT, "was ended by a signal 3 times", "已被信号结束 3 次")])
def test_the_checks_skipped_after_the_jails_loop_failed_or_was_interrupted_say_so_not_crashed(reason, en, zh):
    """The data socket closed by a thread between calls: the loop exited 71, and every skipped check said the file
    "crashed 3 times"."""
    proxy = StudentProxy(_Sessions())
    proxy.loaded, proxy._session = True, object()

    def call(session):
        raise SandboxDied(reason)

    with pytest.raises(Feedback):
        proxy._run("ScaledDotProductAttention.forward", call)
    said = gave_up_text("attention.py", 3, proxy.causes)
    assert en in said["en"] and zh in said["zh"], said
    assert "crashed" not in said["en"] and "崩溃" not in said["zh"], said
