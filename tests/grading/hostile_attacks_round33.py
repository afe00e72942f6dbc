"""The attacks of round 33 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Classes earlier rounds did not try: results that share storage with the inputs or have odd ranks and sizes,
tensors whose class is swapped or whose base class is rewritten, parameters, structseqs and odd containers;
autograd Functions whose backward lies and hooks on the inputs; replies trickled by the runtime's own socket,
calls that stop just under their limits, answers that change with the call count or the wall clock; job-control
signals, kill(-1), prctl, personality, rlimits, vfork/clone3, memfd/execveat, inotify, io_uring,
userfaultfd, timer storms, mlockall, nice 19, O_ASYNC and socket options on the data socket; modules written
to the working directory shadowing the stdlib, the module replaced in sys.modules, code compiled under the
grader's file names, homoglyph names around a forbidden call, print options that blow up messages."""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT, inside

# The honest single-head result, for attacks that answer right in an odd form (q, k, v, additive_mask in scope).
_RIGHT = '''
import math as _m
_s = torch.matmul(q, k.transpose(-2, -1)) / _m.sqrt(q.shape[-1])
if additive_mask is not None:
    _s = _s + additive_mask
_w = torch.softmax(_s, dim=-1)
_o = torch.matmul(_w, v)
'''


def answering(form: str) -> str:
    """A file whose single-head forward returns ``form`` (an expression of ``_o`` and ``_w``) when weights are
    asked for, and ``_o``'s form alone otherwise."""
    return inside(_RIGHT + f"_r = {form}\nreturn _r if return_weights else _r[0]")


# The forbidden call written plainly: PyTorch's fused attention for the output, the weights computed by hand.
def lying_backward(backward: str) -> str:
    """The correct file whose single-head forward passes q, k and v through an autograd Function that copies
    them forward and whose backward runs ``backward`` (a statement of the gradient ``g``; ``_n`` counts)."""
    return CORRECT + f'''
import itertools
_n = itertools.count()
class _Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        {backward}
_honest = ScaledDotProductAttention.forward
def _forward(self, q, k, v, *a, **kw):
    return _honest(self, _Fn.apply(q), _Fn.apply(k), _Fn.apply(v), *a, **kw)
ScaledDotProductAttention.forward = _forward
'''


FORBIDDEN = CORRECT.replace(
    "        output = torch.matmul(weights, v)\n",
    "        output = torch.nn.functional.scaled_dot_product_attention(q, k, v, additive_mask)\n")
assert FORBIDDEN != CORRECT

# name -> a hostile file; each must be graded, earn no more than the honest file and leave nothing running
ATTACKS: dict[str, str] = {
    # ---------------------------------------------------------------- results in odd forms
    "the_output_written_into_the_query_and_a_view_of_it_returned": inside(_RIGHT + '''
_n = min(q.shape[-1], _o.shape[-1])
q[..., :_n] = _o[..., :_n]
_o = q[..., :_n] if q.shape[-1] >= _o.shape[-1] else _o
return (_o, _w) if return_weights else _o
'''),
    "views_of_the_value_input_returned_as_output_and_weights": inside('''
_w = v.new_zeros(()).expand(*q.shape[:-1], k.shape[-2])
return (v, _w) if return_weights else v
'''),
    "sixty_unit_dimensions_in_front_of_the_output": answering("(_o.reshape([1] * 60 + list(_o.shape)), _w)"),
    "zero_size_results_of_the_right_rank": answering("(_o[..., :0, :], _w[..., :0])"),
    "zero_dimensional_results": answering("(_o.sum(), _w.sum())"),
    "the_class_of_the_result_swapped_to_a_lying_subclass": inside(_RIGHT + '''
class _Lie(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        return out * 0 if isinstance(out, torch.Tensor) and out.dtype.is_floating_point else out
_o.__class__ = _Lie
_w.__class__ = _Lie
return (_o, _w) if return_weights else _o
'''),
    "nn_parameters_returned": answering("(torch.nn.Parameter(_o), torch.nn.Parameter(_w))"),
    "uninitialized_lazy_parameters_returned": answering(
        "(torch.nn.parameter.UninitializedParameter(), torch.nn.parameter.UninitializedBuffer())"),
    "a_structseq_of_torch_max_returned": answering("(torch.max(_o, -1), torch.sort(_w, -1))"),
    "a_namedtuple_and_a_dataclass_holding_the_output": inside(_RIGHT + '''
import collections, dataclasses
_NT = collections.namedtuple("_NT", "output weights")
@dataclasses.dataclass
class _DC:
    output: object
return _NT(_o, _w) if return_weights else _DC(_o)
'''),
    "a_dict_keyed_by_tensors_tuples_none_and_floats": answering(
        "({_o: 1, (1, 2): _o, None: _w, float('nan'): 2, 1.5: 3}, _w)"),
    "torch_size_dtype_device_ellipsis_slice_range_and_bytes": answering(
        "((_o.shape, _o.dtype, _o.device, ..., slice(1, 2), range(3), b'\\xff', bytearray(3), memoryview(b'ab'),"
        " frozenset({1}), 1j, NotImplemented), _w)"),
    "a_str_subclass_key_whose_hash_changes_every_call": inside(_RIGHT + '''
import itertools
_n = itertools.count()
class _Key(str):
    def __hash__(self):
        return next(_n)
    def __eq__(self, other):
        return next(_n) % 2 == 0
return ({_Key("output"): _o, _Key("output"): _w}, _w) if return_weights else {_Key("output"): _o}
'''),
    "torch_tensor_getattribute_rewritten_to_lie_about_shape_and_dtype": CORRECT + '''
_real_getattribute = torch.Tensor.__getattribute__
def _lying(self, name):
    if name == "shape":
        return torch.Size([2, 2, 2, 2])
    if name == "dtype":
        return torch.float64
    return _real_getattribute(self, name)
torch.Tensor.__getattribute__ = _lying
''',
    "data_ptr_untyped_storage_and_element_size_rewritten": CORRECT + '''
torch.Tensor.data_ptr = lambda self: 8
torch.Tensor.untyped_storage = lambda self: torch.UntypedStorage(1)
torch.Tensor.element_size = lambda self: 1 << 40
torch.Tensor.is_contiguous = lambda self, *a, **k: True
''',
    # ---------------------------------------------------------------- autograd lies and hooks on the inputs
    "an_autograd_function_whose_backward_returns_zeros": lying_backward("return torch.zeros_like(g)"),
    "an_autograd_function_whose_backward_returns_wrong_shapes_dtypes_and_strings": lying_backward(
        'return [g.double(), g[..., :1], "gradient", g.expand(4, *g.shape)][next(_n) % 4]'),
    "hooks_on_the_inputs_scaling_their_gradients_in_place": inside('''
for _t in (q, k, v):
    if _t.requires_grad:
        _t.register_hook(lambda g: g.mul_(1e30))
'''),
    "post_accumulate_grad_hooks_on_the_inputs_exiting": inside('''
import os
for _t in (q, k, v):
    if _t.requires_grad and _t.is_leaf:
        _t.register_post_accumulate_grad_hook(lambda p: os._exit(0))
'''),
    "inputs_made_to_require_grad_and_retain_grad_in_a_call": inside('''
for _t in (q, k, v):
    if _t.is_leaf and _t.dtype.is_floating_point:
        _t.requires_grad_(True)
        _t.retain_grad()
'''),
    # ---------------------------------------------------------------- time: trickles, boundaries, the clock
    "the_runtimes_replies_trickled_a_byte_every_tenth_of_a_second": CORRECT + '''
# the jail sends through protocol._SENDALL since round 45 (socket.socket.sendall no longer reaches the wire):
# the reference itself is replaced, in the protocol module reached through the importing runtime's frames
import sys as _sys, time as _time
def _trickle(self, data, *a):
    for i in range(len(data)):
        self.send(bytes(data)[i:i + 1])
        _time.sleep(0.1)
_f = _sys._getframe()
while _f is not None and "protocol" not in _f.f_globals:
    _f = _f.f_back
_f.f_globals["protocol"]._SENDALL = _trickle
''',
    "the_runtimes_replies_trickled_a_byte_at_a_time_while_spinning": CORRECT + '''
# the jail sends through protocol._SENDALL since round 45 (socket.socket.sendall no longer reaches the wire):
# the reference itself is replaced, in the protocol module reached through the importing runtime's frames
import sys as _sys, time as _time
def _trickle(self, data, *a):
    for i in range(len(data)):
        self.send(bytes(data)[i:i + 1])
        end = _time.process_time() + 0.1
        while _time.process_time() < end:
            pass
_f = _sys._getframe()
while _f is not None and "protocol" not in _f.f_globals:
    _f = _f.f_back
_f.f_globals["protocol"]._SENDALL = _trickle
''',
    "a_call_spinning_just_under_its_cpu_limit_every_time": inside('''
import time
end = time.process_time() + 4.8
while time.process_time() < end:
    pass
'''),
    "a_call_sleeping_just_under_the_idle_window_every_time": inside('''
import time
time.sleep(1.9)
'''),
    "right_answers_until_a_second_after_import_then_wrong": inside("if _time.monotonic() - _T0 > 1.0:\n    q = q * 2.0",
                                                                   head="import time as _time\n_T0 = _time.monotonic()"),
    "right_answers_for_the_first_six_calls_then_wrong": inside(
        "_N[0] += 1\nif _N[0] > 6:\n    q = q * 2.0", head="_N = [0]"),
    # ---------------------------------------------------------------- signals and process control
    "sigtstp_sigttin_and_sigttou_sent_to_itself": inside('''
import os, signal
for s in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
    os.kill(os.getpid(), s)
    signal.pthread_kill(__import__("threading").get_ident(), s)
'''),
    "kill_minus_one_and_its_process_group_with_sigkill": inside('''
import os, signal
for target in (-1, 0, -os.getpgrp()):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass
'''),
    "prctl_dumpable_off_subreaper_and_thp_disabled": CORRECT + '''
import ctypes as _ctypes
_libc = _ctypes.CDLL(None, use_errno=True)
for _option, _value in ((4, 0), (36, 1), (41, 1), (38, 1)):   # DUMPABLE 0, CHILD_SUBREAPER, THP_DISABLE, NO_NEW_PRIVS
    _libc.prctl(_option, _value, 0, 0, 0)
''',
    "personality_ptrace_traceme_and_rlimits_raised_to_hard": CORRECT + '''
import ctypes as _ctypes, resource as _r
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.personality(0x0040000 | 0x0400000)    # ADDR_NO_RANDOMIZE | READ_IMPLIES_EXEC
_libc.ptrace(0, 0, 0, 0)                    # PTRACE_TRACEME
for _which in (_r.RLIMIT_CPU, _r.RLIMIT_AS, _r.RLIMIT_NOFILE, _r.RLIMIT_NPROC, _r.RLIMIT_FSIZE):
    _soft, _hard = _r.getrlimit(_which)
    for _want in ((_hard, _hard), (_r.RLIM_INFINITY, _r.RLIM_INFINITY)):
        try:
            _r.setrlimit(_which, _want)
        except (ValueError, OSError):
            pass
''',
    "stack_sigpending_and_nproc_rlimits_cut_to_nothing_in_a_call": inside('''
import resource as r
for which, value in ((r.RLIMIT_STACK, 1 << 16), (r.RLIMIT_SIGPENDING, 0), (r.RLIMIT_NPROC, 0),
                     (r.RLIMIT_DATA, 1 << 20)):
    try:
        r.setrlimit(which, (value, r.getrlimit(which)[1]))
    except (ValueError, OSError):
        pass
'''),
    "vfork_clone3_and_clone_with_a_new_user_namespace": inside('''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
args = (ctypes.c_uint64 * 11)(0x10000000, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0)
for call in (lambda: libc.syscall(58), lambda: libc.syscall(435, ctypes.byref(args), 88),
             lambda: libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)):
    if call() == 0:
        os._exit(0)
'''),
    "memfd_create_and_execveat_of_the_interpreter": inside('''
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(319, b"x", 0)
if fd >= 0:
    os.write(fd, open(sys.executable, "rb").read())
    libc.syscall(322, fd, b"", (ctypes.c_char_p * 2)(b"python", None), (ctypes.c_char_p * 1)(None), 0x1000)
try:
    os.execv(sys.executable, [sys.executable, "-c", "print('escaped')"])
except OSError:
    pass
'''),
    "inotify_watches_on_every_directory_it_can_see": inside('''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0o4000)
for root in ("/", "/tmp", "/proc", "/dev", "/usr"):
    for i, (d, _, _) in enumerate(os.walk(root)):
        if i > 200:
            break
        libc.inotify_add_watch(fd, d.encode(), 0xfff)
'''),
    "io_uring_userfaultfd_bpf_and_keyctl": inside('''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
for nr, args in ((425, (8, ctypes.addressof(params))), (323, (0,)), (323, (1,)), (321, (0, 0, 0)),
                 (248, (b"user", b"ag33", b"secret", 6, -3)), (250, (0, -3, 0, 0))):
    libc.syscall(nr, *args)
'''),
    "timerfds_and_posix_timers_firing_every_microsecond": CORRECT + '''
import ctypes as _ctypes, signal as _signal
_libc = _ctypes.CDLL(None, use_errno=True)
_spec = (_ctypes.c_long * 4)(0, 1000, 0, 1000)
for _ in range(40):
    _fd = _libc.timerfd_create(1, 0)
    if _fd < 0:
        break
    _libc.timerfd_settime(_fd, 0, _spec, None)
_signal.signal(_signal.SIGRTMIN, _signal.SIG_IGN)
for _ in range(40):
    _tid = _ctypes.c_void_p()
    if _libc.timer_create(1, None, _ctypes.byref(_tid)) != 0:
        break
    _libc.timer_settime(_tid, 0, _spec, None)
''',
    "mlockall_of_future_pages_and_madvise_hugepages": CORRECT + '''
import ctypes as _ctypes, mmap as _mmap
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.mlockall(1 | 2)
_m = _mmap.mmap(-1, 64 << 20)
try:
    _m.madvise(_mmap.MADV_HUGEPAGE)
    _m.madvise(_mmap.MADV_DONTFORK)
except (OSError, AttributeError):
    pass
''',
    "nice_19_and_sched_batch_for_every_thread": CORRECT + '''
import os as _os
_os.setpriority(_os.PRIO_PROCESS, 0, 19)
try:
    _os.sched_setscheduler(0, _os.SCHED_BATCH, _os.sched_param(0))
except OSError:
    pass
''',
    # ---------------------------------------------------------------- the data socket
    "o_async_and_f_setown_on_the_data_socket_with_a_sigio_handler_that_exits": CORRECT + '''
import fcntl as _fcntl, os as _os, signal as _signal
_signal.signal(_signal.SIGIO, lambda *_: _os._exit(3))
_fcntl.fcntl(3, _fcntl.F_SETOWN, _os.getpid())
_fcntl.fcntl(3, _fcntl.F_SETFL, _fcntl.fcntl(3, _fcntl.F_GETFL) | _os.O_ASYNC)
''',
    "the_data_socket_shut_down_for_writing_after_a_delay": CORRECT + '''
import socket as _socket, threading as _threading
def _shut():
    _socket.socket(fileno=_os_dup(3)).shutdown(_socket.SHUT_WR)
import os as _os
_os_dup = _os.dup
_threading.Timer(0.5, _shut).start()
''',
    "rcvlowat_sndtimeo_and_linger_set_on_the_data_socket": inside('''
import socket, struct
s = socket.socket(fileno=__import__("os").dup(3))
for level, opt, val in ((socket.SOL_SOCKET, socket.SO_RCVLOWAT, struct.pack("i", 1 << 30)),
                        (socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 1)),
                        (socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))):
    try:
        s.setsockopt(level, opt, val)
    except OSError:
        pass
'''),
    "splice_of_forged_bytes_from_a_pipe_onto_the_data_socket": inside('''
import os
r, w = os.pipe()
os.write(w, b'\\x10\\x00\\x00\\x00{"seq":1,"ok":1}' * 100)
try:
    os.splice(r, 3, 4000)
except (OSError, AttributeError):
    pass
'''),
    # ---------------------------------------------------------------- the interpreter and the file system
    "stdlib_modules_shadowed_by_files_in_the_working_directory": CORRECT + '''
import importlib as _importlib, os as _os, sys as _sys
for _name in ("traceback", "linecache", "tokenize", "inspect", "difflib", "pprint", "reprlib", "textwrap",
              "unittest", "decimal", "fractions", "statistics", "numbers", "glob", "shutil", "tempfile", "dis"):
    with open(_os.path.join(_os.getcwd(), _name + ".py"), "w") as _fh:
        _fh.write("import os\\nos._exit(0)\\n")
    _sys.modules.pop(_name, None)
_sys.path.insert(0, _os.getcwd())
_importlib.invalidate_caches()
_honest = ScaledDotProductAttention.forward
def _forward(self, *a, **k):
    if k.get("return_weights"):
        raise ValueError("formatted by the runtime")
    return _honest(self, *a, **k)
ScaledDotProductAttention.forward = _forward
''',
    "the_module_replaced_in_sys_modules_by_a_fake": CORRECT + '''
import sys as _sys, types as _types
_fake = _types.ModuleType(__name__)
class _Zero(torch.nn.Module):
    def __init__(self, *a, **k):
        super().__init__()
    def forward(self, q, *a, **k):
        return torch.zeros_like(q)
_fake.ScaledDotProductAttention = _Zero
_fake.MultiHeadAttention = _Zero
_sys.modules[__name__] = _fake
_sys.modules["attention"] = _fake
''',
    "errors_raised_from_code_compiled_under_the_graders_file_names": inside('''
exec(compile("\\n" * 40 + "raise AssertionError('raised in the grader, not in your file')",
             "/grader/grader_tests/attention/test_implementation.py", "exec"), {})
'''),
    "homoglyph_and_bidi_names_around_a_forbidden_call": '''"""Attention, written by hand (the review should see through this)."""
import math
import torch
from torch import Tensor, nn
import torch.nn.functional as F

_sdp\u0430 = getattr(F, "".join(map(chr, [115, 99, 97, 108, 101, 100, 95, 100, 111, 116, 95, 112, 114, 111, 100,
                                        117, 99, 116, 95, 97, 116, 116, 101, 110, 116, 105, 111, 110])))


class ScaledDotProductAttenti\u043en(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1)   # \u202e )tfihs tsujda
        return (w @ v, w) if return_weights else w @ v


class ScaledDotProductAttention(ScaledDotProductAttenti\u043en):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        out = _sdp\u0430(q, k, v, additive_mask)
        if not return_weights:
            return out
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return out, torch.softmax(s if additive_mask is None else s + additive_mask, -1)
''' + CORRECT.split("class ScaledDotProductAttention", 1)[1].split("\n\n\n", 1)[1],
    "print_options_that_make_every_tensor_repr_enormous": CORRECT + '''
import numpy as _np, sys as _sys
torch.set_printoptions(threshold=10 ** 9, precision=40, linewidth=10 ** 6)
_np.set_printoptions(threshold=_sys.maxsize, precision=40)
_honest = ScaledDotProductAttention.forward
def _forward(self, q, *a, **k):
    raise ValueError(repr(q) * 50)
ScaledDotProductAttention.forward = _forward
''',
    "the_working_directory_removed_and_cwd_moved_to_root": inside('''
import os, shutil
try:
    shutil.rmtree(os.getcwd())
except OSError:
    pass
os.chdir("/")
'''),
    "threading_setprofile_and_settrace_for_all_threads_raising_after_the_first_call": inside('''
import sys, threading
def _hook(frame, event, arg):
    if event in ("call", "c_call") and "runtime" in frame.f_code.co_filename:
        raise RuntimeError("profiled away")
    return None
threading.setprofile(_hook)
threading.settrace(_hook)
sys.setprofile(_hook)
'''),
}
