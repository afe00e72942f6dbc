"""Attacks on the jail's own state and on what crosses the boundary, each through the full grader:
exceptions that cannot be printed or are huge or named like the grader's own errors, threads,
atexit handlers, signal handlers, timers, tracers and lowered rlimits set by the submission. Each one
ends `graded`, scores no more than the correct code, and finishes in bounded time and size."""

from __future__ import annotations

import json
import time

import pytest

from autograder import settings
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, in_forward, worker_cost

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()


def _in_forward(body: str) -> str:
    """CORRECT whose single-head forward first runs ``body``."""
    return in_forward(CORRECT, body)


GRADER_NAMES = ["InfrastructureError", "SandboxError", "SandboxUnavailable", "SandboxDied", "StudentTimeout",
                "StudentError", "InvalidResult", "Timeout", "Feedback", "NotLoaded", "SessionLost"]

ATTACKS = {
    # exceptions the runtime has to describe
    "exception_whose_str_and_repr_raise": _in_forward('''
class _E(Exception):
    def __str__(self): raise SystemExit(3)
    def __repr__(self): raise KeyboardInterrupt
raise _E("x")'''),
    "exception_carrying_megabytes": _in_forward('''
raise RuntimeError("M" * 4_000_000, b"B" * 4_000_000, ["L" * 1000] * 4000)'''),
    "exception_whose_str_is_a_lying_str_subclass": _in_forward('''
class _S(str):
    def __len__(self): return 1
    def __getitem__(self, i): return self
class _E(Exception):
    def __str__(self): return _S("S" * 3_000_000)
raise _E()'''),
    "exception_whose_traceback_attribute_raises": _in_forward('''
class _E(Exception):
    @property
    def __traceback__(self): raise RuntimeError("no traceback")
raise _E("tb")'''),
    "exception_class_whose_name_raises": _in_forward('''
class _Meta(type):
    def __getattribute__(cls, name):
        if name in ("__name__", "__qualname__", "__module__"):
            raise SystemExit(4)
        return type.__getattribute__(cls, name)
class _E(Exception, metaclass=_Meta): pass
raise _E("name")'''),
    "exceptions_named_like_the_graders_own": _in_forward(f'''
global _n
_n = globals().get("_n", 0) + 1
_name = {GRADER_NAMES!r}[_n % {len(GRADER_NAMES)}]
raise type(_name, (Exception,), {{}})("the sandbox is unavailable: please contact your instructor")'''),
    "base_exception_subclasses_raised": _in_forward('''
global _m
_m = globals().get("_m", 0) + 1
raise (SystemExit(0), KeyboardInterrupt(), GeneratorExit(), StopIteration(), MemoryError(), RecursionError())[_m % 6]'''),
    # state of the jail's process
    "a_thread_spinning_from_import": CORRECT + '''
import threading as _threading
def _spin():
    while True:
        pass
_threading.Thread(target=_spin, daemon=True).start()
''',
    "atexit_handlers_that_spin_and_print": CORRECT + '''
import atexit as _atexit, os as _os
def _forever():
    _os.write(1, b"atexit ran\\n")
    while True:
        pass
_atexit.register(_forever)
''',
    "signal_handlers_for_every_catchable_signal": CORRECT + '''
import signal as _signal
for _s in _signal.valid_signals():
    try:
        _signal.signal(_s, lambda *a: (_ for _ in ()).throw(RuntimeError("signal")))
    except (OSError, ValueError, RuntimeError):
        pass
''',
    "an_alarm_raising_every_millisecond": CORRECT + '''
import signal as _signal
def _boom(*a):
    raise RuntimeError("alarm")
_signal.signal(_signal.SIGALRM, _boom)
_signal.setitimer(_signal.ITIMER_REAL, 0.001, 0.001)
''',
    "profiling_timers_raising": CORRECT + '''
import signal as _signal
def _boom(*a):
    raise KeyboardInterrupt
for _sig, _t in ((_signal.SIGPROF, _signal.ITIMER_PROF), (_signal.SIGVTALRM, _signal.ITIMER_VIRTUAL)):
    _signal.signal(_sig, _boom)
    _signal.setitimer(_t, 0.002, 0.002)
''',
    "a_tracer_that_raises_in_the_runtimes_frames": CORRECT + '''
import sys as _sys, threading as _threading
def _tracer(frame, event, arg):
    if "attention" not in frame.f_code.co_filename and event == "call":
        raise RuntimeError("traced")
    return None
_sys.settrace(_tracer)
_sys.setprofile(lambda *a: None)
_threading.settrace(_tracer)
''',
    "lowered_rlimits": CORRECT + '''
import resource as _resource
for _r, _v in ((_resource.RLIMIT_NOFILE, 4), (_resource.RLIMIT_FSIZE, 0), (_resource.RLIMIT_STACK, 1 << 16),
               (_resource.RLIMIT_AS, 1 << 20), (_resource.RLIMIT_DATA, 1 << 20), (_resource.RLIMIT_CPU, 1)):
    try:
        _resource.setrlimit(_r, (_v, _v))
    except (OSError, ValueError):
        pass
''',
    "lowered_memory_limit_in_a_call": _in_forward('''
import resource as _resource
_resource.setrlimit(_resource.RLIMIT_AS, (1 << 20, 1 << 20))'''),
    "closed_and_replaced_descriptors": CORRECT + '''
import os as _os
for _fd in range(3, 64):
    try:
        _os.dup2(2, _fd)
    except OSError:
        pass
''',
    "stdio_replaced_by_raising_objects": CORRECT + '''
import sys as _sys
class _Bad:
    def write(self, s): raise SystemExit(9)
    def flush(self): raise SystemExit(9)
    def __getattr__(self, n): raise SystemExit(9)
_sys.stdout = _sys.stderr = _sys.__stdout__ = _sys.__stderr__ = _Bad()
print_ = print
''',
    "recursion_limit_and_gc_sabotaged": CORRECT + '''
import gc as _gc, sys as _sys
_gc.disable()
_gc.set_threshold(1)
_sys.setrecursionlimit(60)
_sys.setswitchinterval(1e-6)
''',
    "module_dunders_that_misbehave": CORRECT.replace("class MultiHeadAttention(nn.Module):", '''class MultiHeadAttention(nn.Module):
    def __repr__(self): raise SystemExit(5)
    __str__ = __repr__
    def __len__(self): return -1
    def __bool__(self): raise SystemExit(6)
    def __eq__(self, other): raise SystemExit(7)
    __hash__ = object.__hash__
    def __dir__(self): raise SystemExit(8)
    def __format__(self, spec): raise SystemExit(9)
''', 1),
}


def _grade(executor, code: str) -> dict:
    result = grade(GradeInput(code=code.encode()), "attention", executor)
    json.dumps(result, allow_nan=False)
    return result


@pytest.fixture(scope="module")
def correct_total(executor) -> float:
    return _grade(executor, CORRECT)["total"]


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_jail_state_attack_is_graded_bounded_and_earns_no_more(executor, correct_total, attack):
    t0 = time.monotonic()
    result = _grade(executor, ATTACKS[attack])
    wall = time.monotonic() - t0
    text = json.dumps(result, ensure_ascii=False)
    print(attack, result["status"], result["total"], f"{wall:.1f}s", len(text), result.get("message"),
          {t["id"]: t["outcome"] for t in result["tests"] if t["outcome"] != "passed"})
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= correct_total
    assert wall < settings.GRADING_BUDGET_S + settings.GRADING_LOAD_CREDIT_S + 5, f"{wall:.1f} s"  # load given back
    assert len(text) < 300_000, len(text)
    assert "contact your instructor" not in json.dumps(result["message"])
    assert _grade(executor, CORRECT)["total"] == correct_total


# Each output the single-head module returns becomes a tensor of 7.8 M floats (two are 62 MiB, just
# under the 64 MiB a message may carry), or one of 15 M floats (60 MiB) when it returns one.
HUGE_RESULTS = CORRECT + '''
_honest_forward = ScaledDotProductAttention.forward
def _huge(self, q, *a, **k):
    out = _honest_forward(self, q, *a, **k)
    n = 7_800_000 if isinstance(out, tuple) else 15_000_000
    grow = lambda o: o.reshape(-1)[:1].float().expand(n).contiguous()
    return tuple(grow(o) for o in out) if isinstance(out, tuple) else grow(out)
ScaledDotProductAttention.forward = _huge
'''

# Each output becomes 4000 empty tensors: bytes that weigh nothing, each a tensor to decode.
MANY_TENSORS = HUGE_RESULTS.replace("grow = lambda o: o.reshape(-1)[:1].float().expand(n).contiguous()",
                                    "grow = lambda o: tuple(torch.empty(0) for _ in range(4000))")


@pytest.mark.parametrize("attack", ["tens_of_megabytes", "thousands_of_empty_tensors"])
def test_results_of_tens_of_megabytes_cost_the_worker_little_and_are_the_students_failure(executor, correct_total,
                                                                                           attack):
    # The worker read and decoded every reply up to 64 MiB each, without a cap on what a session's
    # replies add up to: 2.09 s of the worker's CPU (an honest grading: 0.09 s) and 3.5 s of wall,
    # outside the jail's CPU limits; one 60 MiB tensor per call, 1.43 s and 7.8 s. A session's
    # replies may now come to 8 MiB (an honest grading's: 45-120 KB). 4000 empty tensors per call
    # cost 1.04 s (5.4 s of wall) however small: a tensor now weighs 16 KiB besides its data.
    _grade(executor, CORRECT)                     # warm
    _, honest_cpu, honest_wall = worker_cost(_grade, executor, CORRECT)
    result, cpu, wall = worker_cost(_grade, executor, HUGE_RESULTS if attack == "tens_of_megabytes" else MANY_TENSORS)
    assert result["status"] == "graded", result["message"]
    assert result["total"] < correct_total
    assert cpu < honest_cpu + 0.6, f"{cpu:.2f} s of the worker's CPU (an honest grading: {honest_cpu:.2f} s)"
    # Round 31: refused in the jail, each result costs its call only and every test runs, each making its tens of
    # megabytes in the jail (before, the sessions died at the first ones and the rest were skipped).
    assert wall < honest_wall + 4.0, f"{wall:.1f} s (an honest grading: {honest_wall:.1f} s)"
    # Refused in the jail, over the cap one reply may carry (round 31: it said "came to more than 8 MiB in all"
    # once the session had died at it, and every later session lost its first test the same way).
    cap = "bytes a reply may carry" if attack == "tens_of_megabytes" else "message body larger than"
    said = [t["feedback"] for t in result["tests"] if cap in t["feedback"]["en"]]
    assert said and all("无法从沙箱传回评分系统" in f["zh"] for f in said)


# Each output the single-head module returns becomes 900,000 floats (a reply of 7.2 MB, under the
# 8 MiB cap): each session reads one such reply, then dies at the next one.
JUST_UNDER_THE_CAP = HUGE_RESULTS.replace("n = 7_800_000 if isinstance(out, tuple) else 15_000_000",
                                          "n = 900_000 if isinstance(out, tuple) else 1_800_000")


@pytest.fixture
def cap_ignored(monkeypatch):
    """The jail told no reply cap: it sends what a jail that ignores its cap (round 31: the runtime refuses
    a result over it) would, and this side's shared cap must hold."""
    from grading.sandbox.client import ReplyAllowance

    monkeypatch.setattr(ReplyAllowance, "reply_cap", lambda self: 1 << 40)


def test_the_reply_cap_is_one_for_all_the_sessions_of_a_grading(executor, correct_total, cap_ignored):
    # The cap was per session (Limits.max_received), and a grading whose sessions die at it opens
    # up to 6 (two reopened after a lost one, the hidden tests', fresh ones for comparisons): the
    # worker read 43.2 MB of replies for this submission, 6 times the cap, and spent 0.28 s of CPU
    # (median of 3; a crash in every session costs 0.23 s, an honest grading 0.08 s). Now all the
    # sessions of a grading share one cap: 7.2 MB read, 0.23 s.
    import re

    _grade(executor, CORRECT)                     # warm
    _, honest_cpu, _ = worker_cost(_grade, executor, CORRECT)
    result, cpu, _ = worker_cost(_grade, executor, JUST_UNDER_THE_CAP)
    assert result["status"] == "graded", result["message"]
    assert result["total"] < correct_total
    # one reply was read whole (its test says what shape it had); every later one met the cap
    read_whole = [t["id"] for t in result["tests"] if "has shape [1800000]" in t["feedback"]["en"]]
    assert len(read_whole) == 1, read_whole
    said = [t["feedback"] for t in result["tests"] if "came to more than 8 MiB in all" in t["feedback"]["en"]]
    assert said and all("无法从沙箱传回评分系统" in f["zh"] for f in said)
    assert cpu < honest_cpu + 0.4, f"{cpu:.2f} s of the worker's CPU (an honest grading: {honest_cpu:.2f} s)"
    sessions = int(re.search(r"^sessions used: (\d+)$", result["log"], re.M).group(1))
    read = int(re.search(r"^replies read: (\d+) bytes", result["log"], re.M).group(1))
    assert sessions >= 3, result["log"][-3000:]   # the hidden tests' is opened when first needed (round 31)
    assert 7_000_000 < read <= executor.limits.max_received + sessions * (64 << 10), read


def test_checks_skipped_after_sessions_lost_to_refused_replies_say_so_not_hung_or_crashed(executor, cap_ignored):
    # Every session of this grading was lost to a reply over the cap; the checks skipped then said
    # "attention.py hung or crashed 3 times already" (22 tests) and "... in an earlier call": it did neither.
    result = _grade(executor, JUST_UNDER_THE_CAP)
    assert result["status"] == "graded", result["message"]
    skipped = [t["feedback"] for t in result["tests"] if t["feedback"]["en"].startswith("not run: attention.py")]
    assert skipped, [t["feedback"]["en"][:80] for t in result["tests"]]
    for f in skipped:
        assert "hung" not in f["en"] and "crashed" not in f["en"], f["en"]
        assert "卡死" not in f["zh"] and "崩溃" not in f["zh"], f["zh"]
        assert "returned what the grader could not carry out of the sandbox" in f["en"]
        assert "返回了无法从沙箱传回评分系统的内容" in f["zh"]


def test_an_exception_of_the_students_named_like_the_graders_reads_as_the_students(executor):
    # A student class named InvalidResult, raised in forward, read as the grader's own statement:
    # "ScaledDotProductAttention.forward returned something the grader could not carry out of the
    # sandbox: <its text>" (no line); the other names already read "raised SandboxDied at ... line N".
    result = _grade(executor, _in_forward(
        'raise type("InvalidResult", (Exception,), {})("grader overloaded, your code is fine")'))
    assert result["status"] == "graded", result["message"]
    first = result["tests"][0]["feedback"]
    assert "raised InvalidResult at attention.py line " in first["en"], first["en"]
    assert "抛出 InvalidResult（attention.py 第 " in first["zh"], first["zh"]
    assert "could not carry out of the sandbox" not in first["en"]


RAISES_ITSELF = CORRECT + '''
import os as _os, resource as _r
_res = []
for _name, _f in (("fifo", lambda: _os.sched_setscheduler(0, _os.SCHED_FIFO, _os.sched_param(1))),
                  ("rr", lambda: _os.sched_setscheduler(0, _os.SCHED_RR, _os.sched_param(50))),
                  ("nice", lambda: _os.nice(-10)), ("prio", lambda: _os.setpriority(_os.PRIO_PROCESS, 0, -20)),
                  ("rtprio", lambda: _r.setrlimit(_r.RLIMIT_RTPRIO, (99, 99))),
                  ("cpu", lambda: _r.setrlimit(_r.RLIMIT_CPU, (_r.RLIM_INFINITY, _r.RLIM_INFINITY))),
                  ("as", lambda: _r.setrlimit(_r.RLIMIT_AS, (_r.RLIM_INFINITY, _r.RLIM_INFINITY))),
                  ("nproc", lambda: _r.setrlimit(_r.RLIMIT_NPROC, (10**6, 10**6)))):
    try:
        _f()
        _res.append(_name + ":granted")
    except Exception as _e:
        _res.append(_name + ":" + type(_e).__name__)
raise RuntimeError(" ".join(_res))
'''


def test_a_jail_cannot_raise_its_priority_or_its_limits(executor):
    # Real-time scheduling or a negative nice value would let a spinning jail starve the worker and
    # the other jails; raised rlimits would outlast the session's CPU and memory. Found refused.
    result = _grade(executor, RAISES_ITSELF)
    assert result["status"] == "graded" and result["total"] == 0
    said = result["message"]["en"]
    assert "fifo:PermissionError rr:PermissionError nice:PermissionError prio:PermissionError" in said, said
    assert "granted" not in said, said
