"""Round 22 of hostile submissions: tensors that lie, returns that explode when read, objects whose
dunders run code, process-state hooks left behind, encodings of the source. Each attack is graded in
the real sandbox and must end `graded`, score no more than the honest file it is built on, leak nothing
of the hidden suite and cost the worker about what an honest grading does."""

from __future__ import annotations

import json

import pytest

from autograder.settings import GRADING_BUDGET_S, GRADING_LOAD_CREDIT_S
from tests.grading.helpers import SUBMISSIONS, WATCH_SHARE, in_forward, on_results, worker_cost
from tests.grading.helpers import grade_stored as _grade

# ~50 gradings in the real sandbox: the slow lane, as the earlier rounds' corpora.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
FUSED = (SUBMISSIONS / "faulty" / "fused_sdpa.py").read_text()

ROUND_22: dict[str, tuple[str, str]] = {
    # tensors that lie
    "numpy_results_with_negative_strides": (on_results(CORRECT, '''
import numpy as _np
def _form(o):
    a = o.detach().numpy()
    return _np.flip(_np.flip(a.copy(), -1).copy(), -1)
'''), "correct"),
    "named_tensor_results": (on_results(CORRECT, '''
def _form(o):
    return o.refine_names(*("abcd"[:o.dim()]))
'''), "correct"),
    "nan_with_payload_bits_where_weights_belong": (on_results(WRONG, '''
def _form(o):
    o = o.detach().clone()
    bits = o.view(torch.int32)
    bits[..., 0] = 0x7fc01234
    return o
'''), "wrong"),
    "signalling_nan_and_negative_zero": (on_results(WRONG, '''
def _form(o):
    o = o.detach().clone()
    o.view(torch.int32)[..., -1] = 0x7f800001
    o[..., 0] = -0.0
    return o
'''), "wrong"),
    "denormal_noise_added": (on_results(WRONG, '''
def _form(o):
    return o + 1e-44
'''), "wrong"),
    "fake_tensor_results": (on_results(CORRECT, '''
from torch._subclasses.fake_tensor import FakeTensorMode as _FTM
_mode = _FTM()
def _form(o):
    return _mode.from_tensor(o.detach())
'''), "correct"),
    "functional_tensor_results": (on_results(CORRECT, '''
def _form(o):
    return torch._to_functional_tensor(o.detach())
'''), "correct"),
    "subclass_whose_getattribute_raises": (on_results(CORRECT, '''
class _T(torch.Tensor):
    def __getattribute__(self, name):
        raise SystemExit("nope " + name)
def _form(o):
    return o.detach().as_subclass(_T)
'''), "correct"),
    "subclass_whose_class_property_lies": (on_results(WRONG, '''
class _T(torch.Tensor):
    @property
    def __class__(self):
        return torch.Tensor
    def numpy(self, *a, **k):
        raise SystemExit(0)
def _form(o):
    return o.detach().as_subclass(_T)
'''), "wrong"),
    "shared_memory_results": (on_results(CORRECT, '''
def _form(o):
    return o.detach().clone().share_memory_()
'''), "correct"),
    "memmap_results": (on_results(CORRECT, '''
import numpy as _np, itertools as _it
_n = _it.count()
def _form(o):
    a = o.detach().numpy()
    m = _np.memmap("/tmp/mm%d" % next(_n), dtype=a.dtype, mode="w+", shape=a.shape)
    m[...] = a
    return m
'''), "correct"),
    "results_mutated_by_a_thread_while_sent": (on_results(WRONG, '''
import threading as _t
def _form(o):
    o = o.detach().clone()
    def _spin():
        for _ in range(200000):
            o.fill_(0.25)
    _t.Thread(target=_spin, daemon=True).start()
    return o
'''), "wrong"),
    "uint8_bool_and_int_results_shaped_right": (on_results(CORRECT, '''
def _form(o):
    return (o * 100).to(torch.int16)
'''), "correct"),
    "bfloat16_results": (on_results(CORRECT, "def _form(o):\n    return o.to(torch.bfloat16)\n"), "correct"),
    "results_on_a_stream_of_lazy_conj_and_zero_strides": (on_results(CORRECT, '''
def _form(o):
    return o.detach().resolve_conj().expand(*o.shape).as_strided(o.shape, [0] * o.dim())
'''), "correct"),
    "a_tensor_of_shape_metadata_overflowing_int64": (on_results(CORRECT, '''
def _form(o):
    return torch.empty(0).as_strided((2**62, 4, 0), (2**62, 2**62, 1))
'''), "correct"),
    # returns that explode when the runtime reads them
    "a_dict_whose_key_hash_exits": (on_results(CORRECT, '''
import os as _o
class _K:
    def __hash__(self):
        _o._exit(0)
    def __eq__(self, other):
        _o._exit(0)
def _form(o):
    return {"out": o, "k": {_K(): 1}}
'''), "correct"),
    "a_str_subclass_whose_encode_lies": (on_results(CORRECT, '''
class _S(str):
    def encode(self, *a, **k):
        return b'"}, {"X": 0}'
    def __len__(self):
        return -1
def _form(o):
    return _S("x")
'''), "correct"),
    "a_float_subclass_that_is_nan_on_repr": (on_results(CORRECT, '''
class _F(float):
    def __repr__(self):
        return "NaN"
    __str__ = __repr__
def _form(o):
    return [_F(0.5)] * 3
'''), "correct"),
    "objects_whose_index_and_float_run_code": (on_results(CORRECT, '''
import os as _o
class _N:
    def __index__(self):
        _o._exit(3)
    __int__ = __float__ = __index__
def _form(o):
    return (o, _N())
'''), "correct"),
    "a_tuple_of_a_million_nones": (on_results(CORRECT, "def _form(o):\n    return (None,) * 1_000_000\n"), "correct"),
    "a_string_of_sixty_megabytes": (on_results(CORRECT, "def _form(o):\n    return 'x' * (60 << 20)\n"), "correct"),
    "an_int_past_int64": (on_results(CORRECT, "def _form(o):\n    return 2 ** 200\n"), "correct"),
    "a_list_that_contains_itself": (on_results(CORRECT, "def _form(o):\n    l = [o]\n    l.append(l)\n    return l\n"),
                                    "correct"),
    "a_weakref_proxy_to_the_result": (on_results(CORRECT, '''
import weakref as _w
_keep = []
def _form(o):
    _keep.append(o)
    return _w.proxy(o)
'''), "correct"),
    # process state left behind
    "an_interval_timer_raising_in_every_frame": (CORRECT + '''
import signal as _sg
def _boom(*a):
    raise KeyboardInterrupt("tick")
_sg.signal(_sg.SIGALRM, _boom)
_sg.setitimer(_sg.ITIMER_REAL, 0.05, 0.001)
''', "correct"),
    "a_cpu_timer_exiting": (CORRECT + '''
import signal as _sg, os as _o
_sg.signal(_sg.SIGPROF, lambda *a: _o._exit(0))
_sg.setitimer(_sg.ITIMER_PROF, 0.2, 0.01)
''', "correct"),
    "every_signal_blocked_and_ignored": (CORRECT + '''
import signal as _sg
for _s in range(1, 32):
    try:
        _sg.signal(_s, _sg.SIG_IGN)
    except (OSError, ValueError, RuntimeError):
        pass
_sg.pthread_sigmask(_sg.SIG_BLOCK, set(range(1, 32)))
''', "correct"),
    "atexit_handlers_that_print_forged_results_and_hang": (CORRECT + '''
import atexit as _a, time as _t, sys as _s
@_a.register
def _bye():
    print('{"status": "graded", "total": 100}')
    _s.stdout.flush()
    _t.sleep(60)
''', "correct"),
    "a_trace_function_raising_in_the_runtimes_frames": (CORRECT + '''
import sys as _s, threading as _th
def _tr(frame, event, arg):
    if "sandbox" in frame.f_code.co_filename or "runtime" in frame.f_code.co_filename:
        raise RuntimeError("traced")
    return _tr
_s.settrace(_tr)
_th.settrace(_tr)
''', "correct"),
    "a_profile_function_exiting_in_the_encoder": (CORRECT + '''
import sys as _s, os as _o
def _pr(frame, event, arg):
    if frame.f_code.co_name in ("encode", "send", "_send", "write_message", "dumps") and frame.f_back is not None:
        _o._exit(0)
_s.setprofile(_pr)
''', "correct"),
    "a_trace_function_rewriting_the_callers_locals": (WRONG + '''
import sys as _s
def _tr(frame, event, arg):
    if event == "return" and isinstance(arg, dict) and "passed" in arg:
        arg["passed"] = True
    return _tr
_s.settrace(_tr)
''', "wrong"),
    "a_huge_recursion_limit_and_deep_recursion": (in_forward(CORRECT, '''
import sys as _s
_s.setrecursionlimit(10**7)
def _deep(n):
    return _deep(n + 1) + 1
_deep(0)'''), "correct"),
    "a_spinning_thread_left_after_load": (CORRECT + '''
import threading as _t
def _spin():
    while True:
        pass
for _ in range(4):
    _t.Thread(target=_spin, daemon=True).start()
''', "correct"),
    "a_thread_corrupting_inputs_between_calls": (CORRECT + '''
import threading as _t, gc as _gc, time as _tm
def _corrupt():
    while True:
        for o in _gc.get_objects():
            if type(o) is torch.Tensor and o.is_floating_point() and not o.requires_grad:
                try:
                    o.mul_(1.0001)
                except Exception:
                    pass
        _tm.sleep(0.01)
_t.Thread(target=_corrupt, daemon=True).start()
''', "correct"),
    "multiprocessing_and_subprocess": (in_forward(CORRECT, '''
import subprocess as _sp, multiprocessing as _mp
for _f in (lambda: _sp.run(["/bin/sh", "-c", "kill -9 -1"]), lambda: _mp.Pool(2), lambda: _mp.Process(target=print).start()):
    try:
        _f()
    except BaseException:
        pass'''), "correct"),
    "proc_read_for_other_processes_and_mounts": (in_forward(WRONG, '''
import os as _o
_seen = []
for _p in ("/proc/1/environ", "/proc/1/cmdline", "/proc/self/mountinfo", "/proc/mounts", "/proc/self/status",
           "/proc/sys/kernel/hostname", "/sys/fs/cgroup/cgroup.procs", "/proc/1/root/etc/hostname"):
    try:
        _seen.append(open(_p, "rb").read(2000))
    except OSError as _e:
        _seen.append(repr(_e).encode())
raise RuntimeError(repr(_seen)[:4000])'''), "wrong"),
    "timing_the_calls_to_answer_only_the_visible_tests": (CORRECT + '''
import time as _tm
_t0 = _tm.monotonic()
_honest = ScaledDotProductAttention.forward
def _timed(self, q, *a, **k):
    out = _honest(self, q, *a, **k)
    if _tm.monotonic() - _t0 > 0.5:
        return out * 0.5 if not isinstance(out, tuple) else tuple(o * 0.5 for o in out)
    return out
ScaledDotProductAttention.forward = _timed
''', "correct"),
    "descriptors_exhausted_at_load": (CORRECT + '''
import os as _o
_keep = []
try:
    while True:
        _keep.append(_o.pipe())
except OSError:
    pass
''', "correct"),
    "enlarged_pipes_at_load": (CORRECT + '''
import os as _o, fcntl as _f
_keep = []
for _ in range(25):
    try:
        r, w = _o.pipe()
        _f.fcntl(w, 1031, 1 << 20)
        _o.write(w, b"x" * 65536)
        _keep.append((r, w))
    except OSError:
        break
''', "correct"),
    # the trusted names monkey-patched in the jail
    "builtins_isinstance_len_and_type_replaced": (WRONG + '''
import builtins as _b
_b.isinstance = lambda *a: True
_b.len = lambda *a: 0
_b.hasattr = lambda *a: False
''', "wrong"),
    "torch_allclose_and_equal_always_true": (WRONG + '''
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.__eq__ = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
torch.isnan = lambda t: torch.zeros_like(t, dtype=torch.bool)
''', "wrong"),
    "torch_tensor_tobytes_and_numpy_rewritten": (WRONG + '''
_orig_numpy = torch.Tensor.numpy
torch.Tensor.numpy = lambda self, *a, **k: _orig_numpy(self.detach() * 0 + 0.25, *a, **k)
torch.Tensor.contiguous = lambda self, *a, **k: self * 0 + 0.25
''', "wrong"),
    "json_and_struct_modules_replaced_in_sys_modules": (WRONG + '''
import sys as _s, types as _ty
_s.modules["json"] = _ty.ModuleType("json")
_s.modules["struct"] = _ty.ModuleType("struct")
''', "wrong"),
    # exceptions and classes that run code when the runtime describes them
    "an_exception_whose_str_hangs": (in_forward(CORRECT, '''
import time as _tm
class _E(Exception):
    def __str__(self):
        _tm.sleep(3600)
        return ""
    __repr__ = __str__
raise _E()'''), "correct"),
    "an_exception_whose_str_is_fifty_megabytes": (in_forward(CORRECT, '''
class _E(Exception):
    def __str__(self):
        return "x" * (50 << 20)
raise _E()'''), "correct"),
    "a_metaclass_whose_call_returns_a_function": (CORRECT + '''
class _Meta(type(torch.nn.Module)):
    def __call__(cls, *a, **k):
        return lambda *x, **y: x[0]
class ScaledDotProductAttention(torch.nn.Module, metaclass=_Meta):
    pass
''', "correct"),
    "a_projection_whose_class_property_claims_linear": (CORRECT + '''
class _Fake(torch.nn.Module):
    @property
    def __class__(self):
        return torch.nn.Linear
    def __init__(self, d):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(d, d))
        self.in_features = self.out_features = d
    def forward(self, x):
        return x
_init_mha = MultiHeadAttention.__init__
def _faked(self, d_model, num_heads, head_dim=None):
    _init_mha(self, d_model, num_heads, head_dim)
    self.q_proj = _Fake(d_model) if head_dim in (None, d_model // num_heads) else self.q_proj
MultiHeadAttention.__init__ = _faked
''', "correct"),
    "torch_replaced_in_sys_modules_after_load": (CORRECT + '''
import sys as _s, types as _ty
_fake = _ty.ModuleType("torch")
_fake.__getattr__ = lambda name: (_ for _ in ()).throw(SystemExit(0))
_s.modules["torch"] = _fake
''', "correct"),
    "garbage_collection_off_and_cycles_every_call": (in_forward(CORRECT, '''
import gc as _gc
_gc.disable()
for _ in range(2000):
    _a = [bytearray(4096)]; _a.append(_a)'''), "correct"),
    "a_custom_library_overriding_softmax_for_cpu": (WRONG + '''
_lib = torch.library.Library("aten", "IMPL")
_lib.impl("_softmax", lambda x, dim, half: torch.full_like(x, 1.0 / x.shape[dim]), "CPU")
''', "wrong"),
    "a_shared_library_written_to_tmp_and_loaded": (CORRECT + '''
import ctypes as _c
open("/tmp/x.so", "wb").write(b"\\x7fELF" + b"\\0" * 60)
try:
    _c.CDLL("/tmp/x.so")
except OSError:
    pass
''', "correct"),
    # the source's encoding
    "a_bom_crlf_and_tab_indented_copy": ("\ufeff" + CORRECT.replace("    ", "\t").replace("\n", "\r\n"), "correct"),
    "form_feeds_and_unicode_line_separators_in_comments": (
        CORRECT.replace("import torch", "\x0c# \u2028 注释 \x1c\x85\nimport torch", 1), "correct"),
    "fullwidth_identifiers_reaching_the_fused_kernel": (
        FUSED.replace("as F\n", "as \uff26\n").replace("F.scaled_dot", "\uff26.\uff53caled_dot"), "fused"),
    "fullwidth_letters_typed_by_an_input_method_in_names": (
        CORRECT.replace("scores", "\uff53cores").replace("weights = ", "\uff57eights = ").replace("(output, weights)", "(output, \uff57eights)"),
        "correct"),
}


@pytest.fixture(scope="module")
def honest(executor) -> dict[str, float]:
    return {name: _grade(executor, code)["total"] for name, code in (("correct", CORRECT), ("wrong", WRONG),
                                                                    ("fused", FUSED))}


@pytest.mark.parametrize("attack", list(ROUND_22))
def test_a_round_22_attack_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    code, base = ROUND_22[attack]
    result, cpu, wall = worker_cost(_grade, executor, code)
    print(attack, result["status"], result["total"], honest[base], f"{wall:.1f}s {cpu:.2f}s CPU")
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest[base]
    # the grading's own budget (and what host load took from the jails, given back), and no more
    assert wall < GRADING_BUDGET_S + GRADING_LOAD_CREDIT_S + 5, f"{wall:.1f} s"
    assert cpu < 1.5, f"{cpu:.2f} s of the worker's CPU"
    text = json.dumps(result, ensure_ascii=False)
    for word in ("grader_tests", "test_implementation", "test_mask_parity", "cases.py"):
        assert word not in text, word      # nothing of the hidden suite reaches the stored result
    for t in result["tests"]:
        if t["outcome"] != "passed":
            assert t["feedback"]["en"] and t["feedback"]["zh"] and t["feedback"]["en"] != t["feedback"]["zh"], t


# Output written a byte at a time woke the worker's output reader once a write: 200,000 writes a test
# cost the worker 1.9 s (os.write) and 3.1 s (print(..., flush=True)) of CPU per grading, outside the
# grading's budget, against 0.17 s for the same bytes written at once and 0.09 s for the honest file.
TRICKLES = {
    "os_write_a_byte_at_a_time": in_forward(CORRECT, '''
import os as _o
for _ in range(200000):
    _o.write(2, b"\\n")'''),
    "print_flushed_a_line_at_a_time": in_forward(CORRECT, '''
import sys as _s
for _ in range(100000):
    print("x", file=_s.stderr, flush=True)'''),
}
AT_ONCE = in_forward(CORRECT, '''
import os as _o
_o.write(2, b"\\n" * 200000)''')


@pytest.mark.parametrize("attack", list(TRICKLES))
def test_output_trickled_a_byte_at_a_time_costs_the_worker_what_the_same_output_at_once_does(executor, attack):
    _grade(executor, CORRECT)                                   # the first grading's own warm-up
    base, base_cpu, _ = worker_cost(_grade, executor, AT_ONCE)
    result, cpu, wall = worker_cost(_grade, executor, TRICKLES[attack])
    print(attack, f"{cpu:.2f} s of the worker's CPU, at once {base_cpu:.2f} s, wall {wall:.1f} s")
    assert result["status"] == base["status"] == "graded", result["message"]
    assert result["total"] <= base["total"]
    # + WATCH_SHARE of the wall: the worker's looks at the jail while the trickle lasts (tests/grading/helpers)
    assert cpu < 2 * base_cpu + 0.4 + WATCH_SHARE * wall, f"{cpu:.2f} s of the worker's CPU against {base_cpu:.2f} s"


# A reply announced on the data socket, then written a byte at a time until the call's timeout, woke the
# worker once a byte: 0.9 s of its CPU per grading (the same reply announced and left silent: 0.1 s).
REPLY_TRICKLED = in_forward(CORRECT, '''
import os as _o, struct as _st
_o.write(3, _st.pack(">I", 900000))
while True:
    _o.write(3, b" ")''')
REPLY_SILENT = in_forward(CORRECT, '''
import os as _o, struct as _st, time as _tm
_o.write(3, _st.pack(">I", 900000))
while True:
    _tm.sleep(1)''')


def test_a_reply_trickled_a_byte_at_a_time_is_graded_scores_no_more_and_costs_about_a_silent_one(executor):
    """On stop 32's idle host a trickled reply cost 0.70-1.41 s of the worker's CPU against 0.09-0.11 s
    for a silent one (0.43 s against 0.11 s on round 24's loaded host): each read took every byte queued,
    ~1 us each. Round 24: reads take what is queued when they start, the jail's end queues at most
    32 KiB (~43 one-byte writes), and a message in more than 128 small pieces is refused (0.12 s
    against 0.13 s, and 0.3 s of wall instead of 6.3 s). The bound is relative to the silent reply
    measured here, so a loaded host moves both."""
    _grade(executor, CORRECT)                                   # the first grading's own warm-up
    base, base_cpu, _ = worker_cost(_grade, executor, REPLY_SILENT)
    result, cpu, wall = worker_cost(_grade, executor, REPLY_TRICKLED)
    print(f"{cpu:.2f} s of the worker's CPU, silent {base_cpu:.2f} s, wall {wall:.1f} s")
    assert result["status"] == base["status"] == "graded", result["message"]
    assert result["total"] <= base["total"]
    assert cpu < 1.5 * base_cpu + 0.1, f"{cpu:.2f} s of the worker's CPU against {base_cpu:.2f} s silent"
