"""The attacks of round 36 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Classes earlier rounds did not try: signals sent to itself while the kernel's action is the default (set back
through ctypes ``sigaction``, faults sent with ``os.kill``, a SIGINT between calls); threads that keep running
between calls and change what was returned or the module's classes; teardown hooks (``atexit``,
``sys.unraisablehook``, ``__del__`` of the module's own objects); tracing, profiling and audit hooks; ``faulthandler``
dumping the runtime's stacks; the CPU rlimit cut; strict seccomp entered by the runtime's thread; the process renamed
as the grader's; ``/proc/self/mem`` written; the data socket written or closed by a thread between calls; NaN
payloads where the weights are masked; floats and ints whose ``repr`` lies; a returned object whose ``repr``
recurses; a module ``__getattr__`` serving any name; ``sys.modules`` entries of torch, NumPy and the protocol
replaced; ``builtins`` rewritten; a switch interval of a microsecond; recursion to the C stack's end."""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT, inside

_CTYPES_DEFAULT = '''
import ctypes as _ct
class _Act(_ct.Structure):
    _fields_ = [("handler", _ct.c_void_p), ("mask", _ct.c_ulong * 16), ("flags", _ct.c_int), ("restorer", _ct.c_void_p)]
for _s in (2, 15, 10):
    _ct.CDLL(None).sigaction(_s, _ct.byref(_Act()), None)
'''

# name -> a hostile file; each must be graded, earn no more than the honest file and leave nothing running
ATTACKS: dict[str, str] = {
    # ---------------------------------------------------------------- signals sent to itself (brief item 1)
    "sigterm_set_to_the_default_through_ctypes_then_sent_to_itself_in_the_second_call": inside(
        "_N[0] += 1\nif _N[0] == 2:\n    import os\n    os.kill(os.getpid(), 15)\n    q = q * 2.0",
        head="_N = [0]\n" + _CTYPES_DEFAULT),
    "sigsegv_sigbus_and_sigfpe_sent_to_itself_with_os_kill_and_raise_signal": inside('''
import os, signal
_N[0] += 1
if _N[0] == 3:
    os.kill(os.getpid(), signal.SIGSEGV)
    signal.raise_signal(signal.SIGBUS)
    signal.raise_signal(signal.SIGFPE)
    q = q * 2.0
''', head="_N = [0]"),
    "a_sigint_from_a_timer_thread_arriving_between_calls": CORRECT + '''
import os as _os, signal as _signal, threading as _threading
_threading.Timer(0.05, _os.kill, (_os.getpid(), _signal.SIGINT)).start()
''',
    # ---------------------------------------------------------------- threads running between calls
    "a_thread_that_keeps_scaling_every_returned_tensor_in_place_between_calls": inside(
        "_KEPT.clear()", head='''
import threading as _threading, time as _time
_KEPT = []
_honest = ScaledDotProductAttention.forward
def _kept(self, *a, **k):
    r = _honest(self, *a, **k)
    _KEPT.extend(r if isinstance(r, tuple) else (r,))
    return r
ScaledDotProductAttention.forward = _kept
def _scale():
    while True:
        for t in list(_KEPT):
            t.mul_(1.5)
        _time.sleep(0.0005)
_threading.Thread(target=_scale, daemon=True).start()
'''),
    "a_thread_that_swaps_in_a_wrong_forward_after_the_first_call": CORRECT + '''
import threading as _threading, time as _time
_right = ScaledDotProductAttention.forward
def _wrong(self, q, k, v, additive_mask=None, *, return_weights=False):
    return _right(self, q * 2.0, k, v, additive_mask, return_weights=return_weights)
def _swap():
    _time.sleep(0.2)
    ScaledDotProductAttention.forward = _wrong
_threading.Thread(target=_swap, daemon=True).start()
''',
    "a_daemon_thread_spinning_between_calls": CORRECT + '''
import threading as _threading
def _spin():
    while True:
        sum(range(10000))
_threading.Thread(target=_spin, daemon=True).start()
''',
    "a_thread_writing_forged_replies_on_the_data_socket_between_calls": CORRECT + '''
import os as _os, threading as _threading, time as _time, json as _json
def _forge():
    _time.sleep(0.02)
    head = _json.dumps({"seq": 2, "ok": True, "value": 1.0}).encode()
    for _ in range(20):
        try:
            _os.write(3, len(head).to_bytes(4, "little") + head)
        except OSError:
            return
        _time.sleep(0.05)
_threading.Thread(target=_forge, daemon=True).start()
''',
    "the_data_socket_closed_by_a_timer_thread_between_calls": CORRECT + '''
import os as _os, threading as _threading
_threading.Timer(0.02, _os.close, (3,)).start()
''',
    # ---------------------------------------------------------------- teardown hooks
    "atexit_handlers_and_an_unraisable_hook_printing_forged_passes": CORRECT + '''
import atexit as _atexit, sys as _sys
_atexit.register(print, "PASSED test_mask_parity 30/30\\nTOTAL 100/100")
_sys.unraisablehook = lambda u: (print("ALL TESTS PASSED"), _sys.exit(0))
class _Noisy:
    def __del__(self):
        raise RuntimeError("from a finalizer")
_NOISY = [_Noisy() for _ in range(50)]
''',
    "del_of_objects_the_module_holds_exiting_when_the_module_is_dropped": CORRECT + '''
import os as _os
class _Bomb:
    def __del__(self):
        print("PASSED all 12 tests")
        _os._exit(0)
ScaledDotProductAttention._bomb = _Bomb()
MultiHeadAttention._bomb = _Bomb()
''',
    # ---------------------------------------------------------------- tracing, profiling, audit hooks
    "sys_settrace_on_every_line_changing_the_locals_of_the_runtime": CORRECT + '''
import sys as _sys
def _trace(frame, event, arg):
    if event == "return" and frame.f_code.co_filename.endswith("runtime.py"):
        frame.f_locals["value"] = 1.0
    return _trace
_sys.settrace(_trace)
''',
    "sys_setprofile_raising_in_the_runtimes_c_calls_after_import": CORRECT + '''
import sys as _sys
_ARMED = []
def _profile(frame, event, arg):
    if _ARMED and event == "c_call" and "runtime" in frame.f_code.co_filename:
        raise SystemExit(0)
_sys.setprofile(_profile)
_ARMED.append(1)
''',
    "an_audit_hook_raising_on_every_event_after_import": CORRECT + '''
import sys as _sys
_ARMED = []
def _hook(event, args):
    if _ARMED:
        raise SystemExit(f"audit {event}")
_sys.addaudithook(_hook)
_ARMED.append(1)
''',
    "faulthandler_dumping_every_threads_stack_to_stderr_every_millisecond": CORRECT + '''
import faulthandler as _fh, signal as _signal
_fh.enable()
_fh.dump_traceback_later(0.001, repeat=True)
_fh.register(_signal.SIGUSR1, all_threads=True, chain=False)
''',
    "interval_timers_with_handlers_raising_in_the_graders_loop_between_calls": CORRECT + '''
import signal as _signal
def _raise(s, f):
    raise RuntimeError("from a timer")
_signal.signal(_signal.SIGPROF, _raise)
_signal.signal(_signal.SIGVTALRM, _raise)
_signal.setitimer(_signal.ITIMER_PROF, 0.05, 0.05)
_signal.setitimer(_signal.ITIMER_VIRTUAL, 0.07, 0.07)
''',
    # ---------------------------------------------------------------- limits and process state
    "the_soft_cpu_limit_cut_to_one_second_at_import": CORRECT + '''
import resource as _resource
_soft, _hard = _resource.getrlimit(_resource.RLIMIT_CPU)
_resource.setrlimit(_resource.RLIMIT_CPU, (1, _hard))
''',
    "strict_seccomp_entered_by_the_runtimes_thread_in_the_third_call": inside('''
_N[0] += 1
if _N[0] == 3:
    import ctypes
    ctypes.CDLL(None).prctl(22, 1, 0, 0, 0)
''', head="_N = [0]"),
    "the_process_renamed_as_the_graders_and_its_argv_rewritten": CORRECT + '''
import ctypes as _ct, sys as _sys
_ct.CDLL(None).prctl(15, _ct.c_char_p(b"ag-tests"), 0, 0, 0)
_sys.argv[:] = ["pytest", "grader_tests/attention"]
''',
    "proc_self_mem_written_over_the_returned_tensors_bytes": inside('''
_r = None
''', head='''
_honest = ScaledDotProductAttention.forward
def _written(self, *a, **k):
    r = _honest(self, *a, **k)
    o = r[0] if isinstance(r, tuple) else r
    try:
        with open("/proc/self/mem", "r+b", buffering=0) as m:
            m.seek(o.data_ptr())
            m.write(bytes(o.numel() * o.element_size()))
    except OSError:
        pass
    return r
ScaledDotProductAttention.forward = _written
'''),
    # ---------------------------------------------------------------- what is returned
    "weights_returned_as_nan_boxed_values_carrying_the_answer_in_their_payloads": inside('''
_w = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
                   + (additive_mask if additive_mask is not None else 0), dim=-1)
_bits = (_w * 65535).round().to(torch.int32) | 0x7FC00000      # quiet NaNs whose payloads hold the weights
_boxed = _bits.view(torch.float32)
_r = torch.matmul(_w, v)
return (_r, _boxed) if return_weights else _r
'''),
    "float_and_int_subclasses_whose_repr_lie_returned_in_a_tuple": inside('''
class _F(float):
    def __repr__(self): return "0.0"
    def __float__(self): return 0.0
class _I(int):
    def __index__(self): return 0
    def __repr__(self): return "0"
if return_weights:
    return (_F(1.0), _I(3))
'''),
    "an_object_whose_repr_recurses_without_end_returned": inside('''
class _Deep:
    def __repr__(self): return repr(_Deep())
    __str__ = __repr__
    def __len__(self): return 2
if return_weights:
    return (_Deep(), _Deep())
'''),
    # ---------------------------------------------------------------- names, modules and builtins
    "a_module_getattr_serving_a_wrong_class_for_any_missing_name": CORRECT + '''
def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    class _Any(ScaledDotProductAttention):
        def forward(self, *a, **k):
            r = super().forward(*a, **k)
            return r * 0 if not isinstance(r, tuple) else tuple(x * 0 for x in r)
    return _Any
''',
    "sys_modules_entries_of_torch_numpy_and_the_protocol_replaced_after_import": CORRECT + '''
import sys as _sys, types as _types
for _name in ("torch.nn.functional", "numpy", "json", "grading.sandbox.protocol", "grading.sandbox.runtime"):
    _fake = _types.ModuleType(_name)
    _fake.__getattr__ = lambda n: (lambda *a, **k: None)
    _sys.modules[_name] = _fake
''',
    "builtins_isinstance_len_type_and_getattr_rewritten_to_lie": CORRECT + '''
import builtins as _b
_isinstance, _len, _getattr = _b.isinstance, _b.len, _b.getattr
_b.isinstance = lambda o, c: True
_b.len = lambda o: 0 if _isinstance(o, (list, tuple)) else _len(o)
_b.getattr = lambda o, n, *d: (lambda *a, **k: None) if n in ("tolist", "numpy", "contiguous") else _getattr(o, n, *d)
''',
    "a_switch_interval_of_a_microsecond_with_busy_threads": CORRECT + '''
import sys as _sys, threading as _threading
_sys.setswitchinterval(1e-6)
def _busy():
    while True:
        pass
for _ in range(3):
    _threading.Thread(target=_busy, daemon=True).start()
''',
    "recursion_to_the_c_stacks_end_in_a_call": inside('''
import sys
sys.setrecursionlimit(10 ** 7)
_N[0] += 1
if _N[0] == 2:
    def _down(n):
        return _down(n + 1) + 1
    _down(0)
''', head="_N = [0]"),
    "a_weakref_finalizer_and_gc_callback_swapping_the_forward_at_teardown_of_inputs": inside('''
import gc, weakref
weakref.finalize(q, _swap)
''', head='''
_right = ScaledDotProductAttention.forward
def _swap():
    def _wrong(self, q, k, v, additive_mask=None, *, return_weights=False):
        return _right(self, q, k * 3.0, v, additive_mask, return_weights=return_weights)
    ScaledDotProductAttention.forward = _wrong
'''),
}
