"""The issue-10 attacks, each through the full grader: every one ends `graded` (never a grader
`error`), scores no more than the same code honestly, leaks nothing from hidden tests, and finishes
in bounded time."""

from __future__ import annotations

import json
import re
import time

import pytest

from autograder import settings
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, worker_cost
from tests.sandbox.helpers import jail_faults_logged

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
DROPOUT = (SUBMISSIONS / "faulty" / "dropout_on.py").read_text()
# MultiHeadAttention copies the softmax into a module-level helper (out of the class, where the
# static softmax check looks), so only the call counter could tell it does not reuse the module.
COPIES = CORRECT.replace("class MultiHeadAttention", """def _attend(q, k, v, mask=None, *, return_weights=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + mask
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


class MultiHeadAttention""", 1).replace("self.attention = ScaledDotProductAttention()", "self.attention = _attend")

FORGED_SETUP_ERROR = '''
import json as _json, os as _os, socket as _socket, struct as _struct
for _seq in (None, 1):
    _h = _json.dumps({"v": {"D": {"seq": _seq, "ok": False,
                      "setup_error": "namespaces unavailable: please contact your instructor"}},
                      "t": [], "n": 0}).encode()
    _s = _socket.socket(fileno=_os.dup(3))
    _s.sendall(_struct.pack(">I", len(_h)) + _h)
    _s.detach()
'''

SLOW_CALLS = '''
import time as _time
_honest = ScaledDotProductAttention.forward
def _slow(self, *a, **k):
    _time.sleep(SLEEP)
    return _honest(self, *a, **k)
ScaledDotProductAttention.forward = _slow
'''

SPIN_ONCE = '''
_honest = ScaledDotProductAttention.forward
def _spin(self, *a, **k):
    while True:
        pass
ScaledDotProductAttention.forward = _spin
'''

NAN_EVERYWHERE = '''
_honest = ScaledDotProductAttention.forward
def _nan(self, q, k, v, additive_mask=None, *, return_weights=False):
    out, w = _honest(self, q, k, v, additive_mask, return_weights=True)
    out, w = out * float("nan"), w * float("inf")
    return (out, w) if return_weights else out
ScaledDotProductAttention.forward = _nan
'''

NAN_WEIGHTS_ONLY = '''
_honest = ScaledDotProductAttention.forward
def _nan_weights(self, q, k, v, additive_mask=None, *, return_weights=False):
    out, w = _honest(self, q, k, v, additive_mask, return_weights=True)
    return (out, w * float("nan")) if return_weights else out
ScaledDotProductAttention.forward = _nan_weights
'''

FUSED_THROUGH_OPS = CORRECT.replace(
    "import torch\n",
    "import torch\n_KERNEL = getattr(torch.ops.aten, '_scaled_dot_' + 'product_attention_math')\n", 1)

FUSED_THROUGH_WRAPPED = CORRECT.replace(
    "import torch\n",
    "import torch\nimport torch.nn.functional as _F\n_K = getattr(_F, 'scaled_dot_product_attention')"
    ".__wrapped__ if hasattr(_F.scaled_dot_product_attention, '__wrapped__') else None\n", 1)

FORGE_COUNTERS = '''
import gc as _gc
def _forge():
    for _o in _gc.get_objects():
        if type(_o).__name__ == "Runtime":
            _o.count = {k: 10**6 for k in _o.count}
            _o.forbid = {k: 0 for k in _o.forbid}
_honest_mha = MultiHeadAttention.forward
def _forward(self, *a, **k):
    _forge()
    return _honest_mha(self, *a, **k)
MultiHeadAttention.forward = _forward
'''

MEMOISE = '''
_memo = {}
_honest = ScaledDotProductAttention.forward
def _memoised(self, q, k, v, additive_mask=None, *, return_weights=False):
    key = (q.numpy().tobytes(), k.numpy().tobytes(), v.numpy().tobytes(), return_weights,
           None if additive_mask is None else additive_mask.numpy().tobytes())
    if key not in _memo:
        _memo[key] = _honest(self, q, k, v, additive_mask, return_weights=return_weights)
    return _memo[key]
ScaledDotProductAttention.forward = _memoised
'''

SEEDED_DROPOUT = '''
_honest = ScaledDotProductAttention.forward
def _seeded(self, q, *a, **k):
    torch.manual_seed(int(q.abs().sum().item() * 1000) % (2 ** 31))
    return _honest(self, q, *a, **k)
ScaledDotProductAttention.forward = _seeded
'''

LEAK_HIDDEN_INPUTS = '''
_seen = []
_honest = ScaledDotProductAttention.forward
def _leaky(self, q, k, v, additive_mask=None, *, return_weights=False):
    _seen.append(str(q.dtype).replace("torch.", ""))
    raise RuntimeError("SEEN " + ",".join(sorted(set(_seen))))
ScaledDotProductAttention.forward = _leaky
'''


# Each call of the single-head module returns its (correct) values in another odd form: devices and
# layouts the wire cannot carry, a wrapper subclass whose every operation raises, shapes of 0 to 8
# dimensions or of 2**60 elements, integer and bool dtypes, overlapping strides, containers.
ODD_RESULTS = '''
class _Raising(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, strides=elem.stride())

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise SystemExit(0)

_ODD = [
    lambda o: o.to("meta"), lambda o: o.to_sparse(), lambda o: torch.nested.nested_tensor([o.reshape(-1)]),
    lambda o: torch.quantize_per_tensor(o.float(), 0.1, 0, torch.qint8), lambda o: o.to(torch.complex64),
    lambda o: torch.tensor(1.0), lambda o: o.reshape(*o.shape, 1, 1, 1, 1), lambda o: torch.empty(0, 2 ** 40, 2 ** 20),
    lambda o: o > 0, lambda o: o.long(), lambda o: o.reshape(-1)[:1].expand(2 ** 60),
    lambda o: o.as_strided(o.shape, [0] * o.dim()), lambda o: (o,) * 4000, lambda o: {"output": o},
    lambda o: (x for x in ()), lambda o: _Raising(o), lambda o: o.double(), lambda o: o.bfloat16(),
]
_calls = [0]
_honest_sdpa = ScaledDotProductAttention.forward
def _odd(self, *a, **k):
    out = _honest_sdpa(self, *a, **k)
    _calls[0] += 1
    form = _ODD[_calls[0] % len(_ODD)]
    return tuple(form(o) for o in out) if isinstance(out, tuple) else form(out)
ScaledDotProductAttention.forward = _odd
'''


def _grade(executor, code: str) -> dict:
    result = grade(GradeInput(code=code.encode()), "attention", executor)
    json.dumps(result, allow_nan=False)          # what the worker stores and the CLI prints
    return result


def _outcomes(result: dict) -> dict[str, str]:
    return {t["id"]: t["outcome"] for t in result["tests"]}


def _points(result: dict, test_id: str) -> float:
    return next(t["points"] for t in result["tests"] if t["id"] == test_id)


@pytest.fixture(scope="module")
def honest(executor) -> dict[str, float]:
    return {name: _grade(executor, code)["total"] for name, code in
            (("wrong", WRONG), ("correct", CORRECT), ("dropout", DROPOUT), ("copies", COPIES))}


def test_a_forged_setup_error_reply_is_graded_as_the_students_failure(executor, honest):
    result = _grade(executor, WRONG + FORGED_SETUP_ERROR)
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest["wrong"]
    assert "contact your instructor" not in json.dumps(result["tests"]) + json.dumps(result["message"])


def test_a_class_name_of_a_megabyte_is_quoted_clipped_in_feedback(executor, honest):
    # The jail reports a projection's class name and the tests quote it ("q_proj is a ..., not an
    # nn.Linear"): a name the submission made 500,000 characters long was copied into every such
    # test's feedback, and the stored result grew by megabytes.
    code = CORRECT.replace("self.q_proj = nn.Linear(d_model, inner)",
                           'self.q_proj = type("P" * 500_000, (nn.Module,), {})()', 1)
    assert code != CORRECT
    result = _grade(executor, code)
    assert result["status"] == "graded", result["message"]
    assert result["total"] < honest["correct"]
    quoted = [t["feedback"]["en"] for t in result["tests"] if "not an nn.Linear" in str(t["feedback"])]
    assert quoted, "the class name is quoted where q_proj is not an nn.Linear"
    assert all(max(map(len, re.findall("P+", text))) == 99 for text in quoted), quoted[0][:300]
    # Elsewhere the name reaches the result only inside error messages, clipped at 300 characters.
    assert max(map(len, re.findall("P+", json.dumps(result)))) <= 300
    assert len(json.dumps(result)) < 200_000


# The runtime's describe op, as code that reaches it through gc can rewrite it: every size it reports
# becomes an int of 4,000 digits (JSON carries those; Python refuses more than 4,300).
FORGED_SIZES = '''
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime" and "describe" in getattr(_o, "OPS", {}):
        _honest_describe = _o.OPS["describe"]
        def _forged(self, req, _honest=_honest_describe):
            info = _honest(self, req)
            for _c in info["children"].values():
                _c["in_features"] = 10 ** 4000
            info["parameters"] = {_n: [10 ** 4000] for _n in info["parameters"]}
            return info
        type(_o).OPS = {**_o.OPS, "describe": _forged}
'''


@pytest.mark.parametrize("sizes", [("10 ** 4299", "-10 ** 4298"), ("10 ** 5000", "16"), ("-1", "2 ** 63")],
                         ids=["4300_digits", "past_the_int_string_limit", "negative_and_past_int64"])
def test_a_linear_reporting_an_absurd_number_of_features_is_the_students_failure_unquoted(executor, honest, sizes):
    # The tests quote a projection's sizes ("q_proj maps 16 -> 24 features"): a Linear whose
    # in_features the submission set to 10**4299 was quoted whole, 4,300 digits in each language of
    # each of the 8 tests that look at the projections (result 223 KB instead of 12 KB); one of
    # 10**5000 failed to encode ("Exceeds the limit (4300 digits) for integer string conversion").
    fin, fout = sizes
    code = CORRECT.replace("self.q_proj = nn.Linear(d_model, inner)",
                           f"self.q_proj = nn.Linear(d_model, inner)\n        self.q_proj.in_features = {fin}\n"
                           f"        self.q_proj.out_features = {fout}", 1)
    assert code != CORRECT
    result = _grade(executor, code)
    assert result["status"] == "graded", result["message"]
    assert result["total"] < honest["correct"]
    assert not re.search(r"\d{25}", json.dumps(result)), "an absurd size is quoted"
    assert len(json.dumps(result)) < 60_000
    structure = next(t for t in result["tests"] if t["id"] == "test_mha_structure")
    assert structure["outcome"] == "failed"
    assert "q_proj.in_features is " in structure["feedback"]["en"]
    assert "cannot be a number of features" in structure["feedback"]["en"]
    assert "q_proj.in_features" in structure["feedback"]["zh"] and "读取" in structure["feedback"]["zh"]


def test_a_forged_describe_reply_of_absurd_sizes_is_the_students_failure(executor, honest):
    result = _grade(executor, CORRECT + FORGED_SIZES)
    assert result["status"] == "graded", result["message"]
    assert result["total"] < honest["correct"]
    assert not re.search(r"\d{25}", json.dumps(result)), "a forged size is quoted"
    assert "malformed describe reply" in json.dumps(result["tests"])


@pytest.mark.parametrize("tail", ["X = " + "1 + " * 5000 + "1", "X = " + "-" * 20000 + "1"],
                         ids=["recursion_in_the_parser", "parser_out_of_memory"])
def test_an_expression_nested_thousands_deep_is_the_students_load_error_not_a_grader_error(executor, tail):
    # The trusted side parses the source too (review, notes, hints): a tree Python cannot build
    # (RecursionError, MemoryError in ast.parse) must not fail the grading.
    result = _grade(executor, CORRECT + "\n" + tail + "\n")
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 0
    assert "did not load" in result["message"]["en"]
    assert "nested too deeply" in result["message"]["en"] and "嵌套太深" in result["message"]["zh"]


@pytest.mark.parametrize("attack", ["every_call_sleeps", "one_call_spins"])
def test_a_budget_exhausting_submission_is_graded_in_bounded_time(executor, honest, monkeypatch, attack):
    budget = 6.0
    monkeypatch.setattr(settings, "GRADING_BUDGET_S", budget)
    monkeypatch.setattr(settings, "GRADING_CPU_BUDGET_S", budget)
    monkeypatch.setattr(settings, "GRADING_LOAD_CREDIT_S", 0.0)   # a loaded host would stretch the bound
    code = CORRECT + (SLOW_CALLS.replace("SLEEP", str(executor.limits.call_timeout * 0.95))
                      if attack == "every_call_sleeps" else SPIN_ONCE)
    t0 = time.monotonic()
    result = _grade(executor, code)
    elapsed = time.monotonic() - t0
    assert result["status"] == "graded", result["message"]
    assert elapsed < budget + 4, f"{elapsed:.1f} s for a budget of {budget} s"
    outcomes = _outcomes(result)
    assert "timeout" in outcomes.values()
    for t in result["tests"]:
        if t["outcome"] == "timeout":
            assert t["points"] == 0
    assert result["total"] < honest["correct"]
    assert any("budget" in r["text"] for r in result["review"])


def _fails_in_two_visible_tests(how: str) -> str:
    """CORRECT, except that float16 inputs and the Nk=7/dv=6 cross-attention case (two visible tests)
    end in ``how``, and float64 inputs (hidden tests) first spin 0.3 s of CPU."""
    return CORRECT.replace("import math\n", "import ctypes\nimport math\nimport time\n", 1).replace(
        "        assert q.ndim == k.ndim == v.ndim == 4\n",
        "        assert q.ndim == k.ndim == v.ndim == 4\n"
        "        if q.dtype == torch.float16 or (k.shape[-2] == 7 and v.shape[-1] == 6):\n"
        f"            {how}\n"
        "        if q.dtype == torch.float64:\n"
        "            t0 = time.process_time()\n"
        "            while time.process_time() - t0 < 0.3:\n"
        "                pass\n", 1)


def test_a_crash_costs_the_cpu_it_used_not_the_sessions_whole_reservation(executor, monkeypatch):
    # The grading child saw each crash and read the jail's status (its CPU) from the zygote; the
    # parent then found the status pipe empty and charged the session's whole reservation: with the
    # real limits two crashes in 1 s left 1.7 of 30 s of CPU. Here (sessions of 5 s CPU) a budget of
    # 8 s was used up by two crashes, and the hidden tests were `timeout` ("budget used up").
    monkeypatch.setattr(settings, "GRADING_CPU_BUDGET_S", 8.0)
    # Both read ctypes in code that runs, so the review judges them alike (round 44: an import nothing that runs
    # reads is no finding, and the raising twin had stopped matching the crashing one on the review's tests).
    raised = _grade(executor, _fails_in_two_visible_tests("raise RuntimeError(repr(ctypes.c_int))"))
    crashed = _grade(executor, _fails_in_two_visible_tests("ctypes.string_at(0)"))   # SIGSEGV
    assert crashed["status"] == raised["status"] == "graded"
    assert _outcomes(crashed) == _outcomes(raised)
    assert crashed["total"] == raised["total"]
    assert _outcomes(crashed)["test_dtype_preserved"] == "passed"
    assert "timeout" not in _outcomes(crashed).values()
    assert not any("budget" in r["text"] for r in crashed["review"])


@pytest.mark.parametrize(("how", "en", "zh"), [
    # Round 38: a fault the kernel logged for the jail's pid is said as a crash (a kill() it sent itself is not:
    # tests/sandbox/test_sandbox_round38.py).
    ("ctypes.string_at(0)", "crashed (SIGSEGV): the kernel logged a segmentation fault",
     "进程崩溃（SIGSEGV）：内核记录到它的代码发生了段错误"),
    ("ctypes.CDLL(None).exit(3)", "exited with code 3", "进程以退出码 3 退出"),
    ("while True: ctypes.CDLL(None).write(2, b'y' * (1 << 20), 1 << 20)", "printed more than 64 MiB",
     "输出了超过 64 MiB 的内容"),
], ids=["segfault", "exit", "output_flood"])
def test_how_the_process_ended_is_said_in_both_languages(executor, how, en, zh):
    from tests.grading.helpers import code_names, english_in_zh

    code = CORRECT.replace("import math\n", "import ctypes\nimport math\n", 1).replace(
        "        assert q.ndim == k.ndim == v.ndim == 4\n",
        f"        assert q.ndim == k.ndim == v.ndim == 4\n        if q.dtype == torch.float16:\n            {how}\n", 1)
    since = time.monotonic()
    result = _grade(executor, code)
    if how == "ctypes.string_at(0)" and not jail_faults_logged(since):
        # printk's host-wide rate limit dropped the fault line (other processes faulted): the signal is said, no cause
        en, zh = "ended by SIGSEGV, the signal's default action", "进程被信号 SIGSEGV 结束，这是该信号的默认动作"
    assert result["status"] == "graded", result["message"]
    crashed = next(t for t in result["tests"] if t["id"] == "test_half_precision_large_logits")
    assert crashed["outcome"] == "failed" and crashed["points"] == 0
    assert en in crashed["feedback"]["en"] and zh in crashed["feedback"]["zh"]
    assert english_in_zh(crashed["feedback"]["zh"], code_names(code)) == []


STOPS_ITSELF = '''
import os as _os, signal as _signal, threading as _threading
def _stop():
    for _sig in (_signal.SIGSTOP, _signal.SIGTSTP):
        for _target in (_os.getpid(), 0, -1):
            try:
                _os.kill(_target, _sig)
            except OSError:
                pass
    _signal.pthread_kill(_threading.get_ident(), _signal.SIGSTOP)
    _t = _threading.Thread(target=_os.kill, args=(_os.getpid(), _signal.SIGSTOP))
    _t.start()
    _t.join()
    try:
        if _os.fork() == 0:          # a grandchild that stays stopped, or alive
            _os.kill(_os.getpid(), _signal.SIGSTOP)
            _os._exit(0)
    except OSError:
        pass
_stop()
_honest_forward = ScaledDotProductAttention.forward
def _stopping(self, q, *a, **k):
    if q.dtype == torch.float16:
        _stop()
    return _honest_forward(self, q, *a, **k)
ScaledDotProductAttention.forward = _stopping
'''


def test_a_jail_that_stops_itself_is_not_stopped_and_leaves_nothing_behind(executor):
    # SIGSTOP/SIGTSTP to itself, its group, everything it can see, from a thread, and a forked
    # grandchild that stops: the jail is pid 1 of its pid namespace, which ignores signals it has no
    # handler for from inside it (SIGSTOP included), and fork is refused (EPERM). Found harmless:
    # graded as the same code that does not stop itself, in about the same time.
    honest_code = CORRECT + STOPS_ITSELF.replace("def _stop():\n", "def _stop():\n    return\n", 1)
    t0 = time.monotonic()
    honest = _grade(executor, honest_code)
    honest_wall = time.monotonic() - t0
    t0 = time.monotonic()
    result = _grade(executor, CORRECT + STOPS_ITSELF)
    wall = time.monotonic() - t0
    assert result["status"] == honest["status"] == "graded", result["message"]
    assert _outcomes(result) == _outcomes(honest) and result["total"] == honest["total"]
    assert _outcomes(result)["test_half_precision_large_logits"] == "passed"
    assert wall < honest_wall + 1.0, f"{wall:.1f} s (the same code not stopping itself: {honest_wall:.1f} s)"


@pytest.mark.parametrize("where", ["forward", "import"])
def test_an_output_flood_is_stopped_at_the_output_limit_not_drained_by_the_worker(executor, where):
    # The worker kept the first 64 KiB of the jail's output and read and dropped the rest: as much
    # CPU as the jail spent writing it (4 GB: 0.70 s against the jail's 0.55 s), outside the
    # grading's CPU budget, for as long as the call lasted. Here (2 s calls) a forward that prints
    # forever cost 2.4 s of wall and 1.3 s of the worker's CPU (an honest grading: 0.1 s); with the
    # service's limits, up to about 1.3 times the grading's 30 s CPU budget more.
    flood = "while True:\n    os.write(2, b'y' * (1 << 20))\n"
    code = (CORRECT.replace("import math\n", "import math\nimport os\n", 1).replace(
        "        assert q.ndim == k.ndim == v.ndim == 4\n",
        "        assert q.ndim == k.ndim == v.ndim == 4\n        if q.dtype == torch.float16:\n"
        + "".join("            " + line + "\n" for line in flood.splitlines()), 1)
            if where == "forward" else CORRECT + "\nimport os\n" + flood)
    _grade(executor, CORRECT)                     # warm
    _, honest_cpu, honest_wall = worker_cost(_grade, executor, CORRECT)
    result, cpu, wall = worker_cost(_grade, executor, code)
    assert result["status"] == "graded", result["message"]
    assert cpu < honest_cpu + 0.5, f"{cpu:.2f} s of the worker's CPU (an honest grading: {honest_cpu:.2f} s)"
    assert wall < honest_wall + executor.limits.call_timeout / 2, f"{wall:.1f} s (an honest grading: {honest_wall:.1f} s)"
    if where == "forward":
        flooded = next(t for t in result["tests"] if t["id"] == "test_half_precision_large_logits")
        assert flooded["outcome"] == "failed" and flooded["points"] == 0
        en, zh = flooded["feedback"]["en"], flooded["feedback"]["zh"]
        assert result["total"] < 85
    else:
        en, zh = result["message"]["en"], result["message"]["zh"]
        assert result["total"] == 0 and "did not load" in en
    assert "printed more than 64 MiB" in en and "输出了超过 64 MiB 的内容" in zh
    assert len(json.dumps(result)) < 300_000


def test_a_flooded_log_keeps_its_review_flags_where_the_pages_show_them(executor):
    # 64 KiB of output in each of its sessions (each crash adds one) made the log longer than LOG_CAP,
    # and the cut at its end took the REVIEW lines: the stored excerpt (the log's last 20,000
    # characters, worker/runs.py) showed no flag for a fused kernel reached through torch.ops.
    from grading.runner import LOG_CAP

    code = FUSED_THROUGH_OPS.replace("import math\n", "import ctypes\nimport math\n", 1).replace(
        "        assert q.ndim == k.ndim == v.ndim == 4\n",
        "        assert q.ndim == k.ndim == v.ndim == 4\n"
        "        if q.dtype == torch.float16 or (k.shape[-2] == 7 and v.shape[-1] == 6):\n"
        "            ctypes.string_at(0)\n", 1) + "\nprint('x' * 70000)\n"
    result = _grade(executor, code)
    assert result["status"] == "graded", result["message"]
    assert "[log truncated]" in result["log"] and len(result["log"]) <= LOG_CAP + 100
    excerpt = result["log"][-20_000:]
    assert result["review"] and all(f"REVIEW: {reason['text']}" in excerpt for reason in result["review"])


def test_results_in_every_odd_form_are_the_students_failures_and_the_next_grading_is_exact(executor):
    t0 = time.monotonic()
    result = _grade(executor, CORRECT + ODD_RESULTS)
    assert result["status"] == "graded", result["message"]
    assert time.monotonic() - t0 < settings.GRADING_BUDGET_S
    assert "error" not in _outcomes(result).values()     # no check crashed on what it was given
    assert result["total"] < 85
    assert _grade(executor, CORRECT)["total"] == 85


def test_nan_and_inf_results_are_graded_and_serialisable(executor, honest):
    result = _grade(executor, WRONG + NAN_EVERYWHERE)
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest["wrong"]
    for value in result["measurements"].values():
        assert value == value and abs(value) != float("inf")


def test_every_check_of_nan_weights_fails_closed(executor):
    """Correct outputs, NaN weights: no check that looks at the weights may pass (a comparison
    written `if err > tol: fail` would let NaN through)."""
    result = _grade(executor, CORRECT + NAN_WEIGHTS_ONLY)
    assert result["status"] == "graded", result["message"]
    for test_id in ("test_hand_example", "test_row_sums_are_one", "test_weights_are_probabilities",
                    "test_scale_experiment_a", "test_weights_parity_reference",
                    "test_blocked_key_gets_zero_weight", "test_mask_broadcasts_over_batch_and_heads"):
        assert _points(result, test_id) == 0, test_id
    assert result["example_weights"]["student"] is None


@pytest.mark.parametrize("code", [FUSED_THROUGH_OPS, FUSED_THROUGH_WRAPPED], ids=["torch_ops", "wrapped"])
def test_a_fused_kernel_reached_through_hidden_names_earns_no_fused_points_and_is_flagged(executor, code):
    result = _grade(executor, code)
    assert result["status"] == "graded", result["message"]
    assert _points(result, "test_no_fused_attention_static") == 0
    assert _points(result, "test_no_fused_attention_runtime") == 0
    assert result["total"] < 85
    assert result["review"] and "indirect names" in result["review"][0]["text"]
    assert "REVIEW:" in result["log"]


def test_fused_attention_the_review_missed_but_the_counters_saw_is_flagged(executor, monkeypatch):
    # A way of reaching the fused kernel that the source review does not know yet is, by definition,
    # not at hand: the real counters' verdict on a real fused call stands in for it, with the
    # review's verdict turned to "passed".
    import dataclasses

    from grader_tests.attention.static import outcome_review
    from grading import runner

    fused = (SUBMISSIONS / "faulty" / "fused_sdpa.py").read_text()
    outcomes = {t["id"]: t for t in _grade(executor, fused)["tests"]}
    assert outcomes["test_no_fused_attention_runtime"]["outcome"] == "failed"
    blinded = {**outcomes, "test_no_fused_attention_static": {"outcome": "passed"}}
    reasons = outcome_review(fused, blinded)
    assert len(reasons) == 1
    assert re.search(r"attention ran \(torch\.nn\.functional\.scaled_dot_product_attention \(\d+x\)\) though", reasons[0]["text"])
    assert "found no use of it" in reasons[0]["text"]

    # and the runner puts what the hook says in the result's review, as it does the source review's
    state = runner.suite_state("attention")
    seen = {}

    def hook(source, outcomes):
        seen.update(outcomes)
        return reasons

    patched = dataclasses.replace(state, suite=dataclasses.replace(state.suite, outcome_review=hook))
    monkeypatch.setattr(runner, "suite_state", lambda assignment: patched)
    result = _grade(executor, CORRECT)
    assert result["status"] == "graded" and result["total"] == 85
    assert result["review"] == reasons and f"REVIEW: {reasons[0]['text']}" in result["log"]
    assert seen["test_no_fused_attention_runtime"]["outcome"] == "passed"


def test_an_honest_file_and_an_open_fused_call_raise_no_outcome_flag():
    from grader_tests.attention.static import outcome_review

    seen = {"en": "at run time attention.py called scaled_dot_product_attention (3x): ...", "zh": "..."}
    assert outcome_review("", {"test_no_fused_attention_static": {"outcome": "passed"},
                               "test_no_fused_attention_runtime": {"outcome": "passed"}}) == []
    # the source review already said so: nothing new for the instructor
    assert outcome_review("", {"test_no_fused_attention_static": {"outcome": "failed"},
                               "test_no_fused_attention_runtime": {"outcome": "failed", "feedback": seen}}) == []
    # the run-time test failed for another reason (the student's forward raised): no accusation
    raised = {"en": "ScaledDotProductAttention.forward raised TypeError", "zh": "..."}
    assert outcome_review("", {"test_no_fused_attention_static": {"outcome": "passed"},
                               "test_no_fused_attention_runtime": {"outcome": "failed", "feedback": raised}}) == []


def test_rewriting_the_in_jail_counters_earns_no_reuse_point(executor, honest):
    result = _grade(executor, COPIES + FORGE_COUNTERS)
    assert result["status"] == "graded", result["message"]
    assert _points(result, "test_mha_reuses_sdpa") == 0
    assert _points(result, "test_no_fused_attention_runtime") == 0
    assert result["total"] <= honest["copies"]


def test_memoising_answers_does_not_hide_dropout_from_the_determinism_check(executor, honest):
    result = _grade(executor, DROPOUT + MEMOISE)
    assert result["status"] == "graded", result["message"]
    assert _outcomes(result)["test_deterministic"] == "failed"
    assert result["total"] <= honest["dropout"]


def test_dropout_seeded_from_the_input_does_not_pass_the_determinism_check(executor, honest):
    result = _grade(executor, DROPOUT + SEEDED_DROPOUT)
    assert result["status"] == "graded", result["message"]
    assert _outcomes(result)["test_deterministic"] == "failed"
    assert result["total"] <= honest["dropout"]


def test_nothing_observed_in_a_hidden_test_reaches_visible_feedback(executor):
    result = _grade(executor, CORRECT + LEAK_HIDDEN_INPUTS)
    assert result["status"] == "graded", result["message"]
    visible = [t for t in result["tests"] if not t["hidden"]]
    shown = [json.dumps(t["feedback"], ensure_ascii=False) for t in visible]
    assert any("SEEN" in text for text in shown), "the attack ran"
    # float64 inputs are used only by a hidden test (test_dtype_preserved).
    assert not any("float64" in text for text in shown if "SEEN" in text)


def test_a_correct_submission_uses_two_sessions_and_no_review(executor):
    result = _grade(executor, CORRECT)
    assert result["total"] == 85
    assert "sessions used: 2" in result["log"]   # visible; hidden (lent first, fresh, to the determinism check)
    assert result["review"] == []
