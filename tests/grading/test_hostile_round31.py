"""Round 31 of hostile submissions, written from the README and docs/contracts.md, graded by a worker's executor
(the service's limits: a session's CPU limit of 20 s under the grading's 30 s).

Two groups:

* Detectors and channels (``SEES_HIDDEN``): a file that answers wrong only when it believes it runs the hidden tests
  (a cut RLIMIT_CPU, a jail older than its import, a reply cap that is not the first session's) or when another
  session of the grading left it a sign (a file in /tmp, an abstract socket, a System V segment). Each must score
  exactly what the same file with its detector switched off scores: nothing it can read fires. Before this round the
  rlimit and the age told the sessions apart (the hidden tests were lost: 85 -> 70).
* Attacks (``ATTACKS``): forged replies past the reply cap (an encoder or ``Tensor.numel`` rewritten), replies just
  under it, pickles, protocol-shaped dicts, metaclasses whose ``__name__`` recurses, exceptions carrying millions of
  values, threads that hold the GIL past the call (a regex, a huge switch interval), fork bombs and memory balloons
  started after a delay, SIGBUS and SIGSEGV in the encoder's copy, /proc/self/mem, a poisoned import finder, a tracer
  that sleeps. Each: `graded` (never `error`), no more than the honest file, feedback in both languages, the worker's
  cost bounded (tests.grading.helpers.assert_attack_bounded), and nothing of its jails left running."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, graded_attack, honest_cost

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
_ANCHOR = "        assert q.ndim == k.ndim == v.ndim == 4\n"
assert _ANCHOR in CORRECT


def inside(body: str, head: str = "", base: str = CORRECT) -> str:
    """``base`` whose single-head forward first runs ``body`` (written in the class: no patched method), with
    ``head`` at the end of the file."""
    lines = "".join("        " + line + "\n" for line in body.strip("\n").splitlines())
    return base.replace(_ANCHOR, lines + _ANCHOR) + "\n" + head.strip("\n") + "\n"


def wrong_when(detector: str, setup: str = "") -> str:
    """A file whose forward answers wrong (scaled queries) when ``detector`` (an expression) was true at import."""
    return inside("if _WRONG:\n    q = q * 2.0", head=setup + f"\n_WRONG = bool({detector})\n")


# name -> a file that answers wrong where it believes it runs the hidden tests, or saw another session of the grading
SEES_HIDDEN: dict[str, str] = {
    "a_cpu_rlimit_below_the_first_sessions": wrong_when(
        "_r.getrlimit(_r.RLIMIT_CPU)[0] < 20", "import resource as _r"),
    "a_jail_idle_before_its_import": wrong_when("_idle() > 0.2", '''
import os as _os, time as _time
def _idle():
    st = open("/proc/self/stat").read().rpartition(")")[2].split()
    tick = _os.sysconf("SC_CLK_TCK")
    age = _time.clock_gettime(_time.CLOCK_BOOTTIME) - int(st[19]) / tick
    return age - (int(st[11]) + int(st[12])) / tick
'''),
    # the cap each request tells the jail, read by wrapping the runtime's ops: what is left of the grading's
    # allowance, told exactly, is no round number once a session before read anything
    "a_reply_cap_that_is_not_a_round_number": inside("if _caps and _caps[0] % (1 << 16):\n    q = q * 2.0", head='''
import gc as _gc
_caps = []
def _spy(op):
    def wrapped(self, req):
        if isinstance(req, dict) and isinstance(req.get("cap"), list):
            _caps.append(req["cap"][1])
        return op(self, req)
    return wrapped
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime" and hasattr(type(_o), "OPS"):
        type(_o).OPS = {k: _spy(v) for k, v in type(_o).OPS.items()}
        break
'''),
    "a_file_another_session_left_in_tmp": wrong_when("_seen", '''
import os as _os
_seen = _os.path.exists("/tmp/ag31_was_here")
open("/tmp/ag31_was_here", "w").close()
'''),
    "an_abstract_socket_another_session_listens_on": wrong_when("_met", '''
import socket as _socket
_met, _held = False, None
try:
    _c = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    _c.connect("\\0ag31")
    _met = True
except OSError:
    try:
        _held = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        _held.bind("\\0ag31")
        _held.listen(1)
    except OSError:
        pass
'''),
    "a_system_v_segment_another_session_made": wrong_when("_made", '''
import ctypes as _ctypes
_libc = _ctypes.CDLL(None, use_errno=True)
_made = _libc.shmget(31, 4096, 0o1000 | 0o2000 | 0o600) == -1 and _ctypes.get_errno() == 17   # IPC_CREAT|IPC_EXCL: EEXIST
'''),
}


def _switched_off(source: str) -> str:
    head, sep, tail = source.rpartition("\n_WRONG = bool(")
    if sep:
        return head + "\n_WRONG = False and bool(" + tail
    return source.replace("if _caps and _caps[0]", "if False and _caps and _caps[0]")


_BIG = "torch.zeros(7_000_000)"

# name -> a hostile file; each is graded, earns no more than the honest file and leaves nothing running
ATTACKS: dict[str, str] = {
    # the reply cap (round 31) told to the jail and ignored there
    "the_encoder_rewritten_to_ignore_the_reply_cap": inside(f"return {_BIG}", head='''
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime" and hasattr(type(_o), "serve"):
        _g = type(_o).serve.__globals__
        _enc = _g["protocol"].encode
        _g["protocol"].encode = lambda value, cap=0, weight=0, header_cap=None: _enc(value, 1 << 30)
        _g["_plain_tensor"] = lambda t, cap: t.detach().contiguous()
        break
'''),
    "tensor_numel_lying_to_the_cap_checks": inside(f"return {_BIG}", head='''
torch.Tensor.numel = lambda self: 1
'''),
    "a_reply_just_under_the_cap_from_every_call": inside("return torch.zeros(255_000)"),
    "a_thread_writing_a_raw_reply_over_the_cap_on_the_data_socket": inside(f'''
import os, struct, threading
def _raw():
    body = {_BIG}.numpy().tobytes()
    head = ('{{"v":{{"X":0}},"t":[{{"dtype":"float32","shape":[7000000],"offset":0,"nbytes":%d}}],"n":%d}}'
            % (len(body), len(body))).encode()
    try:
        os.write(3, struct.pack("<I", len(head)) + head + body[:1 << 20])
    except OSError:
        pass
threading.Thread(target=_raw, daemon=True).start()
'''),
    # what only pickle could carry, and values shaped like the protocol's own tags
    "a_pickle_of_the_output_returned_as_bytes": inside('''
import pickle
return pickle.dumps(torch.softmax(q @ k.transpose(-2, -1), -1) @ v)
'''),
    "results_shaped_like_the_protocols_tags": inside('return {"X": 0, "A": 0, "T": [0], "D": {"X": 0}}'),
    "a_list_of_tags_and_a_tuple_of_tags": inside('return [{"X": 0}, ({"A": 1},), "X"]'),
    # names and messages that run code when the runtime reads them
    "an_object_whose_metaclass_name_recurses": inside('''
class _M(type):
    @property
    def __name__(cls):
        return cls.__name__
return _M("Out", (), {})()
'''),
    "an_exception_carrying_three_million_values": inside("raise ValueError(list(range(3_000_000)))"),
    "an_exception_whose_message_forges_the_graders_log": inside('''
raise AssertionError("\\n".join(["[test_output_parity_reference] passed", "sessions used: 1", "REVIEW: none",
                                 "child 1: 0.1 s, pytest exit 0", "通过"] * 20000))
'''),
    "a_repr_that_recurses_on_a_returned_module": inside('''
class _Loop(torch.nn.Module):
    def __repr__(self):
        return repr(self)
    __str__ = __repr__
return _Loop()
'''),
    # threads that outlive the call
    "a_thread_holding_the_gil_in_a_regex_after_a_delay": CORRECT + '''
import re as _re, threading as _threading
_threading.Timer(0.3, lambda: _re.match(r"(a+)+$", "a" * 64 + "b")).start()
''',
    "a_spinning_thread_with_a_switch_interval_of_a_day": CORRECT + '''
import sys as _sys, threading as _threading
def _spin():
    _sys.setswitchinterval(86400.0)
    while True:
        pass
_threading.Timer(0.3, _spin).start()
''',
    "a_fork_bomb_after_a_delay": CORRECT + '''
import os as _os, threading as _threading, ctypes as _ctypes
def _bomb():
    libc = _ctypes.CDLL(None, use_errno=True)
    for _ in range(2000):
        for make in (lambda: _os.fork(), lambda: libc.syscall(57), lambda: libc.syscall(56, 0x11, 0, 0, 0, 0),
                     lambda: _os.posix_spawn("/usr/bin/true", ["true"], {}),
                     lambda: _threading.Thread(target=_bomb).start()):
            try:
                if make() == 0:
                    _os._exit(0)
            except BaseException:
                pass
_threading.Timer(0.5, _bomb).start()
''',
    "a_memory_balloon_kept_at_the_limit_by_a_thread": CORRECT + '''
import threading as _threading, time as _time
_hoard = []
def _balloon():
    size = 64 << 20
    while True:
        try:
            _hoard.append(bytearray(size))
        except MemoryError:
            size = max(4096, size // 2)
            _time.sleep(0.001)
_threading.Timer(0.2, _balloon).start()
''',
    "a_thread_swapping_in_a_wrong_forward_after_the_first_calls": CORRECT + '''
import threading as _threading, time as _time
def _swap():
    _time.sleep(0.3)
    ScaledDotProductAttention.forward = lambda self, q, k, v, *a, **kw: q
_threading.Thread(target=_swap, daemon=True).start()
''',
    # faults in the runtime's copy of a result
    "a_sigbus_from_a_file_mapping_truncated_before_it_is_copied": inside('''
import mmap, os
fd = os.open("/tmp/ag31_map", os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, 1 << 20)
m = mmap.mmap(fd, 1 << 20)
t = torch.frombuffer(m, dtype=torch.float32)
os.ftruncate(fd, 0)
return t.reshape(1, 1, -1, 4)
'''),
    "a_segfault_with_faulthandler_on_in_forward": inside('''
import ctypes, faulthandler
faulthandler.enable()
ctypes.string_at(1)
'''),
    "proc_self_mem_overwriting_a_function_of_libc": inside('''
import ctypes
libc = ctypes.CDLL(None)
addr = ctypes.cast(libc.memcpy, ctypes.c_void_p).value
try:
    with open("/proc/self/mem", "r+b", buffering=0) as f:
        f.seek(addr)
        f.write(b"\\xcc" * 16)
except OSError:
    pass
'''),
    "writes_to_the_interpreter_torch_and_dev": inside('''
import mmap, os
for path in (torch.__file__, os.__file__, "/dev/null", "/dev/zero", "/usr/bin/python3", "/proc/sys/kernel/core_pattern"):
    for how in (lambda p: open(p, "r+b").write(b"x"), lambda p: mmap.mmap(os.open(p, os.O_RDWR), 1)):
        try:
            how(path)
        except (OSError, ValueError):
            pass
'''),
    # the interpreter's machinery turned against the runtime
    "a_meta_path_finder_failing_every_later_import": CORRECT + '''
import sys as _sys
class _Finder:
    def find_spec(self, name, path=None, target=None):
        raise ImportError("no " + name + " here")
_sys.meta_path.insert(0, _Finder())
for _name in [n for n in _sys.modules if n.startswith(("json", "struct", "numpy.core", "torch._tensor_str"))]:
    _sys.modules.pop(_name, None)
''',
    "a_tracer_sleeping_a_millisecond_a_line": inside('''
import sys, time
def tracer(frame, event, arg):
    time.sleep(0.001)
    return tracer
sys.settrace(tracer)
'''),
    "signal_handlers_raising_in_the_encoder_and_a_profiling_timer": CORRECT + '''
import signal as _signal
def _raise(*_):
    raise MemoryError("raised by a signal handler")
for _s in (_signal.SIGPROF, _signal.SIGVTALRM, _signal.SIGALRM, _signal.SIGPIPE, _signal.SIGUSR1):
    _signal.signal(_s, _raise)
_signal.setitimer(_signal.ITIMER_PROF, 0.003, 0.003)
''',
    "stdout_and_stderr_closed_and_fd_3_duplicated_everywhere": inside('''
import os
for fd in range(5, 60):
    try:
        os.dup2(3, fd)
    except OSError:
        pass
os.close(1)
os.close(2)
'''),
    "a_weakref_finalizer_on_the_module_that_rewrites_torch_softmax": CORRECT + '''
import weakref as _weakref
_m = ScaledDotProductAttention()
def _poison():
    torch.softmax = lambda x, dim=-1, **k: torch.zeros_like(x)
_weakref.finalize(_m, _poison)
del _m
''',
    "an_atexit_handler_and_a_sigterm_handler_forging_passes": CORRECT + '''
import atexit as _atexit, os as _os, signal as _signal
def _forge(*_):
    for fd in (1, 2, 3):
        try:
            _os.write(fd, b'{"seq": 99, "ok": true, "value": "passed"}\\n' * 100)
        except OSError:
            pass
_atexit.register(_forge)
_signal.signal(_signal.SIGTERM, _forge)
_signal.signal(_signal.SIGHUP, _forge)
''',
    "a_torch_function_mode_answering_the_test_with_its_own_inputs": CORRECT + '''
from torch.overrides import TorchFunctionMode as _Mode
class _Echo(_Mode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.softmax:
            return torch.full_like(out, 1.0 / out.shape[-1])
        return out
_Echo().__enter__()
''',
    "huge_nested_outputs_wide_and_deep": inside('''
wide = {str(i): [float(i)] * 10 for i in range(9000)}
deep = []
cur = deep
for _ in range(30):
    nxt = []
    cur.append(nxt)
    cur = nxt
return (wide, deep, [torch.zeros(1)] * 3000)
'''),
    "proc_reads_of_the_host_and_timers": inside('''
import glob
seen = {}
for path in ("/proc/1/environ", "/proc/self/mountinfo", "/proc/self/cgroup", "/proc/stat", "/proc/loadavg",
             "/proc/sys/kernel/random/boot_id", "/proc/uptime", "/proc/self/timerslack_ns", "/sys/fs/cgroup"):
    try:
        seen[path] = open(path).read()[:200]
    except OSError as e:
        seen[path] = type(e).__name__
seen["others"] = sorted(glob.glob("/proc/[0-9]*"))
if len(seen["others"]) > 1:
    raise RuntimeError("another process is visible: " + repr(seen["others"]))
'''),
}


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    """The honest file's total and the worker's CPU for it, on the executor the attacks are graded by."""
    return honest_cost(_grade, served, CORRECT)


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


def _nothing_left(executor) -> None:
    from tests.sandbox.helpers import wait_no_leftovers

    assert wait_no_leftovers(executor, timeout=5.0) == [], "a jail outlived its grading"
    assert executor.alive


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SEES_HIDDEN))
def test_nothing_a_session_reads_tells_it_runs_the_hidden_tests(served, name):
    control = _grade(served, _switched_off(SEES_HIDDEN[name]))
    result = _grade(served, SEES_HIDDEN[name])
    assert control["status"] == result["status"] == "graded", (control["message"], result["message"])
    lost = [t["id"] for t in result["tests"] if t["outcome"] != "passed"
            and next(c for c in control["tests"] if c["id"] == t["id"])["outcome"] == "passed"]
    assert lost == [], f"{name} fired in: {lost}"
    assert result["total"] == control["total"]
    _nothing_left(served)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_31_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)
