"""The attacks of round 34 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Classes earlier rounds did not try: containers and objects whose ``__len__``/``__iter__``/``__eq__``/``__bool__``
lie, generators that never end as results; wrapper subclasses with their own ``__torch_dispatch__``, dispatch
modes left pushed that rewrite the runtime's own copies; sparse, CSR, quantized, complex, mkldnn and
conjugate-view results, right answers in overlapping or padded strides; hooks and finalizers on the results
that fire when the runtime lets go of them; exceptions whose ``__str__``/``__repr__`` raise base exceptions,
whose class names are huge or forge the grader's lines; a recursion limit cut to almost nothing in a call;
SIGABRT ignored before ``abort``; non-daemon threads that never let the interpreter end; a search of the
file system for the tests; one write of two hundred megabytes; every descriptor used up in each call; and
detectors of the hidden tests' session read from what the jail can see (hostname, limits, environment,
scheduler, clocks)."""

from __future__ import annotations

from tests.grading.hostile_attacks_round33 import answering
from tests.grading.test_hostile_round31 import CORRECT, inside, wrong_when

# name -> a hostile file; each must be graded, earn no more than the honest file and leave nothing running
ATTACKS: dict[str, str] = {
    # ---------------------------------------------------------------- containers and objects that lie
    "a_tuple_subclass_whose_len_says_two_and_whose_iter_never_ends": inside('''
import itertools
class _Pair(tuple):
    def __len__(self):
        return 2
    def __iter__(self):
        return itertools.repeat(self[0])
_o = torch.softmax(q @ k.transpose(-2, -1), -1) @ v
return _Pair((_o, _o)) if return_weights else _o
'''),
    "a_generator_that_never_ends_returned": inside('''
import itertools
return (q for _ in itertools.count())
'''),
    "a_list_subclass_whose_getitem_exits": inside('''
import os
class _L(list):
    def __getitem__(self, i):
        os._exit(0)
    def __iter__(self):
        os._exit(0)
return _L([q, q])
'''),
    "an_object_whose_eq_hash_bool_and_len_raise_system_exit": inside('''
class _Odd:
    def __eq__(self, other):
        raise SystemExit(0)
    __hash__ = __bool__ = __len__ = __iter__ = __index__ = __float__ = lambda self: (_ for _ in ()).throw(SystemExit(0))
return (_Odd(), _Odd()) if return_weights else _Odd()
'''),
    "a_tensor_subclass_whose_eq_and_bool_are_always_true": inside('''
class _Yes(torch.Tensor):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __bool__(self):
        return True
_z = torch.zeros(*q.shape[:-1], v.shape[-1]).as_subclass(_Yes)
_zw = torch.zeros(*q.shape[:-1], k.shape[-2]).as_subclass(_Yes)
return (_z, _zw) if return_weights else _z
'''),
    # ---------------------------------------------------------------- subclasses and dispatch
    "a_wrapper_subclass_with_its_own_torch_dispatch_returning_zeros": inside('''
from torch.utils._pytree import tree_map
class _W(torch.Tensor):
    @staticmethod
    def __new__(cls, inner):
        return torch.Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype, strides=inner.stride())
    def __init__(self, inner):
        self.inner = inner
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        unwrap = lambda t: torch.zeros_like(t.inner) if isinstance(t, _W) else t
        return func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
_o = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (0 if additive_mask is None else additive_mask), -1)
return (_W(_o @ v), _W(_o)) if return_weights else _W(_o @ v)
'''),
    "a_dispatch_mode_left_pushed_that_zeros_every_copy_and_clone": CORRECT + '''
from torch.utils._python_dispatch import TorchDispatchMode as _Mode
class _Zeroing(_Mode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = str(func)
        if any(n in name for n in ("clone", "copy", "contiguous", "detach", "_to_copy")) and \\
                isinstance(out, torch.Tensor) and out.is_floating_point():
            return torch.ones_like(out)
        return out
_Zeroing().__enter__()
''',
    "a_function_mode_left_pushed_that_raises_keyboard_interrupt_outside_forward": CORRECT + '''
from torch.overrides import TorchFunctionMode as _Mode
import inspect as _inspect
class _Interrupting(_Mode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if "forward" not in {f.function for f in _inspect.stack()[:6]}:
            raise KeyboardInterrupt
        return func(*args, **(kwargs or {}))
_Interrupting().__enter__()
''',
    # ---------------------------------------------------------------- odd layouts and kinds of tensor
    "the_right_answer_in_overlapping_and_padded_strides": answering(
        "(torch.empty(*_o.shape[:-1], 3 * _o.shape[-1])[..., ::3].copy_(_o),"
        " _w.unsqueeze(-1).expand(*_w.shape, 2)[..., 0])"),
    "the_right_answer_as_a_conjugate_and_negative_view": answering(
        "(_o.to(torch.complex64).conj().real, torch.neg(_w)._neg_view() if hasattr(_w, '_neg_view') else _w)"),
    "sparse_coo_and_csr_results": answering("(_o.to_sparse(), _w.reshape(-1, _w.shape[-1]).to_sparse_csr())"),
    "quantized_results": answering(
        "(torch.quantize_per_tensor(_o, 1e-4, 0, torch.qint32), torch.quantize_per_tensor(_w, 1 / 255, 0,"
        " torch.quint8))"),
    "complex_results_with_a_zero_imaginary_part": answering("(_o.to(torch.complex64), _w.to(torch.complex128))"),
    "mkldnn_results": answering("(_o.to_mkldnn(), _w.to_mkldnn())"),
    "results_requiring_grad_with_a_hook_that_exits_on_backward": inside('''
import os
_o = (torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
                    + (0 if additive_mask is None else additive_mask), -1)).requires_grad_()
_out = (_o @ v).detach().requires_grad_()
_out.register_hook(lambda g: os._exit(0))
_o.register_hook(lambda g: os._exit(0))
return (_out, _o) if return_weights else _out
'''),
    # ---------------------------------------------------------------- what fires when the runtime lets go
    "finalizers_on_each_result_exiting_when_it_is_freed": CORRECT + '''
import os as _os, weakref as _weakref
_honest = ScaledDotProductAttention.forward
def _forward(self, *a, **k):
    out = _honest(self, *a, **k)
    for t in (out if isinstance(out, tuple) else (out,)):
        _weakref.finalize(t, _os._exit, 0)
    return out
ScaledDotProductAttention.forward = _forward
''',
    "a_del_raising_system_exit_on_objects_the_runtime_drops": CORRECT + '''
import sys as _sys
class _Bomb:
    def __del__(self):
        raise SystemExit("exited in __del__")
_honest = ScaledDotProductAttention.forward
def _forward(self, *a, **k):
    _b = _Bomb()
    _sys.last_value = _b
    out = _honest(self, *a, **k)
    if isinstance(out, torch.Tensor):
        out._bomb = _Bomb()
    return out
ScaledDotProductAttention.forward = _forward
''',
    # ---------------------------------------------------------------- exceptions
    "an_exception_whose_str_and_repr_raise_base_exceptions": inside('''
class _Loud(ValueError):
    def __str__(self):
        raise KeyboardInterrupt
    def __repr__(self):
        raise SystemExit(3)
raise _Loud("x")
'''),
    "an_exception_class_with_a_huge_name_forging_passed_lines": inside('''
_E = type("E" * 200_000 + "\\n[test_output_parity_reference] PASSED\\n通过", (RuntimeError,), {})
_E.__qualname__ = _E.__name__
_E.__module__ = "grader_tests.attention.test_implementation"
raise _E("all tests passed")
'''),
    "a_base_exception_subclass_forging_a_pass": inside('''
class Passed(BaseException):
    pass
raise Passed("[test_output_parity_reference] passed 85/85")
'''),
    "an_exception_whose_traceback_was_replaced_by_a_forged_one": inside('''
import sys, types
try:
    exec(compile("\\n" * 99 + "1 / 0", "/grader/grader_tests/attention/cases.py", "exec"), {})
except ZeroDivisionError as e:
    tb = e.__traceback__
raise RuntimeError("boom").with_traceback(tb)
'''),
    # ---------------------------------------------------------------- the interpreter's limits
    "a_recursion_limit_cut_to_almost_nothing_in_a_call": inside('''
import sys
sys.setrecursionlimit(max(30, len(__import__("inspect").stack()) + 3))
'''),
    "sigabrt_ignored_then_abort": inside('''
import os, signal
signal.signal(signal.SIGABRT, signal.SIG_IGN)
os.abort()
'''),
    "abort_called_in_the_third_call": inside("_N[0] += 1\nif _N[0] == 3:\n    __import__('os').abort()", head="_N = [0]"),
    "sigterm_sigkill_and_sigquit_sent_to_itself_in_a_call": inside('''
import os, signal
for s in (signal.SIGTERM, signal.SIGQUIT, signal.SIGKILL):
    os.kill(os.getpid(), s)
'''),
    "non_daemon_threads_that_never_let_the_interpreter_end": CORRECT + '''
import threading as _threading
_never = _threading.Event()
for _ in range(4):
    _threading.Thread(target=_never.wait, daemon=False).start()
import atexit as _atexit
_atexit.register(_never.wait)
''',
    "sys_exit_raised_in_every_thread_and_in_the_excepthook": CORRECT + '''
import sys as _sys, threading as _threading
_sys.excepthook = lambda *a: _sys.exit(4)
_threading.excepthook = lambda *a: _sys.exit(4)
def _raise():
    raise SystemExit(5)
for _ in range(3):
    _threading.Thread(target=_raise).start()
''',
    # ---------------------------------------------------------------- what the jail can see and write
    "a_search_of_the_file_system_for_the_tests_raised_as_the_message": inside('''
import os
found = []
for root in ("/", "/tmp", "/proc/self/cwd", "/usr"):
    for i, (d, dirs, files) in enumerate(os.walk(root)):
        if i > 3000 or d.startswith(("/proc", "/sys")) and d != "/proc/self/cwd":
            dirs[:] = []
            continue
        found += [os.path.join(d, f) for f in files if f.startswith(("test_", "cases", "conftest", "rubric"))]
raise FileNotFoundError("\\n".join(found[:200]) or "nothing")
'''),
    "the_environment_argv_path_and_module_names_raised_as_the_message": inside('''
import os, sys
raise ValueError(repr((dict(os.environ), sys.argv, sys.path, sys.executable, os.getcwd(),
                       sorted(m for m in sys.modules if not m.startswith(("torch", "numpy", "_"))))))
'''),
    "two_hundred_megabytes_in_one_write_to_stderr": inside('''
import os
try:
    os.write(2, b"[test_output_parity_reference] PASSED\\n" * 5_000_000)
except OSError:
    pass
'''),
    "every_descriptor_used_up_in_each_call_by_dups_of_the_data_socket": inside('''
import os
_kept = globals().setdefault("_kept", [])
while True:
    try:
        _kept.append(os.dup(3))
    except OSError:
        break
'''),
    # ---------------------------------------------------------------- the clock
    "a_time_bomb_on_the_date": inside("if _time.gmtime().tm_year >= 2026:\n    q = q * 2.0",
                                      head="import time as _time"),
    "answers_wrong_once_the_process_has_used_half_a_second_of_cpu": inside(
        "if _time.process_time() > 0.5:\n    q = q * 2.0", head="import time as _time"),
}

# name -> a file that answers wrong where it believes it runs the hidden tests (round 31's form: a file that
# fires in no session earns what its switched-off copy earns)
SEES_HIDDEN: dict[str, str] = {
    "a_hostname_or_domain_other_than_the_first_sessions": wrong_when(
        "_os.uname().nodename != 'sandbox' or open('/proc/sys/kernel/domainname').read().strip() != '(none)'",
        "import os as _os"),
    "an_environment_with_more_or_other_names_than_a_bare_one": wrong_when(
        "sorted(_os.environ) != sorted(_os.environ) or len(_os.environ) > 12", "import os as _os"),
    "a_file_size_or_descriptor_limit_under_the_documented_one": wrong_when(
        "_r.getrlimit(_r.RLIMIT_FSIZE)[0] < (16 << 20) or _r.getrlimit(_r.RLIMIT_NOFILE)[0] < 64"
        " or _r.getrlimit(_r.RLIMIT_AS)[0] < (1 << 30)", "import resource as _r"),
    "an_interval_timer_or_alarm_already_armed": wrong_when(
        "any(_s.getitimer(w) != (0.0, 0.0) for w in (_s.ITIMER_REAL, _s.ITIMER_VIRTUAL, _s.ITIMER_PROF))"
        " or _s.alarm(0) != 0", "import signal as _s"),
    "a_cpu_affinity_or_priority_that_differs_from_all_cpus": wrong_when(
        "_os.sched_getaffinity(0) != set(range(_os.cpu_count())) or _os.getpriority(_os.PRIO_PROCESS, 0) != 0",
        "import os as _os"),
    "more_than_one_thread_or_an_open_descriptor_past_the_data_socket": wrong_when(
        # 0-3, the file's own descriptor and the listing's: six
        "len(_os.listdir('/proc/self/task')) > 1 or len(_os.listdir('/proc/self/fd')) > 6",
        "import os as _os\n_fd = _os.open('/proc/self/stat', _os.O_RDONLY)"),
    "the_jails_boottime_clock_past_a_minute_of_the_monotonic_one": wrong_when(
        "abs(_t.clock_gettime(_t.CLOCK_BOOTTIME) - _t.monotonic()) > 60", "import time as _t"),
}
