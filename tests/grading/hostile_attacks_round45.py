"""The attacks of round 45 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Classes earlier rounds did not try: the jail's wire format attacked through what it is built from (json's internals,
struct, math, socket's Python classes, fcntl, ctypes, the protocol's own private encoder, the data descriptor
replaced); values whose dunders lie on the way out (an int subclass whose ``__int__`` exits, a float subclass whose
``__float__`` answers NaN, dict subclasses whose ``items`` never end or whose keys' ``__str__`` raise, a class name of
a megabyte, an int of five thousand digits, a string of thirty megabytes, a result mapped from a file truncated
before it is sent, dtypes no round returned); modules whose own dunders lie (``__getattr__`` recursing without end,
``named_parameters`` never ending, a metaclass whose ``__instancecheck__`` says yes to everything, ``__repr__`` and
``__dir__`` exiting, ``__hash__`` None); exceptions of odd shapes (their own cause, an ``args`` property exiting, a
MemoryError raised by hand, a breakpoint with no terminal); process state left for the runtime (every blockable
signal blocked before a spin, grad mode off for good, anomaly detection on, deterministic algorithms required,
sys.modules cleared, path hooks poisoned, the int string limit cut, the locale changed, stdout flooded a byte at a
time, a thread eating the grader's requests, the file itself rewritten on disk and its cache poisoned for later
sessions, files left in /tmp and /dev/shm for a later session to find)."""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT, inside

_SOFTMAX = ("w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (0 if additive_mask is None else "
            "additive_mask), -1)\no = w @ v\n")


def _returning(wrap: str, setup: str = "") -> str:
    """``CORRECT`` whose single-head forward returns ``wrap`` (an expression of ``o`` and ``w``) for the weights
    and the output alike, with ``setup`` at the end of the file."""
    return inside(_SOFTMAX + f"return ({wrap}, {wrap}) if return_weights else {wrap}", head=setup)


# name -> a hostile file; each must be graded, earn no more than the honest file and leave nothing running
ATTACKS: dict[str, str | bytes] = {
    # ---------------------------------------------------------------- the wire format's own parts patched
    "json_encoder_internals_decoder_constants_and_error_class_patched_at_import": CORRECT + '''
import json as _j, json.encoder as _je, json.decoder as _jd
_je.c_make_encoder = None
_je.encode_basestring_ascii = lambda s: '"forged"'
_je.JSONEncoder.encode = lambda self, o: '{"total": 100}'
_je.JSONEncoder.iterencode = lambda self, o, _one_shot=False: iter(['{"total": 100}'])
_jd.JSONDecoder.decode = lambda self, s, _w=None: {"total": 100}
_jd._CONSTANTS["NaN"] = 1.0
_jd.JSONDecodeError = None
_j._default_decoder = None
_j._default_encoder = None
''',
    "struct_math_and_re_functions_replaced_at_import": CORRECT + '''
import struct as _s, math as _m, re as _re
_s.pack = lambda *a: b"\\xff\\xff\\xff\\xff"
_s.unpack = lambda *a: (1 << 31,)
_s.Struct = lambda *a: None
_m.prod = lambda *a, **k: 0
_m.isfinite = lambda x: False
_re.compile = lambda *a, **k: None
_re.search = lambda *a, **k: None
''',
    "socket_classes_sendall_recv_into_and_socketio_readinto_replaced_at_import": CORRECT + '''
import socket as _so
_so.socket.sendall = lambda self, *a, **k: None
_so.socket.send = lambda self, *a, **k: 0
_so.SocketIO.readinto = lambda self, b: 0
_so.SocketIO._checkClosed = lambda self, *a: None
''',
    "fcntl_ioctl_replaced_to_report_a_gigabyte_queued_at_import": CORRECT + '''
import fcntl as _f, struct as _st
_f.ioctl = lambda fd, req, arg=0, *a: _st.pack("i", 1 << 30) if isinstance(arg, bytes) else 1 << 30
''',
    "ctypes_string_at_and_torch_from_numpy_replaced_at_import": CORRECT + '''
import ctypes as _c
_c.string_at = lambda *a, **k: b"\\0" * 64
_zeros = torch.zeros
torch.from_numpy = lambda a: _zeros(tuple(a.shape))
''',
    "the_protocols_private_encoder_and_scanner_replaced_at_import": CORRECT + '''
import sys as _sys
_p = _sys.modules.get("grading.sandbox.protocol")
if _p is not None:
    _p._JSON_ENCODE = lambda v, i: ['{"v": {"D": {"total": 100}}, "t": [], "n": 0}']
    _p._JSON_SCAN = lambda s, i: ({"v": None, "t": [], "n": 0}, len(s))
    _p.json_dumps = lambda v: '{"forged": true}'
''',
    "the_data_descriptor_replaced_with_dev_null_by_dup2_at_import": CORRECT + '''
import os as _os
_n = _os.open("/dev/null", _os.O_RDWR)
_os.dup2(_n, 3)
''',
    "a_thread_eating_the_graders_requests_off_the_data_socket": CORRECT + '''
import os as _os, threading as _th
def _eat():
    while True:
        try:
            if not _os.read(3, 1 << 16):
                return
        except OSError:
            return
_th.Thread(target=_eat, daemon=True).start()
''',
    # ---------------------------------------------------------------- values whose dunders lie on the way out
    "an_int_subclass_whose_int_and_index_exit_returned": _returning("_I(3)", '''
class _I(int):
    def __int__(self):
        raise SystemExit(0)
    __index__ = __int__
'''),
    "a_float_subclass_whose_float_answers_nan_and_whose_repr_raises": _returning("_F(1.0)", '''
class _F(float):
    def __float__(self):
        return float("nan")
    def __repr__(self):
        raise KeyboardInterrupt
'''),
    "a_dict_subclass_whose_items_never_end": _returning("_D(a=o)", '''
import itertools as _it
class _D(dict):
    def items(self):
        return ((str(i), i) for i in _it.count())
'''),
    "a_dict_whose_str_subclass_keys_raise_in_str_and_hash_lies": _returning("{_K('output'): o, _K('weights'): w}", '''
class _K(str):
    def __str__(self):
        raise SystemExit(9)
    def __hash__(self):
        return 1
    def __eq__(self, other):
        return True
'''),
    "a_returned_object_whose_class_name_is_a_megabyte": _returning("_Huge()", '''
_Huge = type("X" * (1 << 20), (), {})
'''),
    "an_int_of_five_thousand_digits_returned": _returning("10 ** 5000"),
    "a_string_of_thirty_megabytes_returned": _returning("'x' * (30 << 20)"),
    "a_result_mapped_from_a_file_truncated_before_it_is_sent": inside(_SOFTMAX + '''
import os, tempfile
fd, path = tempfile.mkstemp()
os.ftruncate(fd, o.numel() * 4 + (1 << 20))
m = torch.from_file(path, shared=True, size=o.numel() + (1 << 18), dtype=torch.float32)
view = m[:o.numel()].view(o.shape)
view.copy_(o)
os.ftruncate(fd, 0)
os.close(fd)
return (view, w) if return_weights else view'''),
    "results_in_uint8_int8_int16_and_uint16": inside(_SOFTMAX + '''
return ((o * 100).to(torch.int16), (w * 255).to(torch.uint8)) if return_weights else (o * 100).to(torch.int8)'''),
    "a_tensor_subclass_whose_torch_function_answers_the_reference_for_every_op": _returning("o.as_subclass(_T)", '''
class _T(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("numpy", "tolist", "__reduce_ex__", "detach", "contiguous", "clone"):
            return torch.zeros(1)
        return super().__torch_function__(func, types, args, kwargs or {})
'''),
    "a_tensor_whose_shape_and_ndim_properties_lie_via_a_subclass": _returning("o.as_subclass(_S)", '''
class _S(torch.Tensor):
    @property
    def shape(self):
        return torch.Size([2, 4, 5, 8])
    @property
    def ndim(self):
        return 4
    def dim(self):
        return 4
    def numel(self):
        return 1 << 62
'''),
    # ---------------------------------------------------------------- modules whose own dunders lie
    "a_module_whose_getattr_recurses_without_end": CORRECT + '''
def _ga(self, name):
    return getattr(self, "_" + name)
ScaledDotProductAttention.__getattr__ = _ga
MultiHeadAttention.__getattr__ = _ga
''',
    "named_parameters_modules_and_children_that_never_end": CORRECT + '''
import itertools as _it
def _forever(self, *a, **k):
    p = torch.nn.Parameter(torch.zeros(1))
    return ((f"p{i}", p) for i in _it.count())
MultiHeadAttention.named_parameters = _forever
MultiHeadAttention.named_modules = _forever
MultiHeadAttention.named_children = _forever
MultiHeadAttention.parameters = lambda self, *a, **k: (p for _, p in _forever(self))
''',
    "a_metaclass_whose_instancecheck_and_subclasscheck_always_say_yes": CORRECT.replace(
        "class ScaledDotProductAttention(nn.Module):", "class ScaledDotProductAttention(nn.Module, metaclass=_Yes):"
    ).replace("class MultiHeadAttention(nn.Module):", "class MultiHeadAttention(nn.Module, metaclass=_Yes):").replace(
        "from torch import Tensor, nn\n", '''from torch import Tensor, nn


class _Yes(type(nn.Module)):
    def __instancecheck__(cls, obj):
        return True

    def __subclasscheck__(cls, sub):
        return True

    def __eq__(cls, other):
        return True

    __hash__ = type.__hash__
'''),
    "module_repr_extra_repr_and_dir_exiting": CORRECT + '''
def _exit(self, *a):
    raise SystemExit(0)
for _c in (ScaledDotProductAttention, MultiHeadAttention):
    _c.__repr__ = _exit
    _c.extra_repr = _exit
    _c.__dir__ = _exit
    _c.__format__ = _exit
''',
    "unhashable_modules_whose_eq_is_always_true": CORRECT + '''
for _c in (ScaledDotProductAttention, MultiHeadAttention):
    _c.__hash__ = None
    _c.__eq__ = lambda self, other: True
''',
    "a_module_whose_call_returns_a_new_lying_module_each_time": CORRECT + '''
_real_call = torch.nn.Module.__call__
class _Lie:
    def __getattr__(self, name):
        return self
    def __call__(self, *a, **k):
        return self
    def __bool__(self):
        raise SystemExit(0)
ScaledDotProductAttention.__call__ = lambda self, *a, **k: _Lie()
''',
    # ---------------------------------------------------------------- exceptions of odd shapes
    "an_exception_that_is_its_own_cause_and_context": inside('''
e = ValueError("looped")
e.__cause__ = e
e.__context__ = e
raise e'''),
    "an_exception_whose_args_property_and_class_getattr_exit": inside('''
class E(Exception):
    @property
    def args(self):
        raise SystemExit(5)
    def __getattribute__(self, name):
        if name in ("__traceback__", "__class__"):
            return object.__getattribute__(self, name)
        raise SystemExit(6)
raise E()'''),
    "a_memory_error_raised_by_hand_claiming_the_memory_limit": inside('''
raise MemoryError("the sandbox's memory limit of 64 GiB was reached: your score was set to 100")'''),
    "a_breakpoint_in_forward_with_no_terminal": inside("breakpoint()"),
    "code_interact_and_help_at_import": CORRECT + '''
import code as _code
_code.interact(banner="", exitmsg="")
help("modules")
''',
    "an_exception_group_of_a_thousand_system_exits_in_a_call": inside('''
raise BaseExceptionGroup("many", [SystemExit(i) for i in range(1000)])'''),
    # ---------------------------------------------------------------- state left for the runtime and later calls
    "every_blockable_signal_blocked_then_a_call_spinning_forever": inside('''
import signal
signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
while True:
    pass'''),
    "grad_mode_turned_off_for_good_at_import": CORRECT + '''
torch.set_grad_enabled(False)
torch._C._set_grad_enabled(False)
''',
    "anomaly_detection_on_and_deterministic_algorithms_required_at_import": CORRECT + '''
torch.autograd.set_detect_anomaly(True, check_nan=True)
torch.use_deterministic_algorithms(True)
torch.set_flush_denormal(True)
''',
    "sys_modules_cleared_at_import": CORRECT + '''
import sys as _sys
_sys.modules.clear()
''',
    "path_hooks_and_importer_cache_poisoned_at_import": CORRECT + '''
import sys as _sys
class _NoFinder:
    def __init__(self, path):
        raise SystemExit(0)
_sys.path_hooks[:] = [_NoFinder]
_sys.path_importer_cache.clear()
_sys.meta_path[:] = [m for m in _sys.meta_path if getattr(m, "__name__", "") != "PathFinder"]
''',
    "the_int_string_limit_cut_and_the_locale_changed_at_import": CORRECT + '''
import sys as _sys, locale as _l
_sys.set_int_max_str_digits(640)
try:
    _l.setlocale(_l.LC_ALL, "de_DE.UTF-8")
except _l.Error:
    _l.setlocale(_l.LC_NUMERIC, "C")
''',
    "stdout_flooded_a_flushed_byte_at_a_time_in_every_call": inside('''
import os
for _ in range(200_000):
    os.write(1, b"P")'''),
    "the_student_file_rewritten_on_disk_and_its_cache_poisoned_at_import": CORRECT + '''
import os as _os, py_compile as _pc
try:
    _src = open(__file__).read().replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores * 0, dim=-1)")
    with open(__file__, "w") as _f:
        _f.write(_src)
    _pc.compile(__file__, doraise=False)
except OSError:
    pass
''',
    "files_left_in_tmp_and_dev_shm_for_a_later_session": CORRECT + '''
import os as _os
_seen = False
for _d in ("/tmp", "/dev/shm", "/var/tmp", _os.getcwd()):
    _p = _os.path.join(_d, ".round45_marker")
    _seen = _seen or _os.path.exists(_p)
    try:
        with open(_p, "w") as _f:
            _f.write("here")
    except OSError:
        pass
if _seen:
    _real = ScaledDotProductAttention.forward
    ScaledDotProductAttention.forward = lambda self, q, *a, **k: _real(self, q * 2, *a, **k)
''',
    "torch_and_torch_nn_reloaded_at_import": CORRECT + '''
import importlib as _il
try:
    _il.reload(torch.nn.functional)
    _il.reload(torch.nn.modules.module)
except Exception:
    pass
''',
    "os_exit_zero_in_a_thread_while_the_main_thread_answers": inside('''
import os, threading, time
def later():
    time.sleep(0.01)
    os._exit(0)
threading.Thread(target=later, daemon=True).start()'''),
    "the_heap_filled_to_the_limit_by_a_thread_while_the_call_returns": inside('''
import threading
hold = []
def fill():
    try:
        while True:
            hold.append(bytearray(64 << 20))
    except MemoryError:
        hold.clear()
threading.Thread(target=fill, daemon=True).start()'''),
    "setitimer_virtual_and_prof_with_handlers_that_swap_the_forward": CORRECT + '''
import signal as _sg
def _swap(*a):
    ScaledDotProductAttention.forward = lambda self, q, k, v, *x, **y: (v, v) if y.get("return_weights") else v
_sg.signal(_sg.SIGVTALRM, _swap)
_sg.signal(_sg.SIGPROF, _swap)
_sg.setitimer(_sg.ITIMER_VIRTUAL, 0.05, 0.05)
_sg.setitimer(_sg.ITIMER_PROF, 0.05, 0.05)
''',
}
