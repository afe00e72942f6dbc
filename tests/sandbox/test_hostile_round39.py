"""Round 39 red team: hostile submissions that try to turn their grading into a grader error, change its score or
slow the next grading. Each one, graded whole (grading.runner.grade on the shared executor), must end as a graded
result (never ``error``) whose every failed test and message says what happened in English and Chinese, and a correct
submission graded right after it on the same executor must score what it scores alone.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from grading.review import reason_text
from grading.runner import GradeInput, grade

REF = (Path(__file__).resolve().parent.parent / "fixtures" / "submissions" / "correct" / "reference.py").read_text()


def fwd(body: str) -> str:
    """The reference whose single-head forward first runs ``body`` (its last statement may return)."""
    lines = "".join("    " + line + "\n" for line in body.strip("\n").splitlines())
    return REF + f'''
_honest_forward = ScaledDotProductAttention.forward
def _attacked(self, q, *a, **k):
{lines}    return _honest_forward(self, q, *a, **k)
ScaledDotProductAttention.forward = _attacked
'''


HOSTILE = {
 "itimer_raises": REF + "\nimport signal\ndef _h(s, f):\n    raise RuntimeError('tick')\nsignal.signal(signal.SIGALRM, _h)\nsignal.setitimer(signal.ITIMER_REAL, 0.005, 0.005)\n",
 "atexit_flood": REF + "\nimport atexit\natexit.register(lambda: print('x' * 10**7))\n",
 "settrace_raises": REF + "\nimport sys\ndef _t(frame, event, arg):\n    if 'sandbox' in frame.f_code.co_filename:\n        raise RuntimeError('traced')\n    return None\nsys.settrace(_t)\nimport threading; threading.settrace(_t)\n",
 "setprofile_slow": REF + "\nimport sys, time\ndef _p(frame, event, arg):\n    if event == 'call':\n        time.sleep(0.001)\nsys.setprofile(_p)\n",
 "builtins_isinstance": REF + "\nimport builtins\nbuiltins.isinstance = lambda *a: False\nbuiltins.len = lambda x: 0\n",
 "torch_function_subclass": fwd("class _T(torch.Tensor):\n    @classmethod\n    def __torch_function__(cls, func, types, args=(), kwargs=None):\n        raise RuntimeError('no')\n"
                                   "out = _honest_forward(self, q, *a, **k)\n"
                                   "return out.as_subclass(_T) if isinstance(out, torch.Tensor) else tuple(t.as_subclass(_T) for t in out)"),
 "str_loops": fwd("class _E(Exception):\n    def __str__(self):\n        while True:\n            pass\nraise _E()"),
 "huge_str": fwd("class _E(Exception):\n    def __str__(self):\n        return 'y' * (1 << 28)\nraise _E()"),
 "deep_recursion": fwd("import sys\nsys.setrecursionlimit(10**7)\ndef _r(n):\n    return _r(n + 1) + 1\n_r(0)"),
 "close_fds_012": REF + "\nimport os\nfor _fd in (0, 1, 2):\n    os.close(_fd)\nprint('hello')\n",
 "chdir_rmdir": REF + "\nimport os, tempfile\n_d = tempfile.mkdtemp()\nos.chdir(_d)\nos.rmdir(_d)\n",
 "spinning_thread": REF + "\nimport threading\ndef _spin():\n    while True:\n        pass\nthreading.Thread(target=_spin, daemon=True).start()\n",
 "stdout_raises": REF + "\nimport sys\nclass _W:\n    def write(self, s):\n        raise OSError('nope')\n    def flush(self):\n        raise OSError('nope')\nsys.stdout = sys.stderr = _W()\n",
 "gc_callback_raises": REF + "\nimport gc\ngc.callbacks.append(lambda *a: 1 / 0)\n",
 "json_patched": REF + "\nimport json\njson.dumps = lambda *a, **k: '{}'\njson.loads = lambda *a, **k: {}\n",
 "sendall_patched": REF + "\nimport socket\nsocket.socket.sendall = lambda self, data, *a: None\n",
 "rlimit_cpu_lowered": REF + "\nimport resource\nresource.setrlimit(resource.RLIMIT_CPU, (1, 1))\nresource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))\n",
 "switchinterval": REF + "\nimport sys\nsys.setswitchinterval(1e-9)\n",
 "faulthandler_later": REF + "\nimport faulthandler\nfaulthandler.dump_traceback_later(0.001, repeat=True)\n",
 "sigmask_all": REF + "\nimport signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals))\nfor _s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):\n    signal.signal(_s, signal.SIG_IGN)\n",
 "thread_outlives_writes": REF + "\nimport threading, os, time\ndef _w():\n    while True:\n        os.write(1, b'z' * 65536)\nthreading.Thread(target=_w, daemon=True).start()\n",
 "del_at_exit": REF + "\nclass _D:\n    def __del__(self):\n        while True:\n            pass\n_keep = _D()\nimport sys\nsys.modules['_d'] = _keep\n",
 "excepthook_loop": REF + "\nimport sys, threading\nsys.excepthook = lambda *a: None\nthreading.excepthook = lambda a: (_ for _ in ()).throw(RuntimeError())\nsys.unraisablehook = lambda u: None\n",
 "set_num_threads": REF + "\nimport torch\ntorch.set_num_threads(64)\ntorch.set_num_interop_threads(64) if hasattr(torch, 'set_num_interop_threads') else None\n",
 "anonymous_mmap_past_the_memory_limit": REF + "\nimport mmap\n_m = mmap.mmap(-1, 900 << 20)\n_m[::4096] = b'x' * len(range(0, 900 << 20, 4096))\n",
 "os_exit_from_a_thread": fwd("import threading, os\nthreading.Thread(target=lambda: os._exit(0)).start()\nimport time; time.sleep(0.2)"),
}

# Over 10 s a grading on the 2-core host: a timeout per test, or a slowed interpreter.
SLOW = {"setprofile_slow", "str_loops", "huge_str", "deep_recursion", "sendall_patched"}


@pytest.fixture(scope="module")
def reference_total(executor) -> float:
    return grade(GradeInput(code=REF.encode()), "attention", executor)["total"]


def _bilingual(text: object) -> bool:
    return isinstance(text, dict) and all(isinstance(text.get(lang), str) and text[lang].strip()
                                          for lang in ("en", "zh"))


def grade_hostile(executor, code: str, reference_total: float, name: str) -> dict:
    """Grade ``code`` and check it ended on the student's side with bilingual feedback, then that the reference graded
    next on the same executor scores ``reference_total`` within 10 s; the hostile grading's result."""
    result = grade(GradeInput(code=code.encode()), "attention", executor)
    json.dumps(result, allow_nan=False)
    assert result["status"] == "graded", (name, result["status"], result.get("message"))
    assert result["message"] is None or _bilingual(result["message"]), result["message"]
    failed = [t for t in result["tests"] if t["outcome"] != "passed"]
    assert all(_bilingual(t["feedback"]) for t in failed), [t["feedback"] for t in failed if not _bilingual(t["feedback"])]
    t0 = time.monotonic()
    after = grade(GradeInput(code=REF.encode()), "attention", executor)
    assert (after["status"], after["total"]) == ("graded", reference_total), (name, after["status"], after["total"])
    # an honest grading takes ~0.2-1.5 s here: nothing of the hostile one's jails still holds the executor
    assert time.monotonic() - t0 < 10, name
    return result


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in HOSTILE])
def test_a_hostile_submission_is_graded_with_bilingual_feedback_and_the_next_grading_is_unharmed(
        executor, reference_total, name):
    grade_hostile(executor, HOSTILE[name], reference_total, name)


# Open item 3 of round 38: the request's mark is a local of the runtime's serving frame, which the student's own code
# reads up its frame stack (a thread can read it through sys._current_frames; ctypes can read the whole process, so no
# place in it is out of reach). This forward writes a reply with the call's seq and mark on the data socket (fd 3)
# before its own return: the forgery is accepted, and must gain nothing the code could not have returned itself.
FRAME_FORGER = fwd('''
import sys as _sys, json as _json, os as _os, time as _time
_f = _sys._getframe()
while _f is not None and "mark" not in _f.f_locals:
    _f = _f.f_back
if _f is not None:
    _head = _json.dumps({"v": {"D": {"seq": _f.f_locals["seq"], "mark": _f.f_locals["mark"], "ok": True,
                                     "value": {"X": 0}}},
                         "t": [{"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}], "n": 4}).encode()
    _os.write(3, len(_head).to_bytes(4, "big") + _head + b"\\x00\\x00\\x80?")
    _time.sleep(0.3)
''')


@pytest.mark.slow
def test_a_reply_forged_with_the_mark_read_off_the_serving_frame_gains_nothing(executor):
    result = grade(GradeInput(code=FRAME_FORGER.encode()), "attention", executor)
    assert result["status"] == "graded"
    tests = {t["id"]: t for t in result["tests"]}
    # the forged value is taken as the call's return, verdicts are computed from it: the shape the forger sent
    assert "has shape [1]" in tests["test_sdpa_interface"]["feedback"]["en"], tests["test_sdpa_interface"]
    # the runtime's own reply, read next, is refused as out of sequence: the session ends on the student's side
    assert any("a reply out of sequence" in t["feedback"]["en"] and "顺序错乱" in t["feedback"]["zh"]
               for t in result["tests"] if t["outcome"] != "passed")
    # what the process reports of itself is not credited to a file that walks the runtime's frames
    assert tests["test_no_fused_attention_runtime"]["outcome"] != "passed"
    assert any("_getframe" in reason_text(r) for r in result["review"]), result["review"]
    assert result["total"] == 0
