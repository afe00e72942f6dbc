"""Round 21 of hostile submissions: what the trusted side computes from the submitted source for each
failing test. The load hints and the notes of grading/load_hints.py walk the whole syntax tree of the
source; a file of 256 KiB raising in every call made them cost the worker ~3 s of CPU per grading
(32 failing tests, ~0.08 s each), outside every limit of the jail. Each question is now answered once,
and at most MAX_ANALYSES questions are answered per source. Below them, the round's attacks that found
nothing open (ROUND_21), graded as the earlier rounds' are."""

from __future__ import annotations

import json

import pytest

from grading import load_hints
from tests.grading.helpers import SUBMISSIONS, in_forward, on_results, worker_cost
from tests.grading.helpers import grade_stored as _grade

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
# ~240 KiB of helpers nothing calls: a tree of ~75,000 nodes for every walk of it
PADDING = "".join(f"def helper_{i}(x, y):\n    z = x.transpose(1, 2)\n    z += y\n    return z.view(3, -1) / 2\n"
                  for i in range(2400))
FLOAT_SIZE = "empty(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 0"
VIEW = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.")


def _sizes_computed_with_slash(n: int) -> tuple[str, list[int]]:
    """A source with ``n`` functions, each computing a size with '/' and passing it on: the lines a
    float-size error may name."""
    src = "import torch\n" + "".join(f"def f{i}(x):\n    h = x.shape[-1] / 2\n    return torch.empty(h)\n"
                                     for i in range(n))
    return src, [3 * i + 4 for i in range(n)]       # each ``torch.empty(h)`` line


def test_a_note_is_computed_once_per_line_and_for_at_most_max_analyses_lines(monkeypatch):
    source, lines = _sizes_computed_with_slash(load_hints.MAX_ANALYSES + 4)
    walks = []
    real = load_hints.parse_source
    monkeypatch.setattr(load_hints, "parse_source", lambda s: walks.append(1) or real(s))
    first = load_hints.float_size_note(source, lines[0], FLOAT_SIZE)
    assert first is not None and f"line {lines[0] - 1} computes h with '/'" in first["en"], first
    for _ in range(5):                                  # the same error in every test: one analysis
        assert load_hints.float_size_note(source, lines[0], FLOAT_SIZE) == first
    assert len(walks) == 1
    notes = [load_hints.float_size_note(source, line, FLOAT_SIZE) for line in lines]
    assert all(n is not None for n in notes[:load_hints.MAX_ANALYSES]), notes
    assert notes[load_hints.MAX_ANALYSES:] == [None] * 4        # past the allowance: no note, no walk
    assert len(walks) == load_hints.MAX_ANALYSES
    assert load_hints.float_size_note(source, lines[1], FLOAT_SIZE) == notes[1]    # answered still
    # the allowance is the source's: another file gets its own
    other, other_lines = _sizes_computed_with_slash(2)
    assert load_hints.float_size_note(other, other_lines[1], FLOAT_SIZE) is not None


def test_a_kept_note_is_a_copy_its_caller_may_edit():
    source, lines = _sizes_computed_with_slash(1)
    note = load_hints.float_size_note(source, lines[0], FLOAT_SIZE)
    note["en"] = "edited"
    assert load_hints.float_size_note(source, lines[0], FLOAT_SIZE)["en"] != "edited"


def test_missing_name_questions_count_against_the_allowance_of_their_source():
    source = "import torch\n" + "".join(f"class MultiheadAttention{i}(torch.nn.Module):\n    pass\n" for i in range(3))
    asked = [load_hints.missing_name_hint(source, f"Name{i}") for i in range(load_hints.MAX_ANALYSES)]
    assert asked == [None] * load_hints.MAX_ANALYSES
    # the allowance is spent: even the question with an answer gets none now
    assert load_hints.missing_name_hint(source, "MultiHeadAttention") is None
    fresh = source + "\n"
    assert load_hints.missing_name_hint(fresh, "MultiHeadAttention") is None      # three near names: no guess
    single = "import torch\nclass MultiheadAttention(torch.nn.Module):\n    pass\n"
    assert "defines MultiheadAttention (line 2)" in load_hints.missing_name_hint(single, "MultiHeadAttention")["en"]


@pytest.mark.slow
@pytest.mark.parametrize("attack", ["float_size", "view", "from_a_new_line", "missing_class"])
def test_an_error_in_every_call_of_a_large_file_costs_the_worker_what_an_unhinted_one_does(executor, attack):
    # The control: the same large file raising an error no note reads (its review and parse are paid there too).
    control = in_forward(CORRECT + PADDING, 'raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")')
    if attack == "float_size":
        code = in_forward(CORRECT + PADDING, f"n = q.shape[-1] / 2\nraise TypeError({FLOAT_SIZE!r})")
    elif attack == "view":
        code = in_forward(CORRECT + PADDING, f"t = q.transpose(1, 2)\nraise RuntimeError({VIEW!r})")
    elif attack == "from_a_new_line":
        raisers = "".join(f"def _raise_{i}(q):\n    n = q.shape[-1] / 2\n    raise TypeError({FLOAT_SIZE!r})\n"
                          for i in range(900))
        code = in_forward(CORRECT + PADDING[:PADDING.index("def helper_1200(")] + raisers, '''
global _calls
_calls = globals().get("_calls", 0) + 1
globals()["_raise_%d" % _calls](q)''')
    else:
        code = "import torch\n" + "".join(f"class ScaledDotProductAttention_{i}(torch.nn.Module):\n    pass\n"
                                          for i in range(3500))
        control = "import torch\n" + "".join(f"class Helper_{i}(torch.nn.Module):\n    pass\n" for i in range(3500)) \
            + "raise RuntimeError('a top-level failure')\n"
    assert len(code.encode()) < 256 * 1024
    _grade(executor, CORRECT)                                   # the first grading's own warm-up
    base, base_cpu, _ = worker_cost(_grade, executor, control)
    result, cpu, wall = worker_cost(_grade, executor, code)
    print(attack, f"{cpu:.2f} s of the worker's CPU, control {base_cpu:.2f} s, wall {wall:.1f} s")
    assert result["status"] == base["status"] == "graded", result["message"]
    assert result["total"] == 0
    # Before round 21 the hinted file cost 2.4-3.1 s; the margin absorbs a loaded host's CPU inflation
    # now that the control is cheaper (round 22's names-note bound: 0.36 -> 0.15 s).
    assert cpu < 2 * base_cpu + 0.5, f"{cpu:.2f} s of the worker's CPU against {base_cpu:.2f} s"


# The round's attacks that found nothing open, kept so that what holds keeps holding. Each: (the code, the
# code it must not score above). Measured on a loaded 2-core host: all `graded`, 0.07-0.15 s of the worker's
# CPU, 0.1-0.7 s of wall.
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
ROUND_21: dict[str, tuple[str, str]] = {
    # the jail's process state, changed at import
    "prctl_death_signal_name_and_timer_slack": (CORRECT + '''
import ctypes as _c
_l = _c.CDLL(None)
_l.prctl(1, 9, 0, 0, 0)
_l.prctl(15, b"ag-tests", 0, 0, 0)
_l.prctl(36, 1, 0, 0, 0)
_l.prctl(29, 10**9, 0, 0, 0)
''', "correct"),
    "a_seccomp_filter_of_its_own_refusing_write": (CORRECT + '''
import ctypes as _c, struct as _st
def _bpf(code, jt, jf, k): return _st.pack("HBBI", code, jt, jf, k)
_prog = _c.create_string_buffer(_bpf(0x20, 0, 0, 0) + _bpf(0x15, 0, 1, 1) + _bpf(0x06, 0, 0, 0x00050001)
                                + _bpf(0x06, 0, 0, 0x7fff0000))
class _F(_c.Structure):
    _fields_ = [("len", _c.c_ushort), ("f", _c.c_void_p)]
_l = _c.CDLL(None)
_l.prctl(38, 1, 0, 0, 0)
_l.prctl(22, 2, _c.byref(_F(4, _c.cast(_prog, _c.c_void_p))), 0, 0)
''', "correct"),
    "warnings_turned_into_errors": (CORRECT + "import warnings as _w\n_w.simplefilter('error')\n", "correct"),
    "an_audit_hook_raising_on_sockets_and_files": (CORRECT + '''
import sys as _s
def _h(ev, args):
    if ev.startswith(("socket", "os.")) or ev == "open":
        raise RuntimeError("audited " + ev)
_s.addaudithook(_h)
''', "correct"),
    "an_audit_hook_exiting_on_any_event": (WRONG + '''
import sys as _s, os as _o
_armed = []
_s.addaudithook(lambda ev, args: _armed and _o._exit(0))
_armed.append(1)
''', "wrong"),
    "every_exception_hook_exiting": (CORRECT + '''
import sys as _s, threading as _t, os as _o
_s.excepthook = _t.excepthook = _s.unraisablehook = _s.displayhook = lambda *a: _o._exit(0)
''', "correct"),
    "builtins_import_refusing_all_but_torch": (CORRECT + '''
import builtins as _b
_real = _b.__import__
def _imp(name, *a, **k):
    if not name.startswith("torch"):
        raise ImportError("no " + name)
    return _real(name, *a, **k)
_b.__import__ = _imp
''', "correct"),
    "a_global_dispatch_mode_exiting_on_every_op": (WRONG + '''
from torch.utils._python_dispatch import TorchDispatchMode as _TDM
class _M(_TDM):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise SystemExit(0)
_M().__enter__()
''', "wrong"),
    "inference_mode_entered_and_grad_off": (CORRECT + "torch.inference_mode().__enter__()\ntorch._C._set_grad_enabled(False)\n",
                                            "correct"),
    "a_timer_exiting_between_tests": (CORRECT + '''
import threading as _t, os as _o
_t.Timer(0.3, lambda: _o._exit(0)).start()
''', "correct"),
    "a_timer_closing_every_descriptor": (CORRECT + '''
import threading as _t, os as _o
def _later():
    for fd in range(64):
        try:
            _o.close(fd)
        except OSError:
            pass
_t.Timer(0.2, _later).start()
''', "correct"),
    # exceptions the runtime has to describe
    "an_exception_whose_causes_form_a_cycle": (in_forward(CORRECT, '''
_a = RuntimeError("a"); _b = ValueError("b")
_a.__context__ = _b; _b.__context__ = _a; _a.__cause__ = _b
raise _a'''), "correct"),
    "an_exception_with_endless_notes": (in_forward(CORRECT, '''
import itertools as _it
_e = RuntimeError("notes")
_e.__notes__ = (str(i) for i in _it.count())
raise _e'''), "correct"),
    "a_syntax_error_raised_with_absurd_positions": (CORRECT + '''
raise SyntaxError("forged", ("attention.py", 10**12, -10**12, "x" * 100, 10**12, -5))
''', "correct"),
    "a_module_not_found_error_naming_a_number": (CORRECT + '''
raise ModuleNotFoundError("No module named 'x'", name=12345, path=["/etc"])
''', "correct"),
    # results the wire format has to refuse or carry
    "results_with_the_negative_bit_set": (on_results(WRONG, '''
def _form(o):
    return torch._neg_view(o) if o.is_floating_point() else o
'''), "wrong"),
    "results_whose_storage_was_freed": (on_results(CORRECT, '''
def _form(o):
    o = o.clone()
    o.untyped_storage().resize_(0)
    return o
'''), "correct"),
    "big_endian_numpy_results": (on_results(CORRECT, "def _form(o):\n    return o.detach().numpy().astype('>f4')\n"),
                                 "correct"),
    "a_batched_tensor_escaped_from_vmap": (on_results(CORRECT, '''
_leak = []
torch.func.vmap(lambda x: _leak.append(x) or x)(torch.ones(3, 2))
def _form(o):
    return _leak[0]
'''), "correct"),
    "a_backward_hook_exiting": (on_results(CORRECT, '''
import os as _o
def _form(o):
    if o.requires_grad:
        o.register_hook(lambda g: _o._exit(0))
    return o
'''), "correct"),
    # modules that lie about themselves
    "named_modules_and_children_without_end": (CORRECT + '''
import itertools as _it
def _nm(self, *a, **k):
    for i in _it.count():
        yield ("m%d" % i, self)
MultiHeadAttention.named_modules = MultiHeadAttention.named_children = _nm
MultiHeadAttention.modules = MultiHeadAttention.children = lambda self: (self for _ in _it.count())
''', "correct"),
    "the_class_swapped_after_construction": (CORRECT + '''
class _Other(torch.nn.Module):
    def forward(self, *a, **k):
        return a[0]
_init = MultiHeadAttention.__init__
def _swapped(self, *a, **k):
    _init(self, *a, **k)
    self.__class__ = _Other
MultiHeadAttention.__init__ = _swapped
''', "correct"),
    "a_finalizer_exiting_at_the_next_collection": (on_results(CORRECT, '''
import weakref as _wr, os as _os, gc as _gc
_gc.set_threshold(1, 1, 1)
class _X:
    pass
def _form(o):
    _wr.finalize(_X(), lambda: _os._exit(0))
    return o
'''), "correct"),
}


@pytest.fixture(scope="module")
def honest(executor) -> dict[str, float]:
    return {name: _grade(executor, code)["total"] for name, code in (("correct", CORRECT), ("wrong", WRONG))}


# a jail that dies at its every op is replaced until the budget's end: ~5 s of wall
_SLOW = {"a_global_dispatch_mode_exiting_on_every_op"}


@pytest.mark.parametrize("attack", [pytest.param(a, marks=pytest.mark.slow) if a in _SLOW else a for a in ROUND_21])
def test_a_round_21_attack_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    code, base = ROUND_21[attack]
    result, cpu, wall = worker_cost(_grade, executor, code)
    print(attack, result["status"], result["total"], honest[base], f"{wall:.1f}s {cpu:.2f}s CPU")
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest[base]
    assert wall < 15, f"{wall:.1f} s"
    assert cpu < 1.5, f"{cpu:.2f} s of the worker's CPU"
    text = json.dumps(result, ensure_ascii=False)
    for word in ("grader_tests", "test_implementation", "test_mask_parity", "cases.py"):
        assert word not in text, word      # nothing of the hidden suite reaches the stored result
    for t in result["tests"]:
        if t["outcome"] != "passed":
            assert t["feedback"]["en"] and t["feedback"]["zh"] and t["feedback"]["en"] != t["feedback"]["zh"], t
