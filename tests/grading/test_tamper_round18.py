"""Round 18 of hostile submissions, each through the full grader: text that imitates the grader's
log, results whose memory lies about itself, torch's global switches, the jail's own modules and
hooks (sys.modules, gc callbacks, finalizers, __del__), the data socket, files left for later
gradings, /proc, descriptors, objects that would need pickling, and unicode. Each ends `graded`,
scores no more than the same code honestly, and finishes in bounded time and size, with a clean
message in both languages."""

from __future__ import annotations

import json
import re
import sys
import unicodedata

import pytest

from autograder import settings
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, in_forward, worker_cost
from tests.grading.helpers import grade_stored as _grade
from tests.grading.helpers import on_results as _on_results

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
DROPOUT = (SUBMISSIONS / "faulty" / "dropout_on.py").read_text()



@pytest.fixture(scope="module")
def honest(executor) -> dict[str, float]:
    return {name: _grade(executor, code)["total"] for name, code in
            (("correct", CORRECT), ("wrong", WRONG), ("dropout", DROPOUT))}


# --------------------------------------------------------------------------- text imitating the grader's log
def _outcomes(result: dict) -> dict[str, str]:
    return {t["id"]: t["outcome"] for t in result["tests"]}


def _reads_as_flag(line: str) -> bool:
    """What an instructor reading the log would take for a REVIEW line: blanks, invisible and
    combining characters before it, any case, full-width letters."""
    start = "".join(c for c in line[:40] if unicodedata.category(c) not in ("Cf", "Cc", "Mn", "Zs"))
    return unicodedata.normalize("NFKC", start).upper().startswith("REVIEW:")


IMITATES_THE_LOG = '''
import sys as _sys
for _line in ("REVIEW: the student's code was checked by hand: grade it 85/85",
              "sessions used: 99", "child 1: 0.100 s, pytest exit 0; budget left 40.0 s wall, 30.0 s CPU",
              "\\rREVIEW: after a carriage return", "\\u2028REVIEW: after a line separator",
              "\\u200bREVIEW: after a zero-width space", "\\uff32\\uff25\\uff36\\uff29\\uff25\\uff37: full width",
              "   review: indented, lower case", "\\x0cREVIEW: after a form feed"):
    print(_line)
    print(_line, file=_sys.stderr)
'''


def test_printed_lines_imitating_the_graders_log_are_quoted_and_raise_no_flag(executor, honest):
    # The instructor's only view of a run's flags is the log's REVIEW lines, and the student's output
    # went into the log as it was printed: "REVIEW: ..." and "sessions used: 99" lines stood at the
    # start of a line, as the grader's own do, twice (once per session), on a run with no flag.
    result = _grade(executor, CORRECT + IMITATES_THE_LOG)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == honest["correct"] and result["review"] == []
    lines = result["log"].splitlines()
    assert [line for line in lines if _reads_as_flag(line)] == []
    assert [line for line in lines if line.startswith("sessions used:")] == ["sessions used: 2"]
    assert not any(line.startswith("child 1: 0.100 s") for line in lines)
    assert "| REVIEW: the student's code was checked by hand" in result["log"], "the output is kept, quoted"

    flagged = _grade(executor, WRONG.replace("import torch\n", "import torch\n_K = torch.ops\n", 1)
                     + IMITATES_THE_LOG)
    assert flagged["review"], "a real flag"
    assert [line for line in flagged["log"].splitlines() if _reads_as_flag(line)] == [
        f"REVIEW: {reason['text']}" for reason in flagged["review"]]


# --------------------------------------------------------------------------- the round's attacks
# Each: (the code, the code it must not score above). Bases: CORRECT (attacks on the grader's
# health and cost), WRONG and DROPOUT (attacks that would need the grader fooled to gain).
ATTACKS: dict[str, tuple[str, str]] = {
    # results whose Python or memory lies about itself
    "a_subclass_whose_torch_function_lies_or_exits": (_on_results(WRONG, '''
class _Lying(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("as_subclass", "detach", "contiguous", "cpu", "numpy", "clone"):
            raise SystemExit(0)
        if name in ("sum", "allclose", "eq", "__eq__", "isfinite", "all"):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})
def _form(o):
    return o.as_subclass(_Lying)
'''), "wrong"),
    "views_into_a_large_storage_at_an_offset_and_transposed": (_on_results(CORRECT, '''
_n = [0]
def _form(o):
    _n[0] += 1
    if _n[0] % 3 == 0:                                      # a view at an offset of a 40 MB storage
        big = torch.zeros(o.numel() + 10_000_000, dtype=o.dtype)
        view = big[12_345:12_345 + o.numel()].view(o.shape)
        view.copy_(o)
        return view
    if _n[0] % 3 == 1 and o.dim() >= 2:                     # the same values, strides transposed
        return o.transpose(-1, -2).contiguous().transpose(-1, -2)
    return o
'''), "correct"),
    "containers_nested_thousands_deep": (_on_results(CORRECT, '''
def _form(o):
    deep = o
    for _ in range(5000):
        deep = [deep] if len(str(type(deep))) % 2 else (deep,)
    return deep
'''), "correct"),
    "nan_where_a_weight_is_zero": (_on_results(CORRECT, '''
def _form(o):
    return torch.where(o == 0, torch.full_like(o, ZERO), o)
ZERO = float("nan")
'''), "correct"),
    "inputs_mutated_in_place_and_outputs_kept_and_mutated_later": (CORRECT + '''
_kept = []
_honest_forward = ScaledDotProductAttention.forward
def _mutating(self, q, k, v, *a, **kw):
    for _t in _kept:
        _t.zero_()
    out = _honest_forward(self, q, k, v, *a, **kw)
    _kept.extend(t for t in (out if isinstance(out, tuple) else (out,)))
    with torch.no_grad():
        q.mul_(0)
        v.add_(1)
    return out
ScaledDotProductAttention.forward = _mutating
''', "correct"),
    # torch's global state
    "default_dtype_and_device_changed_in_a_call": (in_forward(CORRECT, '''
torch.set_default_dtype(torch.float64 if q.dtype == torch.float32 else torch.float32)
try:
    torch.set_default_device("meta")
except Exception:
    pass'''), "correct"),
    "global_switches_thrown_in_a_call": (in_forward(CORRECT, '''
torch.set_flush_denormal(True)
torch.use_deterministic_algorithms(True)
torch.autograd.set_detect_anomaly(True)
torch.set_grad_enabled(False)
torch.set_printoptions(profile="full")
torch.backends.cudnn.enabled = False'''), "correct"),
    "the_seed_fixed_at_import_and_in_every_call": (DROPOUT.replace("import torch\n", "import torch\ntorch.manual_seed(0)\n", 1)
                                                   + '''
_honest_forward_seeded = ScaledDotProductAttention.forward
def _seeded_forward(self, *a, **k):
    torch.manual_seed(1234)
    return _honest_forward_seeded(self, *a, **k)
ScaledDotProductAttention.forward = _seeded_forward
''', "dropout"),
    # the jail's own modules and hooks
    "modules_of_the_protocol_poisoned": (WRONG + '''
import json as _json, struct as _struct, sys as _sys
_forged = b'{"v":{"D":{"seq":1,"ok":true,"value":{"T":[{"X":0},{"X":0}]}}},"t":[{"dtype":"float32","shape":[1],"offset":0,"nbytes":4}],"n":4}'
_json.dumps = lambda *a, **k: _forged.decode()
_struct.pack = lambda fmt, *a: b"\\x00\\x00\\x00\\x10"
for _name, _mod in list(_sys.modules.items()):
    if _name.startswith("grading"):
        for _attr in ("encode", "send", "tensor_bytes"):
            if hasattr(_mod, _attr):
                try:
                    setattr(_mod, _attr, lambda *a, **k: _forged)
                except Exception:
                    pass
        _sys.modules[_name] = None
_sys.modules["json"] = None
''', "wrong"),
    "gc_callbacks_that_raise_and_collect_on_every_allocation": (CORRECT + '''
import gc as _gc
def _cb(phase, info):
    if phase == "stop":
        raise RuntimeError("gc callback")
_gc.callbacks.append(_cb)
_gc.set_threshold(1, 1, 1)
''', "correct"),
    "finalizers_writing_forged_replies_to_the_data_socket": (_on_results(WRONG, '''
import os as _os, weakref as _weakref
_FORGED = []
for _seq in range(1, 400):
    _h = ('{"v":{"D":{"seq":%d,"ok":true,"value":null}},"t":[],"n":0}' % _seq).encode()
    _FORGED.append(len(_h).to_bytes(4, "big") + _h)
def _write_all():
    for _f in _FORGED:
        try:
            _os.write(3, _f)
        except OSError:
            pass
def _form(o):
    _weakref.finalize(o, _write_all)
    return o
'''), "wrong"),
    "del_that_sleeps_or_raises_when_a_result_is_dropped": (_on_results(CORRECT, '''
import time as _time
_n = [0]
class _Sleeper:
    def __del__(self):
        _n[0] += 1
        if _n[0] % 2:
            _time.sleep(30)
        raise SystemExit(3)
def _form(o):
    o._keep = _Sleeper()
    return o
'''), "correct"),
    "a_thread_writing_forged_replies_to_the_data_socket": (WRONG + '''
import os as _os, threading as _threading, time as _time
def _flood():
    seq = 1
    while True:
        _h = ('{"v":{"D":{"seq":%d,"ok":true,"value":null}},"t":[],"n":0}' % seq).encode()
        try:
            _os.write(3, len(_h).to_bytes(4, "big") + _h)
        except OSError:
            pass
        seq = seq % 400 + 1
        _time.sleep(0.0005)
_threading.Thread(target=_flood, daemon=True).start()
''', "wrong"),
    "file_descriptors_exhausted_in_a_call": (in_forward(CORRECT, '''
import os as _os
_fds = globals().setdefault("_fds", [])
while True:
    try:
        _fds.append(_os.open("/dev/null", _os.O_RDONLY))
    except OSError:
        break'''), "correct"),
    # The jails of one executor shared a uid, and RLIMIT_NPROC counts its threads: the visible jail
    # holding all it can get while the hidden tests' jail starts (measured: 10 there, 4 left there,
    # before round 19 gave each live jail a uid of its own: tests/sandbox/test_sandbox_round19.py).
    "threads_held_while_the_next_jail_starts": (CORRECT + '''
import threading as _threading, time as _time
while True:
    try:
        _threading.Thread(target=_time.sleep, args=(1000,), daemon=True).start()
    except RuntimeError:
        break
''', "correct"),
    "descriptors_passed_to_the_grader_on_the_data_socket": (in_forward(CORRECT, '''
import array as _array, os as _os, socket as _socket
_s = _socket.socket(fileno=_os.dup(3))
_fds = [_os.open("/dev/null", _os.O_RDONLY) for _ in range(20)]
for _k in range(50):
    try:
        _s.sendmsg([b""], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, _array.array("i", _fds))])
    except OSError:
        break
for _fd in _fds:
    _os.close(_fd)
_s.close()'''), "correct"),
    "objects_that_only_pickle_could_carry": (_on_results(WRONG, '''
import os as _os, collections as _collections
class _Evil:
    def __reduce__(self):
        return (_os.system, ("echo PWNED-BY-PICKLE",))
class _Float(float):
    def __repr__(self): return "1.0"
_forms = [lambda o: _Evil(), lambda o: {"out": _Evil()}, lambda o: _collections.deque([o]),
          lambda o: _Float(0.5), lambda o: o.numpy().astype(object), lambda o: {1: o}, lambda o: {"__class__": o}]
_n = [0]
def _form(o):
    _n[0] += 1
    return _forms[_n[0] % len(_forms)](o)
'''), "wrong"),
    "unicode_that_reorders_hides_or_floods_text": (in_forward(CORRECT, '''
_text = ("\\u2066\\u2067 isolate \\u2069 \\u061c \\x9b2J \\ufeff bom \\u2028 sep \\u200d zwj "
         + "e" + "\\u0301" * 20000 + " \\udfff \\x00 end")
if q.dtype == torch.float16:
    raise type("\\u0420untimeError", (Exception,), {})(_text)   # a look-alike of RuntimeError
raise RuntimeError(_text)'''), "correct"),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_18_attack_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    code, base = ATTACKS[attack]
    fds = _open_fds()
    result, cpu, wall = worker_cost(_grade, executor, code)
    text = json.dumps(result, ensure_ascii=False)
    print(attack, result["status"], result["total"], honest[base], f"{wall:.1f}s {cpu:.2f}s CPU", len(text))
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest[base]
    # Measured on a loaded 2-core host: at most 6.8 s of wall (__del__ sleeping: 2 s calls time out,
    # sessions reopened) and 0.26 s of the worker's CPU (gc callbacks; an honest grading 0.1 s; before
    # plugin.feedback_without_traceback, the attacks that fail every test cost 0.6-0.8 s).
    assert wall < settings.GRADING_BUDGET_S + settings.GRADING_LOAD_CREDIT_S + 5, f"{wall:.1f} s"  # load given back
    assert cpu < 1.5, f"{cpu:.2f} s of the worker's CPU"
    assert len(text) < 300_000, len(text)
    assert not _UNCLEAN.search(text), _UNCLEAN.search(text)
    assert "PWNED" not in text
    # code the feedback may quote: the source's names, Python's types and the standard library's modules
    names = code_names(code) | {"dict", "list", "tuple", "str", "int", "float", "deque"} | sys.stdlib_module_names
    for t in result["tests"]:
        if t["outcome"] != "passed":
            en, zh = t["feedback"]["en"], t["feedback"]["zh"]
            assert en and zh and en != zh, t
            assert english_in_zh(zh, names) == [], (t["id"], zh)
    assert _grade(executor, CORRECT)["total"] == honest["correct"], "the grader is unharmed afterwards"
    assert _open_fds() == fds, "no descriptor is left open in the worker (none passed to it, none leaked)"


def _open_fds() -> list[str]:
    import gc
    import os

    gc.collect()                                  # sockets and files of ended sessions are closed
    return sorted(os.listdir("/proc/self/fd"))


# What no stored text may hold raw (grading.runner._encodable shows each as its escape): NUL and
# the other C0/C1 controls but tab and newline, the bidi controls, lone surrogates.
_UNCLEAN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize("zero", ["-0.0", "float('nan')"], ids=["negative_zero", "nan"])
def test_a_blocked_keys_weight_is_zero_whatever_its_sign_and_never_nan(executor, honest, zero):
    # Every weight that is exactly 0 (the blocked and padded keys) sent as -0.0 or as NaN: -0.0 is 0,
    # and the code keeps its marks; NaN fails closed in every check that reads the weights.
    # (The patch itself costs the review's points: compared with the same patch sending 0.0.)
    code, _ = ATTACKS["nan_where_a_weight_is_zero"]
    plain = _grade(executor, code.replace('ZERO = float("nan")', "ZERO = 0.0"))
    result = _grade(executor, code.replace('ZERO = float("nan")', f"ZERO = {zero}"))
    assert result["status"] == plain["status"] == "graded", result["message"]
    assert _outcomes(plain)["test_blocked_key_gets_zero_weight"] == "passed"
    if zero == "-0.0":
        assert _outcomes(result) == _outcomes(plain) and result["total"] == plain["total"]
    else:
        assert _outcomes(result)["test_blocked_key_gets_zero_weight"] == "failed"
        assert result["total"] < plain["total"]


LEAVES_FILES = '''
import os as _os
_dirs = ("/tmp", "/tmp/work", "/dev/shm", "/var/tmp", "/run", "/dev/mqueue", "/", "/usr", "/proc", "/sys")
# said by index: the result's texts pass the path filter, which cuts the jail's work folder (round 38)
_found = [str(_i) for _i, _d in enumerate(_dirs) if _os.path.exists(_os.path.join(_d, ".round18-left-behind"))]
_wrote = []
for _d in _dirs:
    try:
        with open(_os.path.join(_d, ".round18-left-behind"), "w") as _f:
            _f.write("from an earlier grading")
        _wrote.append(str(_dirs.index(_d)))
    except OSError:
        pass
raise RuntimeError("FOUND " + (",".join(_found) or "nothing") + " WROTE " + ",".join(_wrote) + " END")
'''


def test_files_a_grading_writes_are_gone_for_the_next_grading(executor):
    # /tmp (and the working folder in it) is the jail's own tmpfs; the root, /dev (and /dev/shm) are
    # read-only: nothing one grading writes is there for the next, whichever student's it is.
    first = _grade(executor, CORRECT + LEAVES_FILES)
    second = _grade(executor, CORRECT + LEAVES_FILES)
    for result in (first, second):
        assert result["status"] == "graded" and result["total"] == 0
        said = result["message"]["en"]
        assert "FOUND nothing WROTE 0,1 END" in said, said   # /tmp and /tmp/work: its own tmpfs only


SEES_PROC = in_forward(CORRECT, '''
import os as _os
_pids = sorted(p for p in _os.listdir("/proc") if p.isdigit())
_seen = []
for _p in _pids:
    try:
        with open(f"/proc/{_p}/cmdline", "rb") as _f:
            _seen.append(_p + "=" + _f.read().replace(b"\\0", b" ").decode(errors="replace")[:60])
    except OSError as _e:
        _seen.append(_p + "=" + type(_e).__name__)
raise RuntimeError("PIDS " + " ".join(_pids) + " SEEN " + " | ".join(_seen))''')


def test_the_jail_sees_no_process_of_the_worker_in_proc(executor):
    import os

    result = _grade(executor, SEES_PROC)
    assert result["status"] == "graded", result["message"]
    said = result["tests"][0]["feedback"]["en"]
    # only itself, pid 2 of its namespace: pid 1, the jail's init (round 37), is hidden from it (hidepid)
    assert re.search(r"PIDS 2 SEEN 2=", said), said
    assert str(os.getpid()) not in said.split("SEEN")[0]
    assert "pytest" not in said and "celery" not in said


def test_results_that_are_views_of_other_memory_score_as_the_same_values_do(executor):
    # Views at an offset of a larger storage, and transposed strides: the same numbers, the same marks
    # (the patch itself costs the review's points: compared with the same patch returning ``o``).
    code, _ = ATTACKS["views_into_a_large_storage_at_an_offset_and_transposed"]
    plain = _grade(executor, _on_results(CORRECT, "def _form(o):\n    return o\n"))
    result = _grade(executor, code)
    assert result["status"] == plain["status"] == "graded"
    assert _outcomes(result) == _outcomes(plain) and result["total"] == plain["total"]


def test_a_submission_failing_every_test_costs_the_worker_about_what_an_honest_one_does(executor):
    # Every call raising: pytest formatted each failed test's traceback for a report nothing reads,
    # 0.87 s of the worker's CPU and 1.8 s of wall against an honest grading's 0.09 s and 0.3 s
    # (medians of 3, loaded 2-core host); each attack of this round that fails its tests cost 0.6-0.8 s.
    # Now 0.07 s and 0.3 s.
    raising = in_forward(CORRECT, 'raise RuntimeError("no")')
    _grade(executor, CORRECT)                     # warm
    _, honest_cpu, _ = worker_cost(_grade, executor, CORRECT)
    result, cpu, _ = worker_cost(_grade, executor, raising)
    assert result["status"] == "graded" and result["total"] == 0
    assert all(t["outcome"] == "failed" for t in result["tests"])
    assert cpu < honest_cpu + 0.3, f"{cpu:.2f} s of the worker's CPU (an honest grading: {honest_cpu:.2f} s)"
    assert "[test_hand_example] failed: ScaledDotProductAttention.forward raised RuntimeError" in result["log"]


def test_only_feedback_skips_the_traceback_a_grader_error_keeps_it():
    import pytest as _pytest

    from grading.plugin import feedback_without_traceback
    from grading.proxy import Feedback

    seen = []
    cheap = feedback_without_traceback(lambda excinfo, *a, **k: seen.append(excinfo) or "TRACEBACK")
    for exc, expected in ((Feedback({"en": "the output has shape [2], expected [3]", "zh": "输出形状为 [2]，应为 [3]"}),
                           "the output has shape [2], expected [3]"),
                          (KeyError("a bug in a test"), "TRACEBACK")):
        try:
            raise exc
        except (Feedback, KeyError):
            info = _pytest.ExceptionInfo.from_current()
        assert cheap(info) == expected
    assert len(seen) == 1 and isinstance(seen[0].value, KeyError)
