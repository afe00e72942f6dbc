"""Round 34 of hostile submissions (the attacks: tests/grading/hostile_attacks_round34.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running; each
detector of the hidden tests' session must fire in no session (round 31's form).

Found open: a session stopped at its CPU limit (code computing without end) was lost as "hung", as one stopped by
the wall clock, in every check skipped after it ("not run: attention.py hung 3 times already"); it now says the code
used up its CPU time limit. An idle stop's Chinese text kept a blank after the full-width bracket of the inputs it
names ("（输入 [1, 1, 3, 4]） 在评分器等待结果的"), which the time limit's text had dropped. A jail that called
abort() (``os.abort()``, libc's abort(): what C and C++ code does when an assertion fails) was said to have crashed
with a segmentation fault: the jail is pid 1 of its pid namespace, which drops the SIGABRT it sends itself, and
glibc's abort() ended on a faulting instruction (SIGSEGV). It is now said to have called abort()."""

from __future__ import annotations

import pytest
import torch

from grading.i18n import msg
from grading.proxy import SessionLost, StudentProxy, StudentTimedOut, death_text, gave_up_text, idle_text
from grading.sandbox import SandboxDied, StudentIdle, StudentTimeout
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round34 import ATTACKS, CORRECT, SEES_HIDDEN
from tests.grading.test_hostile_round31 import _grade, _nothing_left, _switched_off
from tests.sandbox.helpers import GOOD, assert_healthy


class _Sessions:
    """An InheritedSession stand-in: the proxy closes what it loses here."""

    def close(self, session) -> None:
        pass


def _lost_after(exc: BaseException) -> tuple[StudentProxy, str]:
    """A loaded proxy whose call failed with ``exc``: the proxy, and what the next call is told."""
    proxy = StudentProxy(_Sessions())
    proxy.loaded, proxy._session = True, object()

    def call(session):
        raise exc

    with pytest.raises(StudentTimedOut):
        proxy._run("ScaledDotProductAttention.forward", call)
    with pytest.raises(SessionLost) as lost:
        proxy._ensure_session()
    return proxy, lost.value.message


@pytest.mark.parametrize("exc, en, zh", [
    (StudentTimeout(5.0, "call forward", clock="cpu"), "used up its CPU time limit", "用完了 CPU 时间上限"),
    (StudentTimeout(15.0, "call forward"), "hung", "卡死"),
    (StudentIdle(2.0, "call forward", 0.0), "sat idle", "空闲不动")])
def test_the_checks_skipped_after_a_lost_session_say_which_stop_it_was(exc, en, zh):
    proxy, next_call = _lost_after(exc)
    skipped = gave_up_text("attention.py", 3, proxy.causes)
    for said in (next_call, skipped):
        assert en in said["en"] and zh in said["zh"], said
    if exc.clock == "cpu":     # a spinning loop was said to have hung before (round 34)
        assert "hung" not in skipped["en"] and "卡死" not in skipped["zh"], skipped


def test_an_idle_stop_of_a_call_named_with_its_inputs_keeps_no_blank_after_the_full_width_bracket():
    what = msg("ScaledDotProductAttention.forward (inputs [1, 1, 3, 4])",
               "ScaledDotProductAttention.forward（输入 [1, 1, 3, 4]）")
    for total in (False, True):
        said = idle_text(what, StudentIdle(2.0, "call forward", 0.0, total=total))
        assert "）在" in said["zh"] or "）被终止" in said["zh"], said
        assert "） " not in said["zh"], said
    plain = idle_text(msg("importing attention.py", "导入 attention.py"), StudentIdle(2.0, "import", 0.0))
    assert plain["zh"].startswith("导入 attention.py 在"), plain


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


# How a jail ends, by the statements its Scale.forward (or its import) runs.
_ENDS = {"os_abort": "import os\nos.abort()", "libc_abort": "import ctypes\nctypes.CDLL(None).abort()",
         "abort_under_faulthandler": "import faulthandler, os\nfaulthandler.enable()\nos.abort()",
         "segfault": "import ctypes\nctypes.string_at(0)"}


def _ending(statements: str, at_import: bool = False) -> str:
    body = "".join("    " + line + "\n" for line in statements.splitlines())
    if at_import:
        return GOOD + "\n" + statements + "\n"
    return GOOD + f"\ndef _forward(self, x, shift=0.0):\n{body}Scale.forward = _forward\n"


@pytest.mark.parametrize("end", list(_ENDS))
@pytest.mark.parametrize("at_import", [False, True])
def test_a_jail_that_calls_abort_is_said_to_have_called_it_and_a_segfault_still_as_a_segfault(executor, end,
                                                                                              at_import):
    with executor.session(_ending(_ENDS[end], at_import), "m.py", "m") as s:
        with pytest.raises(SandboxDied) as died:
            s.load()
            s.call(s.new("Scale"), "__call__", torch.ones(2, 3))
    said = str(died.value)
    if end == "segfault":
        assert "SIGSEGV" in said and "abort" not in said, said
    else:
        # Round 37: the student's process is pid 2 and abort() ends it by SIGABRT; whether abort() or os.kill sent it
        # the wait status does not tell, so abort() is named as what raises it, not as what was called.
        assert "ended by SIGABRT, the signal's default action" in said and "SIGSEGV" not in said, said
        told = death_text(getattr(died.value, "reason", said))
        assert "abort() raises it" in told["en"] and "abort() 会发出这个信号" in told["zh"], told
        assert "段错误" not in told["zh"], told
    assert_healthy(executor)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_34_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)


def _signature(value: object) -> object:
    """What a file can key an answer on without its values: a tensor's dtype and shape, anything else's repr."""
    if isinstance(value, torch.Tensor):
        return f"{value.dtype}{list(value.shape)}"
    if isinstance(value, list | tuple):
        return [_signature(v) for v in value]
    if isinstance(value, dict):
        return {k: _signature(v) for k, v in sorted(value.items())}
    return repr(value)


@pytest.mark.slow
def test_no_hidden_test_calls_the_code_with_inputs_of_a_visible_test(served, monkeypatch, tmp_path):
    """A file that answers right only for the inputs the visible tests use (their feedback names them: shapes,
    dtypes, keyword arguments) and wrong for any other must lose every hidden test that calls it: none of a hidden
    test's calls may have a visible test's signature. Read from the trusted side of an honest grading (the test
    process is forked from here, and each call is written down with the test that made it)."""
    import json
    import os

    calls = tmp_path / "calls.jsonl"

    def recording(name: str, original):
        def record(self, handle, *args, **kwargs):
            with calls.open("a") as fh:
                fh.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].split(" ")[0],
                                     "call": [name, handle.label, _signature(args), _signature(kwargs)]}) + "\n")
            return original(self, handle, *args, **kwargs)
        return record

    for name in ("call", "grad"):
        monkeypatch.setattr(StudentProxy, name, recording(name, getattr(StudentProxy, name)))
    result = _grade(served, CORRECT)
    assert result["total"] == 85
    hidden = {t["id"] for t in result["tests"] if t["hidden"]}
    rows = [json.loads(line) for line in calls.read_text().splitlines()]
    visible = {json.dumps(r["call"]) for r in rows if r["test"] not in hidden}
    assert visible and hidden, (visible, hidden)
    repeated = sorted({r["test"] for r in rows if r["test"] in hidden and json.dumps(r["call"]) in visible})
    assert repeated == [], f"hidden tests that repeat a visible test's inputs: {repeated}"
    assert {r["test"] for r in rows} >= hidden, "a hidden test made no call"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SEES_HIDDEN))
def test_nothing_a_round_34_detector_reads_tells_a_session_it_runs_the_hidden_tests(served, name):
    control = _grade(served, _switched_off(SEES_HIDDEN[name]))
    result = _grade(served, SEES_HIDDEN[name])
    assert control["status"] == result["status"] == "graded", (control["message"], result["message"])
    fired = [t["id"] for t in result["tests"] if t["outcome"] != "passed"
             and next(c for c in control["tests"] if c["id"] == t["id"])["outcome"] == "passed"]
    assert fired == [], f"{name} fired in: {fired}"
    assert result["total"] == control["total"]
    _nothing_left(served)
