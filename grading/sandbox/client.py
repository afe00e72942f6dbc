"""Trusted side of the sandbox: :class:`Executor` (owns a zygote) and :class:`Session` (one jail).

Everything that comes back from a jail is untrusted data: it is size-capped, decoded without pickle,
and tensors arrive as fresh plain ``torch.Tensor`` objects.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import logging
import math
import mmap
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Sequence

import torch

from autograder import settings
from grading.forking import cpu_seconds
from grading.sandbox import protocol

log = logging.getLogger(__name__)

UID_BASE = 60000
MAX_SLOTS = 1250
# Each executor (slot) has UIDS_PER_SLOT uids, one for each jail it runs at once (the zygote picks
# one no live jail has): RLIMIT_NPROC counts threads per uid, and a grading's jails run side by side
# (the visible tests' and a fresh one for comparisons). The first is 60000 + slot, as when it was
# the only one; the others lie past every slot's first, 61250 + 3 * slot.., up to 64999.
UIDS_PER_SLOT = 4
EXTRA_UID_BASE = UID_BASE + MAX_SLOTS
SLOT_DIR = "/run/autograder-sandbox/slots"


# --------------------------------------------------------------------------- errors
class SandboxError(Exception):
    """Base class of everything the sandbox raises."""


class StudentError(SandboxError):
    """The student's code raised (SyntaxError at load included)."""

    def __init__(self, kind: str, message: str, lineno: int | None = None, offset: int | None = None,
                 memory: dict | None = None):
        # offset: the column of a SyntaxError (1-based, characters), as Python's caret shows it
        self.kind, self.message, self.lineno, self.offset = kind, message, lineno, offset
        # A refused allocation under the jail's RLIMIT_AS, checked (Session._memory_limit_hit): {"limit", "in_use",
        # "asked"}, or {"limit", "in_use"} for Python's own MemoryError (no size named)
        self.memory = memory
        where = f" (line {lineno})" if lineno is not None else ""
        super().__init__(f"{kind}: {message}{where}")


class StudentTimeout(SandboxError):
    """A call or the import exceeded its time; the session is dead. ``clock`` says which limit was
    met: "cpu" (the jail's CPU seconds, which a loaded host does not inflate) or "wall" (the
    backstop that bounds a jail that waits without using CPU, and the session's own wall limit)."""

    def __init__(self, seconds: float, during: str, clock: str = "wall"):
        self.seconds, self.during, self.clock = seconds, during, clock
        if clock == "cpu":
            super().__init__(f"{during} used more than {seconds:g} s of CPU time")
        else:
            super().__init__(f"{during} took longer than {seconds:g} s")


class StudentIdle(StudentTimeout):
    """A call (or the import) used (almost) no CPU for ``seconds`` while the grader waited for its
    reply: none of the jail's threads was running or waiting for a CPU (a sleep, a blocking read, a
    lock). ``total``: the grading's allowance of such waiting (``Limits.idle_total``) ran out, in
    shorter waits. ``partial``: the reply had begun to arrive (the wait was for the rest of it). The
    session is dead."""

    def __init__(self, seconds: float, during: str, cpu: float, total: bool = False, partial: bool = False):
        self.cpu, self.total, self.partial = cpu, total, partial
        StudentTimeout.__init__(self, seconds, during)
        self.args = (f"{during} used {cpu:.2f} s of CPU in {seconds:.1f} s while the grader waited for its "
                     + ("reply; only part of the reply arrived" if partial else "reply; nothing it computed arrived"),)

    def __str__(self) -> str:
        return str(self.args[0])


class SandboxDied(SandboxError):
    """The jailed process ended (exit code, signal, memory/CPU limit); the session is dead."""

    def __init__(self, reason: str, out_of_memory: bool = False):
        self.reason = reason
        # the grader's loop ended on a refused allocation (zygote.EndPage.mark_loop_out_of_memory; mend round 48)
        self.out_of_memory = out_of_memory
        super().__init__(reason)


class SandboxUnavailable(SandboxError):
    """The zygote could not be started or the host cannot build jails (infrastructure failure)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


# --------------------------------------------------------------------------- limits
@dataclasses.dataclass(frozen=True)
class Limits:
    memory: int = 1 << 30          # RLIMIT_AS, bytes
    cpu: float = 20                # RLIMIT_CPU soft (hard = soft + 1), seconds
    wall: float = settings.SESSION_WALL_S            # whole session (enforced by the zygote)
    # CPU seconds of the jail each new/call/grad/... may use, and the load (jail setup + module top
    # level). Each also has a wall limit of ``wall_backstop`` times as much (cut to the session's): at
    # load average 13-20 a correct file whose import used 1 s of CPU took more than 3 s of wall time
    # and lost every point, while a wait that uses no CPU is bounded by the backstop (and the idle watch).
    call_timeout: float = settings.CALL_TIMEOUT_S
    import_timeout: float = settings.IMPORT_TIMEOUT_S
    wall_backstop: float = settings.WALL_BACKSTOP
    # The session's whole length in seconds at most, whatever host load took from it (None: ``wall`` times
    # ``wall_backstop``). A grading cuts it to what is left of its budget and of the load credit it gives back
    # (child.Budget.reserve): with the backstop alone, one session at load 5-9 ran 3 times its wall and a grading
    # took 71-72 s against its 40 s budget and 15 s of credit (round 48).
    wall_hard: float | None = None
    fsize: int = 16 << 20          # RLIMIT_FSIZE, bytes
    nofile: int = 64               # RLIMIT_NOFILE
    tmp: int = 64 << 20            # size of the jail's /tmp tmpfs, bytes
    output: int = 64 << 10         # captured stdout+stderr kept, bytes
    # stdout+stderr past which the jail is killed, bytes. Past half of it the jail's next request tells
    # it to write its stdout/stderr to /dev/null (``Session.quieted``): a correct file that printed
    # its weights in every call (116 MiB in a grading) lost its session at the limit, and the grading
    # ran its remaining tests again in a fresh one (pytest exit 2, then a second child).
    output_limit: int = 64 << 20
    nproc: int = 16                # RLIMIT_NPROC (threads of the jail uid)
    max_message: int = 64 << 20    # body cap of one message, bytes
    # What the jail's replies may add up to, bytes: in one session, or in all the sessions that
    # share one ``ReplyAllowance`` (a grading's, grading.child.Budget). An honest grading's come to
    # 45-120 KB, none over 10 KB: reading them, decoding them and checking what they hold is the
    # worker's CPU, outside the jail's limits; a forward returning 30 MiB tensors cost 25 times an
    # honest grading's, and a grading opens up to 6 sessions.
    max_received: int = 8 << 20
    # A pending call whose jail is idle this long is stopped (StudentIdle); such waiting may add up to
    # idle_total seconds in the sessions sharing one ``ReplyAllowance`` (a grading's). See IdleWatch.
    idle_window: float = settings.IDLE_WINDOW_S
    idle_total: float = settings.IDLE_TOTAL_S

    def session_hard(self) -> float:
        """The session's whole length at most in seconds: ``wall`` moved on by host load up to the backstop, and
        never past ``wall_hard``."""
        hard = self.wall * max(1.0, self.wall_backstop)
        return hard if self.wall_hard is None else max(self.wall, min(hard, self.wall_hard))

    def as_job(self) -> dict:
        return {"memory": int(self.memory), "cpu": float(self.cpu), "wall": float(self.wall),
                "wall_backstop": float(self.wall_backstop),
                **({} if self.wall_hard is None else {"wall_hard": float(self.wall_hard)}),
                "fsize": int(self.fsize), "nofile": int(self.nofile), "tmp": int(self.tmp),
                "nproc": int(self.nproc), "max_message": int(self.max_message)}


class ReplyAllowance:
    """What the jail replies of the sessions sharing it may still come to, bytes (``Limits.max_received``).

    One per grading: with one per session, a grading whose sessions each die at the cap (its
    reopened sessions, the hidden tests', fresh ones for comparisons: up to 6) made the worker read
    and decode six times as much. It lives in the process that reads the replies: a forked grading
    child uses a copy, reports what it ``spent``, and the parent ``take``s that from its own."""

    # However little is left, a session may read this much: enough to load the module and answer
    # small requests, so that its tests fail on the reply that does not fit (with the cap's own
    # message), not as a module that "failed to load"; 6 sessions read at most 384 KiB more.
    FLOOR = 64 << 10

    def __init__(self, total: int, idle_total: float = math.inf):
        self.total = int(total)
        self.spent = 0
        # Seconds the jails of these sessions sat idle while a call was pending (IdleWatch), and
        # how many they may: one allowance per grading, as for the replies' bytes.
        self.idle_total = float(idle_total)
        self.idle_spent = 0.0

    def idle_left(self) -> float:
        return max(0.0, self.idle_total - self.idle_spent)

    def left(self) -> int:
        return max(self.FLOOR, self.total - self.spent)

    def take(self, size: int) -> None:
        self.spent += max(0, int(size))

    # One reply may carry this share of the total (1 MiB of 8: an honest reply is under 10 KB), so that
    # one result over it costs its own test only: the jail is told the cap and refuses a larger result
    # itself (runtime.Runtime.serve), and what is left serves the other tests.
    REPLY_SHARE = 8

    def reply_cap(self) -> int:
        """What the next reply may carry, told to the jail with each request. The same in every
        session until the replies read come within a share of the total (an honest grading reads
        ~100 KB of 8 MiB): what is left, told exactly, would tell a session how much the sessions
        before it read, and so whether it is the first (the visible tests') or a later one."""
        return min(self.left(), max(self.FLOOR, self.total // self.REPLY_SHARE))


# --------------------------------------------------------------------------- idle jails
# A pending call's jail is first looked at after IDLE_FIRST_S (most calls have answered by then, and
# cost one select), then every IDLE_TICK_S: a sleep shorter than a tick still counts, in part.
IDLE_FIRST_S, IDLE_TICK_S = 0.02, 0.1
# CPU a jail may use, as a share of the wall time, and still count as idle: a loop of 1 ms sleeps
# costs ~2 %; an honest call under contention is runnable (its wait for a CPU counts as active).
IDLE_CPU_SHARE = 0.05


@dataclasses.dataclass(frozen=True)
class JailSample:
    """What the jail's threads had done at ``t``: seconds on a CPU, seconds runnable waiting for one
    (schedstat), and whether one of them is running, runnable or in an uninterruptible wait now."""

    t: float
    cpu: float
    waited: float
    busy: bool


# The memory rlimits a jail's code may lower under what the sandbox gives it, as /proc/<pid>/limits names them. The
# sandbox sets RLIMIT_AS (Limits.memory); the zygote leaves RLIMIT_DATA and RLIMIT_STACK as the process that started
# it has them, and nothing in the jail's own code lowers them (round 48: a file that cut both at import lost 17 tests
# to "can't allocate memory: 1536 bytes" and "the loop that reads its requests ... failed", told no cause).
_LIMIT_ROWS = {"Max address space": "RLIMIT_AS", "Max data size": "RLIMIT_DATA", "Max stack size": "RLIMIT_STACK"}


def jail_memory_limits(pid: int) -> dict[str, int] | None:
    """The soft memory rlimits of process ``pid`` (RLIM_INFINITY for "unlimited"), read by root from /proc; None when
    it is gone or unreadable."""
    seen: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/limits", "rb") as f:
            text = f.read(8192).decode("ascii", "replace")
    except OSError:
        return None
    for line in text.splitlines():
        for row, name in _LIMIT_ROWS.items():
            if line.startswith(row):
                soft = line[len(row):].split()[0]
                if soft == "unlimited":
                    seen[name] = resource.RLIM_INFINITY
                elif soft.isdigit():
                    seen[name] = int(soft)
                else:
                    return None
    return seen if len(seen) == len(_LIMIT_ROWS) else None


def lowered_memory_limits(seen: dict[str, int] | None, memory: int) -> list[tuple[str, int, int]]:
    """(name, the jail's soft limit, the sandbox's) of each memory rlimit ``seen`` in a jail under what the sandbox
    gave it: ``memory`` for RLIMIT_AS, this process's own (the zygote's, as it started) for the others. RLIMIT_DATA
    only under ``memory`` too: the data segment is part of the address space, so a data limit at or over RLIMIT_AS
    never refuses anything (mend round 48, review RC HIGH-1: 8 GiB under a 1 GiB address space was said)."""
    if seen is None:
        return []
    given = {"RLIMIT_AS": memory, "RLIMIT_DATA": resource.getrlimit(resource.RLIMIT_DATA)[0],
             "RLIMIT_STACK": resource.getrlimit(resource.RLIMIT_STACK)[0]}
    inf = resource.RLIM_INFINITY
    def below(v: int, g: int) -> bool:
        return v != inf and (g == inf or v < g)
    return [(name, seen[name], given[name]) for name in _LIMIT_ROWS.values() if below(seen[name], given[name])
            and (name != "RLIMIT_DATA" or below(seen[name], memory))]


def sample_jail(pid: int) -> JailSample | None:
    """``pid``'s threads as /proc shows them to root; None when it is gone or unreadable."""
    cpu = waited = 0.0
    busy = False
    t = time.monotonic()
    try:
        tids = os.listdir(f"/proc/{pid}/task")
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    run_ns, wait_ns = f.read().split()[:2]
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                    state = f.read().rpartition(b")")[2].split()[0]
            except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
                continue          # a thread that ended meanwhile
            cpu += int(run_ns) / 1e9
            waited += int(wait_ns) / 1e9
            busy = busy or state in (b"R", b"D")
    except (OSError, ValueError):
        return None
    return JailSample(t, cpu, waited, busy)


class IdleWatch:
    """Decides, from samples of a jail taken while one call is pending, whether it is idle.

    An interval between two samples is idle when no thread was seen running or runnable at its end
    and the threads were active (on a CPU or waiting for one) for less than ``IDLE_CPU_SHARE`` of
    it. ``feed`` returns "window" once the last ``window`` seconds were all idle, "total" once the
    idle seconds of this call reach ``allowance`` (what is left of the grading's), else None."""

    def __init__(self, window: float, allowance: float):
        self.window, self.allowance = window, allowance
        self.idle = 0.0                      # idle seconds seen in this call
        self._prev: JailSample | None = None
        self._run: JailSample | None = None  # the start of the current run of idle intervals
        self.run_seconds = self.run_cpu = 0.0

    def feed(self, s: JailSample) -> str | None:
        prev, self._prev = self._prev, s
        if prev is None:
            self._run = s
            return None
        dt = max(0.0, s.t - prev.t)
        active = max(0.0, s.cpu - prev.cpu) + max(0.0, s.waited - prev.waited)
        if s.busy or active > IDLE_CPU_SHARE * dt:
            self._run = s
            return None
        self.idle += dt
        assert self._run is not None
        self.run_seconds, self.run_cpu = s.t - self._run.t, max(0.0, s.cpu - self._run.cpu)
        if self.run_seconds >= self.window:
            return "window"
        if self.idle >= self.allowance:
            return "total"
        return None


@dataclasses.dataclass
class _PendingCall:
    """One request's wait for its reply (Session._watch_idle): what it may use and what was seen so far."""

    deadline: float                 # time.monotonic() of the call's wall backstop
    during: str
    cpu_limit: float                # CPU seconds of the jail past ``cpu_base``
    cpu_base: float | None          # None: the jail's CPU at the first sample
    next_look: float                # time.monotonic() at which the jail is next looked at
    watch: IdleWatch | None = None
    reading: bool = False           # the reply has begun to arrive


# --------------------------------------------------------------------------- executor
def _clean_env() -> dict[str, str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    # PYTHONPATH only when the worker package would not be importable from a clean interpreter
    # (i.e. it is neither installed nor installed editable).
    import grading
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(grading.__file__)))
    editable = any("__editable__" in type(f).__module__ or "__editable__" in repr(f) for f in sys.meta_path)
    if not editable and "site-packages" not in pkg_parent:
        env["PYTHONPATH"] = pkg_parent
    return env


def _acquire_slot(slot: int | None) -> tuple[int, int]:
    os.makedirs(SLOT_DIR, mode=0o700, exist_ok=True)
    candidates = [slot] if slot is not None else range(MAX_SLOTS)
    for i in candidates:
        fd = os.open(f"{SLOT_DIR}/{i}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return i, fd
        except BlockingIOError:
            os.close(fd)
    raise SandboxUnavailable("no free sandbox slot (uid)")


def _shutdown(proc: subprocess.Popen, ctrl: socket.socket, lock_fd: int) -> None:
    try:
        ctrl.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    try:
        os.close(lock_fd)
    except OSError:
        pass


_thread_watch_told: set[str] = set()    # the reasons logged by this process (each executor's zygote reports its own)


def _log_thread_watch_off(off: str | None) -> None:
    """Log, once per process and reason, that a zygote has no thread watch: the worker restarts executors, and the
    deployment's reason (docker-compose: its own pid namespace) is the same every time."""
    if off is not None and off not in _thread_watch_told:
        _thread_watch_told.add(off)
        log.warning("sandbox thread watch off: %s; a fault the kernel logs for a jail's thread is named only for a "
                    "thread a CPU check saw, and only where the zygote reads the kernel's log (/dev/kmsg; in "
                    "docker-compose it does not, and no fault is named) (README, \"Deployment\")", off)


class Executor:
    """Owns one warm zygote (pays one torch import). One session at a time is the intended use."""

    def __init__(self, limits: Limits | None = None, *, slot: int | None = None,
                 start_timeout: float = 180.0, debug: bool = False, preload: tuple[str, ...] = ()):
        """``preload``: modules the zygote imports once before any fork (e.g. ``("pandas",)``), so
        no jail pays their import; a module that fails to import is skipped (the jail then fails
        to import it too, as the student's own error)."""
        self.limits = limits or Limits()
        if os.geteuid() != 0:
            raise SandboxUnavailable(f"the sandbox needs root to build jails (euid {os.geteuid()})")
        if sys.platform != "linux":
            raise SandboxUnavailable("the sandbox needs Linux namespaces")
        self._owner_pid = os.getpid()
        self.slot, self._lock_fd = _acquire_slot(slot)
        self.uid = UID_BASE + self.slot          # its first uid (a jail alone has it)
        self._send_lock = threading.Lock()
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # The zygote's own stderr (never the student's: that goes to the session's output pipe) is
        # kept in an anonymous temp file so that a failed start can say why.
        self._stderr = None if debug else tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "grading.sandbox.zygote", str(child.fileno()), json.dumps(list(preload))],
                env=_clean_env(), cwd="/", close_fds=True, pass_fds=(child.fileno(),),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._stderr)
        except OSError as e:
            parent.close()
            os.close(self._lock_fd)
            raise SandboxUnavailable(f"cannot start the zygote: {e}") from e
        finally:
            child.close()
        self._ctrl = parent
        self._finalizer = weakref.finalize(self, _shutdown, self._proc, self._ctrl, self._lock_fd)
        t0 = time.monotonic()
        parent.settimeout(start_timeout)
        try:
            msg = parent.recv(65536)
            hello = json.loads(msg) if msg else None
        except (OSError, ValueError) as e:
            self.close()
            raise SandboxUnavailable(f"the zygote did not start: {type(e).__name__}: {e}") from None
        if not isinstance(hello, dict):
            try:
                code = self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            tail = self._stderr_tail()
            self.close()
            raise SandboxUnavailable(f"the zygote died while starting (exit code {code}): {tail}")
        if not hello.get("ready"):
            self.close()
            raise SandboxUnavailable(str(hello.get("reason")))
        parent.settimeout(None)
        self.zygote_pid = self._proc.pid
        self.binds = list(hello.get("binds", []))
        # None when the zygote reads the kernel's fork events of the jails' threads (zygote.ThreadWatch); else why
        # not: a thread's fault is then named only for a thread a CPU check saw, and only where the kernel's log is
        # readable (README, "Deployment").
        off = hello.get("thread_watch_off")
        self.thread_watch_off: str | None = off if isinstance(off, str) else None
        _log_thread_watch_off(self.thread_watch_off)
        self.start_seconds = time.monotonic() - t0

    @property
    def uids(self) -> list[int]:
        """The uids its jails run as (the zygote gives each live jail its own), ``uid`` first."""
        extra = EXTRA_UID_BASE + self.slot * (UIDS_PER_SLOT - 1)
        return [self.uid, *range(extra, extra + UIDS_PER_SLOT - 1)]

    def _stderr_tail(self, n: int = 2000) -> str:
        if self._stderr is None:
            return "(stderr not captured)"
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - n))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._finalizer()
        if self._stderr is not None:
            self._stderr.close()

    @property
    def alive(self) -> bool:
        if not self._finalizer.alive:
            return False
        if os.getpid() != self._owner_pid:
            # A forked grading child opening its own sessions: the zygote is not its child, so
            # Popen.poll() cannot tell; ask the kernel whether the process is still there.
            try:
                os.kill(self._proc.pid, 0)
            except ProcessLookupError:
                return False
            return True
        return self._proc.poll() is None

    def session(self, source: str, filename: str = "student.py", module_name: str = "student",
                watch: dict | None = None, limits: Limits | None = None,
                replies: ReplyAllowance | None = None) -> Session:
        """``replies``: shared with the other sessions of a grading; by default the session's own
        (``limits.max_received``)."""
        limits = limits or self.limits
        return Session(self, source, filename, module_name, watch or {}, limits,
                       replies or ReplyAllowance(limits.max_received, limits.idle_total))

    def _launch(self, job: dict, fds: list[int]) -> None:
        if not self.alive:
            raise SandboxUnavailable("the zygote is not running")
        try:
            with self._send_lock:
                socket.send_fds(self._ctrl, [json.dumps(job).encode()], fds)
        except OSError as e:
            raise SandboxUnavailable(f"cannot reach the zygote: {e}") from e


# --------------------------------------------------------------------------- session
# Replies come from the jail, where the submission can rewrite the runtime's ops: their shape is
# checked here, so a forged reply is the submission's failure and never a crash of a trusted test.
_CHILD = {"type": str, "is_linear": bool, "in_features": int, "out_features": int, "bias": bool}
_LINEAR = {"name": str, "in_features": int, "out_features": int, "bias": bool, "alias_of": str}


def _is_size(v: object) -> bool:
    """An int a torch size can be: the tests quote sizes in feedback, and an int of 4,300 digits
    passes JSON."""
    return type(v) is int and 0 <= v <= protocol.MAX_SIZE


def _fields_ok(d: object, spec: dict[str, type], required: tuple[str, ...]) -> bool:
    return (type(d) is dict and all(k in d for k in required)
            and all(k in spec and type(v) is spec[k] and (spec[k] is not int or _is_size(v)) for k, v in d.items()))


def _is_describe_reply(info: object) -> bool:
    if type(info) is not dict or set(info) - {"type", "is_module", "training", "parameters", "children", "linears"}:
        return False
    params, children = info.get("parameters", {}), info.get("children", {})
    # The runtime lists at most DESCRIBE_ENTRIES of each kind under the attributes asked for and as many others.
    most = 2 * protocol.DESCRIBE_ENTRIES
    if any(hasattr(x, "__len__") and len(x) > most for x in (params, children, info.get("linears", []))):
        return False
    return (type(info.get("type")) is str and type(info.get("is_module")) is bool
            and (info.get("training") is None or type(info.get("training")) is bool)
            and type(params) is dict and all(type(n) is str and type(shape) is list
                                             and all(_is_size(d) for d in shape) for n, shape in params.items())
            and type(children) is dict and all(type(n) is str and _fields_ok(c, _CHILD, ("type", "is_linear"))
                                               for n, c in children.items())
            and type(info.get("linears", [])) is list
            and all(_fields_ok(x, _LINEAR, ("name", "in_features", "out_features", "bias"))
                    for x in info.get("linears", [])))


MAX_TYPE_NAME = 100   # characters of a class name the jail reports (an exception's kind: the same)


def _clip_name(name: str) -> str:
    return name if len(name) <= MAX_TYPE_NAME else name[:MAX_TYPE_NAME - 1] + "…"


_MAX_STAT_NAMES, _MAX_STAT_NAME = 64, 200   # the watch lists a handful of names of this length


def _is_stats_reply(st: object) -> bool:
    return (type(st) is dict and set(st) <= {"count", "forbid", "missing"}
            and all(type(st.get(k, {})) is dict and len(st.get(k, {})) <= _MAX_STAT_NAMES
                    and all(type(n) is str and len(n) <= _MAX_STAT_NAME and type(c) is int
                            for n, c in st.get(k, {}).items())
                    for k in ("count", "forbid"))
            and type(st.get("missing", [])) is list and len(st.get("missing", [])) <= _MAX_STAT_NAMES
            and all(type(n) is str and len(n) <= _MAX_STAT_NAME for n in st.get("missing", [])))


# How long the trusted side lets a jail whose channel closed end on its own before killing it (Session._died): the
# jail's loop closes its channel as it fails (exit code 71, a descriptor replaced under it), and the kill that
# followed at once raced that exit: one grading in four was told "killed by SIGKILL while importing" (round 45) of a
# module that had been imported. A jail that closed its channel and goes on running is killed after this.
CLOSED_GRACE_S = 0.25
# Said of that kill (round 45 review RC LOW 6: "killed by SIGKILL" alone read as a signal of unknown origin).
CLOSED_KILLED_TEXT = ("the sandboxed process closed the grader's channel and went on running: the grader killed it "
                      "(SIGKILL) {grace:g} s later")


# How long this side waits, once it has killed a jail, for the zygote's status of its end: a loaded host spends it on
# the jail's own exit (a process with torch mapped), outside the grading's budget (tests: assert_attack_bounded).
END_STATUS_WAIT_S = 5.0


SERVE_FAILED_TEXT = ("after your code had run, the sandbox stopped answering the grader: the loop that reads its "
                     f"requests and writes its replies failed (exit code {protocol.SERVE_FAILED_EXIT})")


# A SIGINT that reached the jail while it waited for the next request or sent a reply, not while the student's code
# ran (zygote.run_jail): Python raised KeyboardInterrupt in the grader's loop, which ended on it as ``python
# attention.py`` ends on a KeyboardInterrupt nothing catches. Said as "stopped answering" before (round 36). Not said
# as a signal that arrived (round 45 review RC LOW 5): a built-in the loop calls, replaced at import to raise
# KeyboardInterrupt, ends it the same way, and no signal was sent.
INTERRUPTED_TEXT = "the sandboxed process was ended by a KeyboardInterrupt (what a SIGINT raises) in the grader's loop " \
                   "between calls"
# Said of a signal that ended the jail's student process (pid 2 of its namespace, where every default action is the
# kernel's: zygote._reap_student): what was seen. Not whether the code sent it, a fault raised it or abort() did: the
# wait status does not tell, and a handler that puts SIG_DFL back and sends the signal again ends the same way.
RECEIVED_TEXT = "the sandboxed process was ended by {name}, the signal's default action"
# A SIGKILL the zygote did not send (its reason is none: the session was not closed, no limit was passed). No cause is
# named: no per-jail evidence tells which (the OOM killer's counts are the host's and the zygote's cgroup's, shared
# with every jail and other processes; RLIMIT_AS gives a MemoryError, never a kill).
# The opening of what a jail stopped at its session's CPU limit is said to have met (_describe_status): the proxy tells
# such a stop from a crash by it.
CPU_LIMIT_TEXT = "CPU time limit exceeded"
# The openings of an exit (its code, os._exit in a finalizer or a handler included) and of a stop at the file size
# limit: the proxy counts neither as a crash (grading.proxy._death_cause).
EXITED_TEXT = "the sandboxed process exited with code {code}"
FILE_SIZE_TEXT = "file size limit exceeded (SIGXFSZ)"
UNSENT_KILL_TEXT = "the sandboxed process was killed by SIGKILL, which the grader did not send"
# Round 38: said only when the kernel's log names the jail's own pid (zygote.kernel_end): its OOM killer's kill, or an
# unhandled fault of its code. A signal the code sent itself (os.kill, libc's kill through ctypes) logs nothing and
# stays RECEIVED_TEXT / UNSENT_KILL_TEXT.
OOM_TEXTS = {"oom": "the sandboxed process was killed by SIGKILL from the kernel's out-of-memory killer: the machine "
                    "ran out of memory",
             "oom_cgroup": "the sandboxed process was killed by SIGKILL from the kernel's out-of-memory killer: the "
                           "memory limit of its cgroup was reached"}
FAULT_TEXT = "the sandboxed process crashed ({name}): the kernel logged a fault of its code"


def _describe_status(st: dict | None, limits: Limits) -> str:
    if not st:
        return "the sandboxed process ended without a status (the executor was closed or its zygote died)"
    if st.get("status") == "setup_failed":
        return f"the jail could not be set up: {st.get('reason')}"
    if "signal" in st:
        sig = st["signal"]
        try:
            name = signal.Signals(sig).name
        except ValueError:   # a real-time signal between SIGRTMIN and SIGRTMAX has no name of its own
            name = f"SIGRTMIN+{sig - signal.SIGRTMIN}" if signal.SIGRTMIN < sig < signal.SIGRTMAX else f"signal {sig}"
        # "cpu": the zygote's kill at the session's limit, or the kernel's RLIMIT_CPU signal it read as that limit
        # (zygote.Jail.rlimit_ended: the rlimit's clock runs ahead of the one the zygote checks on a loaded host).
        if sig in (signal.SIGKILL, signal.SIGXCPU) and (st.get("status") == "cpu"
                                                          or st.get("cpu", 0) >= limits.cpu - 0.05):
            return f"{CPU_LIMIT_TEXT} ({st.get('cpu')} s CPU, limit {limits.cpu:g} s)"
        if sig == signal.SIGKILL and st.get("status") == "exited":   # the zygote killed it for no reason of its own
            return OOM_TEXTS.get(st.get("kernel"), UNSENT_KILL_TEXT)
        if sig != signal.SIGKILL and st.get("kernel") == "fault":
            return FAULT_TEXT.format(name=name)
        if sig == signal.SIGXFSZ:
            return FILE_SIZE_TEXT
        if sig != signal.SIGKILL:
            return RECEIVED_TEXT.format(name=name)
        return f"the sandboxed process was killed by {name}"
    # only when the zygote saw the grader's loop mark its end (zygote.EndPage.mark_loop_end): a student's
    # os._exit(72) is an exit with code 72, no SIGINT (round 36b)
    if st.get("loop_end") and st.get("exit_code") == protocol.SERVE_FAILED_EXIT:
        return SERVE_FAILED_TEXT
    if st.get("loop_end") and st.get("exit_code") == protocol.INTERRUPTED_EXIT:
        return INTERRUPTED_TEXT
    if "exit_code" in st:
        return EXITED_TEXT.format(code=st["exit_code"])
    return f"the sandboxed process ended ({st.get('status')})"


OUTPUT_LIMIT_TEXT = "output limit exceeded (more than {mib:g} MiB printed)"
# Appended to a session's kept output when more was printed than ``Limits.output`` keeps.
DISCARDED_TEXT = "\n[... {n} more bytes of output discarded]\n"
_DISCARDED = re.compile(re.escape(DISCARDED_TEXT).replace(re.escape("{n}"), r"(\d+)"))


# Follows a session's output once its jail was told to print to /dev/null (Session.quieted): what it
# printed after that was neither read nor counted.
QUIETED_TEXT = "\n[... later output went to /dev/null, not counted]\n"


def output_quieted(output: str) -> bool:
    """Whether some session of ``output`` (``Session.output`` joined) printed more than was counted."""
    return QUIETED_TEXT in output


def printed_bytes(output: str) -> tuple[int, int]:
    """(bytes printed in all, bytes discarded) of the kept output of one or more sessions joined
    (``Session.output``): the kept text plus what each session's DISCARDED_TEXT counted."""
    dropped = sum(int(m.group(1)) for m in _DISCARDED.finditer(output))
    kept = len(_DISCARDED.sub("", output.replace(QUIETED_TEXT, "")).encode("utf-8", "replace"))
    return kept + dropped, dropped
# After a read that found less than TRICKLE_BYTES waiting, the reader pauses TRICKLE_PAUSE_S before the
# next one, so output written a byte at a time wakes this process at most ~200 times a second: each
# write had woken it (200,000 one-byte writes a test cost the worker 1.9-3.1 s of CPU per grading,
# outside the grading's budget, against 0.09 s for an honest file). The jail's writes wait, at worst,
# for the pipe (1 MiB) to be read; the output is read whole once the session ends, as before.
TRICKLE_BYTES, TRICKLE_PAUSE_S = 4096, 0.005


# A request's mark (Session._request): one of 8 * 10**18 drawn from os.urandom, in [10**19, 1.8 * 10**19): 20 digits.
MARK_LOW, MARK_SPAN = 10**19, 8 * 10**18


class _OutputReader(threading.Thread):
    """Keeps the first ``cap`` bytes of the jail's output and counts the rest; past ``limit`` bytes
    in all it writes b"o" to ``lifeline`` (its own copy of the session's, closed when it ends)."""

    def __init__(self, fd: int, cap: int, limit: int, lifeline: int):
        super().__init__(daemon=True, name="sandbox-output")
        self.fd, self.cap, self.limit, self.lifeline = fd, cap, limit, lifeline
        self.buf = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()
        self.quiet_at = limit // 2      # past this, the session asks the jail to print to /dev/null
        # Set once more than ``quiet_at`` bytes were printed, in memory shared with forked processes:
        # the requests of the visible tests are sent by a forked grading child, where this thread
        # does not run (its copy of the counts stays as they were at the fork).
        # [0]: printed past ``quiet_at``; [1]: the jail was told to print to /dev/null (Session.quieted).
        self.loud_flag = mmap.mmap(-1, 2)

    def loud(self) -> bool:
        """Whether the jail has printed more than ``quiet_at`` bytes (in this process or any fork of it)."""
        return self.loud_flag[0] == 1

    def _count(self) -> None:
        if len(self.buf) + self.dropped > self.quiet_at and self.loud_flag[0] != 1:
            self.loud_flag[0] = 1

    def run(self) -> None:
        sink = -1
        try:
            while len(self.buf) < self.cap:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    return
                with self.lock:
                    room = self.cap - len(self.buf)
                    self.buf += chunk[:room]
                    self.dropped += max(0, len(chunk) - room)
                    self._count()
                if len(chunk) < TRICKLE_BYTES:
                    time.sleep(TRICKLE_PAUSE_S)
            # Past the cap the output is only counted, spliced to /dev/null (never copied here),
            # and past the limit the jail is killed: draining a flood cost this process as much CPU
            # as the jail spent writing it (4 GB: 0.70 s here, 0.55 s in the jail), outside the
            # grading's CPU budget, i.e. up to about 1.3 times that budget more per grading.
            sink = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
            told = False
            while True:
                try:
                    n = os.splice(self.fd, sink, 1 << 20)
                except OSError:
                    n = len(os.read(self.fd, 65536))   # no splice here: read and drop
                if not n:
                    return
                with self.lock:
                    self.dropped += n
                    self._count()
                    over = len(self.buf) + self.dropped > self.limit
                if over and not told:
                    told = True
                    try:
                        os.write(self.lifeline, b"o")
                    except OSError:
                        pass
                if n < TRICKLE_BYTES:
                    time.sleep(TRICKLE_PAUSE_S)
        except OSError:
            return
        finally:
            for fd in (self.fd, sink, self.lifeline):
                try:
                    if fd >= 0:
                        os.close(fd)
                except OSError:
                    pass

    def text(self) -> str:
        with self.lock:
            s = bytes(self.buf).decode("utf-8", "replace")
            if self.dropped:
                s += DISCARDED_TEXT.format(n=self.dropped)
            return s


class Session:
    """One jailed process. Any timeout or death makes it dead for good."""

    def __init__(self, executor: Executor, source: str, filename: str, module_name: str,
                 watch: dict, limits: Limits, replies: ReplyAllowance | None = None):
        if not isinstance(source, str):
            raise TypeError("source must be str")
        self.limits = limits
        self._source, self._filename, self._module_name = source, filename, module_name
        self._watch = {"count": [str(x) for x in watch.get("count", [])],
                       "forbid": [str(x) for x in watch.get("forbid", [])]}
        if "imports" in watch:  # third-party packages the student's own imports may use
            self._watch["imports"] = [str(x) for x in watch["imports"]]
            self._watch["inert"] = [str(x) for x in watch.get("inert", [])]
        self._seq = 0
        # (handle, attributes, layout) the last build brought back (``build(describe=...)``): the answer
        # to a describe of that object as long as no other request has run since (any may run its code).
        self._layout: tuple[int, tuple[str, ...], object] | None = None
        self.changed_inputs: list[int | str] = []   # what the last reply said the call changed in place
        self._replies = replies or ReplyAllowance(limits.max_received, limits.idle_total)
        self._dead: BaseException | None = None
        self._loaded = False
        self._status: dict | None = None
        self._st_buf = b""                 # the status pipe's bytes not parsed yet
        self._jail_pid: int | None = None  # the zygote's first line on the status pipe
        self.lowered_limits: list[tuple[str, int, int]] = []    # note_memory_limits
        self._closed = False
        self._owner_pid = os.getpid()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Before the jail has it (protocol.JAIL_SNDBUF): what it can queue bounds each read here.
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, protocol.JAIL_SNDBUF)
        life_r, life_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            fcntl.fcntl(out_r, fcntl.F_SETPIPE_SZ, 1 << 20)   # a flood wakes this side 16 times less often
        except OSError:
            pass
        st_r, st_w = os.pipe()
        self._sock, self._life_w, self._st_r = mine, life_w, st_r
        self._rfile = protocol.reader(mine)
        # RLIMIT_CPU is the executor's for every session (the zygote enforces this session's cut):
        # an rlimit that followed the grading's budget told a jail which session it was.
        job = {"uids": executor.uids,
               "limits": {**limits.as_job(), "cpu_rlimit": float(max(limits.cpu, executor.limits.cpu))}}
        try:
            executor._launch(job, [theirs.fileno(), life_r, out_w, st_w])
        except BaseException:
            self._closed = True          # nothing for __del__ to kill: these fds are closed here
            for fd in (life_w, out_r, st_r):
                os.close(fd)
            self._rfile.close()
            mine.close()
            raise
        finally:
            theirs.close()
            for fd in (life_r, out_w, st_w):
                os.close(fd)
        self._t0 = time.monotonic()
        # The output reader's own copy of the lifeline: it writes b"o" there when the jail prints
        # more than ``limits.output_limit``; the zygote kills the jail and reports "output" as the
        # reason (to whichever process reads the status, a forked grading child too).
        self._out = _OutputReader(out_r, limits.output, limits.output_limit, os.dup(life_w))
        self._out.start()

    # ------------------------------------------------------------------ lifecycle
    def __del__(self) -> None:
        # A forgotten session must not keep its jail alive until the wall limit.
        try:
            if not self._closed and os.getpid() == self._owner_pid:   # never from a forked copy
                self._kill()
        except Exception:  # noqa: BLE001
            pass

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._kill()
        self._read_status(timeout=END_STATUS_WAIT_S)
        self._out.join(timeout=2.0)
        try:
            os.close(self._st_r)
        except OSError:
            pass
        if self._dead is None:
            self._dead = SandboxDied("the session was closed")

    def _kill(self) -> None:
        """Poke and close the lifeline: the zygote SIGKILLs the jail's whole pid namespace.

        A byte is written first so that the kill happens even when another process (e.g. a forked
        grading child, or its parent) still holds a copy of the lifeline's write end."""
        for f in (self._rfile, self._sock):      # the reader first: it holds the socket open
            try:
                f.close()
            except OSError:
                pass
        if self._life_w >= 0:
            try:
                os.write(self._life_w, b"k")
            except OSError:
                pass
            try:
                os.close(self._life_w)
            except OSError:
                pass
            self._life_w = -1

    def _parse_status(self, final: bool) -> None:
        """The status pipe's lines: the zygote writes ``{"pid": N}`` once the jail is forked, and the
        jail's end (a dict with "status") once it has ended; ``final``: the pipe is at its end."""
        *lines, rest = self._st_buf.split(b"\n")
        self._st_buf = rest
        if final and rest:
            lines.append(rest)
            self._st_buf = b""
        for line in lines:
            try:
                st = json.loads(line.decode())
            except ValueError:
                continue
            if not isinstance(st, dict):
                continue
            if "status" in st:
                self._status = st
            elif type(st.get("pid")) is int and st["pid"] > 1 and self._jail_pid is None:
                self._jail_pid = st["pid"]

    def _status_within(self, timeout: float) -> dict | None:
        """The jail's end if the zygote reports it within ``timeout`` seconds (the pipe left open, as it is while
        the jail lives), else None."""
        deadline = time.monotonic() + timeout
        while self._status is None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._st_r], [], [], left)[0]:
                break
            try:
                chunk = os.read(self._st_r, 4096)
            except OSError:
                break
            if not chunk:
                break
            self._st_buf += chunk
            if len(self._st_buf) > 65536:
                break
            self._parse_status(final=False)
        return self._status

    def _read_status(self, timeout: float) -> dict | None:
        if self._status is not None:
            return self._status
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._status is None:
            r, _, _ = select.select([self._st_r], [], [], max(0.0, deadline - time.monotonic()))
            if not r:
                break
            try:
                chunk = os.read(self._st_r, 4096)
            except OSError:
                break
            self._st_buf += chunk
            if not chunk or len(self._st_buf) > 65536:
                break
            self._parse_status(final=False)
        self._parse_status(final=True)
        return self._status

    def _pid(self) -> int | None:
        """The jail's pid, if the zygote has said it (read without waiting)."""
        if self._jail_pid is None and self._status is None:
            try:
                r, _, _ = select.select([self._st_r], [], [], 0)
                if r:
                    chunk = os.read(self._st_r, 4096)
                    self._st_buf += chunk
                    self._parse_status(final=not chunk)
            except (OSError, ValueError):
                return None
        return self._jail_pid if self._status is None else None

    def _watch_idle(self, w: _PendingCall) -> None:
        """Wait until something of the reply is there to read (or ``w.deadline``); meanwhile look at the
        jail every IDLE_TICK_S (from IDLE_FIRST_S after the request) and stop it when it is idle
        (IdleWatch), or once it has used ``w.cpu_limit`` CPU seconds past ``w.cpu_base`` (None: what it
        had used at the first sample) (StudentTimeout, clock "cpu"). Called after the request is sent,
        and again before every read of the reply that would wait (nothing queued, ``w.reading``): there
        the jail is looked at on time even when a byte came meanwhile, so a reply trickled out a byte at
        a time, asleep or spinning, is stopped by the call's idle and CPU limits as a jail that never
        answers is, not by the wall backstop. A call that answers at once costs one select. The caller
        ends the session on what this raises (not here: the reader it may be called from is busy)."""
        while True:
            now = time.monotonic()
            left = w.deadline - now
            if left <= 0:
                return
            readable = select.select([self._sock], [], [], max(0.0, min(w.next_look - now, left)))[0]
            if readable and (not w.reading or time.monotonic() < w.next_look):
                return
            pid = self._pid()
            if pid is None:
                w.next_look = time.monotonic() + IDLE_TICK_S
                if readable:
                    return
                continue        # not said yet (or the jail has ended: its socket is at its end)
            sample = sample_jail(pid)
            used = cpu_seconds(pid)
            w.next_look = time.monotonic() + IDLE_TICK_S
            if sample is None or used is None:
                return          # the jail is gone: the read sees its end
            if w.cpu_base is None:
                w.cpu_base = used
            if used - w.cpu_base >= w.cpu_limit:
                raise StudentTimeout(w.cpu_limit, w.during, clock="cpu")
            if not w.reading and select.select([self._sock], [], [], 0)[0]:
                # The reply came before the sample: the jail may already wait for the next request,
                # and this process, slow to run on a loaded host, would count that wait as idle. (Within a
                # reply it cannot: what it wrote of the rest is read before this side waits again.)
                return
            if w.watch is None:
                w.watch = IdleWatch(self.limits.idle_window, self._replies.idle_left())
            verdict = w.watch.feed(sample)
            if verdict is not None:
                # "total": the idle seconds of the whole grading (this call's are not counted yet).
                seconds = w.watch.run_seconds if verdict == "window" else self._replies.idle_spent + w.watch.idle
                raise StudentIdle(seconds, w.during, w.watch.run_cpu, total=verdict == "total", partial=w.reading)
            if readable:
                return

    @property
    def quieted(self) -> bool:
        """Whether the jail was told to write its stdout/stderr to /dev/null (by this process or a fork)."""
        return self._out.loud_flag[1] == 1

    @property
    def output(self) -> str:
        """Captured stdout+stderr of the student (first ``limits.output`` bytes)."""
        return self._out.text() + (QUIETED_TEXT if self.quieted else "")

    @property
    def alive(self) -> bool:
        return self._dead is None

    @property
    def status(self) -> dict | None:
        """The zygote's report about the jailed process, once it has ended."""
        return self._status

    # ------------------------------------------------------------------ requests
    def _die(self, exc: BaseException) -> BaseException:
        self._kill()
        self._dead = exc
        return exc

    def _request(self, op: str, timeout: float, during: str, **fields):
        if self._dead is not None:
            raise self._dead
        self._layout = None
        self._seq += 1
        seq = self._seq
        # Drawn for each request, echoed only by the runtime's own reply (runtime.Runtime.serve takes it out of the
        # request before any student code runs): ``seq`` counts 1, 2, 3..., and a thread of the student's wrote a
        # well-formed reply with the next one while the call still ran, taken as the call's return (round 38).
        # Always 20 digits: the replies' lengths stay the same from one session to the next (round 35's check).
        mark = MARK_LOW + int.from_bytes(os.urandom(8), "little") % MARK_SPAN
        allowance = self._replies.left()
        # The zygote enforces the session's wall limit, moved on by the time host load took from the jail
        # (zygote.Jail.wall_over), up to the backstop: this side waits that long, and a jail the zygote
        # ends there is "the session" timing out (_died).
        remaining = self.limits.session_hard() - (time.monotonic() - self._t0)
        # ``timeout`` counts the jail's CPU (checked as the idle watch samples it); the wall limit is
        # the backstop. The load counts all the jail's CPU (its setup is the load's, as before); a call,
        # what the jail used after the first sample (IDLE_FIRST_S after the request: a call that has
        # answered by then reads nothing of /proc, and the limit is at most that much CPU later).
        wall = timeout * max(1.0, self.limits.wall_backstop)
        budget = max(0.01, min(wall, remaining + 0.5))
        deadline = time.monotonic() + budget
        pending = _PendingCall(deadline, during, timeout, 0.0 if op == "load" else None,
                               next_look=time.monotonic() + IDLE_FIRST_S)

        def in_time() -> None:
            # Before every read of the reply, from the socket or from what the reader holds already.
            if time.monotonic() >= deadline:
                raise TimeoutError

        def rearm() -> None:
            # Every read that waits gets what is left of the call's time, not a fresh timeout: a jail
            # sending one byte every few seconds held one call for the whole session (30 s, not 5 s). Only
            # a read that waits (nothing queued: protocol._read_queued calls the reader's ``wait``) needs
            # it: set before each read, it was three more system calls in every request.
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self._sock.settimeout(left)

        try:
            self._sock.settimeout(budget)
            # "cap": what this side will read of the reply, so the jail refuses a larger one itself and
            # its session lives on (runtime.Runtime.serve); one sent anyway is refused below.
            cap = min(self.limits.max_message, self._replies.reply_cap())
            caps = [min(protocol.HEADER_CAP, cap), cap]
            if self._out.loud() and not self.quieted:
                # Past half the output limit the jail prints to /dev/null from this request on (the
                # runtime does it before the op), so printing in every call never reaches the limit
                # and ends the session; one call printing without end still does.
                self._out.loud_flag[1] = 1
                fields["quiet"] = True
            protocol.send(self._sock, {"op": op, "seq": seq, "mark": mark, "cap": caps, **fields},
                          self.limits.max_message)
            self._watch_idle(pending)
            pending.reading = True
            # Charged as it is read, refused or not (a refused reply's header was not: 6 MiB a grading).
            # Each wait for more of the reply is watched as the wait for its start is (then the read gets what is
            # left of the call's time: rearm).
            self._rfile.raw.wait = lambda: (self._watch_idle(pending), rearm())
            reply, _ = protocol.recv_sized(self._rfile, min(protocol.HEADER_CAP, allowance),
                                           min(self.limits.max_message, allowance), before_read=in_time,
                                           charge=self._replies.take)
        except StudentTimeout as e:      # the idle watch's or the CPU limit's (_watch_idle)
            raise self._die(e) from None
        except TimeoutError:
            if remaining < wall:
                raise self._die(StudentTimeout(self.limits.wall, "the session")) from None
            raise self._die(StudentTimeout(wall, during)) from None
        except (protocol.PeerClosed, ConnectionError, BrokenPipeError) as e:
            raise self._died(CLOSED_GRACE_S) from e
        except protocol.Trickled:
            # The runtime writes each reply at once: only other code in the jail writes on its channel a
            # few bytes at a time (grading.proxy says it in Chinese too).
            raise self._die(StudentError("InvalidResult", (
                f"a reply came in more than {protocol.TRICKLE_READS} pieces of less than {protocol.TRICKLE_BYTES} "
                "bytes: code in the sandbox wrote on the grader's channel a few bytes at a time"))) from None
        except protocol.ProtocolError as e:
            if "closed" in str(e):
                raise self._died(CLOSED_GRACE_S) from e
            # A body is what a parsed header declares: results, whatever refused them. A header's length is
            # four raw bytes: "in all" only when what is left of the grading's allowance refused a length a
            # header may have; past HEADER_CAP it is no header (bytes other code wrote on the channel, read
            # as a length), and "came to more than 8 MiB in all" was a guess.
            if isinstance(e, protocol.TooLarge) and allowance < self.limits.max_message and (
                    e.part == "body" or e.size <= protocol.HEADER_CAP):
                raise self._die(StudentError("InvalidResult", (
                    f"its results came to more than {self._replies.total >> 20} MiB in all "
                    f"(each tensor counting {protocol.TENSOR_WEIGHT >> 10} KiB more than its data), far more "
                    "than the tests' inputs call for"))) from None
            raise self._die(StudentError("InvalidResult", f"invalid reply from the sandbox: {e}")) from None
        except OSError as e:
            raise self._died() from e
        finally:
            self._rfile.raw.wait = None
            if pending.watch is not None:
                self._replies.idle_spent += pending.watch.idle
        return self._check_reply(reply, seq, mark)

    def _died(self, grace: float = 0.0) -> BaseException:
        """The jail's end, as an exception, once it is killed; ``grace``: seconds to let it end on its own first
        (CLOSED_GRACE_S)."""
        ended = self._status_within(grace) if grace > 0 else None
        self._kill()
        st = self._read_status(timeout=END_STATUS_WAIT_S)
        if st and st.get("status") == "wall":
            exc: BaseException = StudentTimeout(self.limits.wall, "the session")
        elif st and st.get("status") == "output":
            exc = SandboxDied(OUTPUT_LIMIT_TEXT.format(mib=self.limits.output_limit / (1 << 20)))
        elif st and st.get("status") == "setup_failed":
            # Only the zygote reports this (status pipe), from what the jail wrote before any
            # student code ran: a failure of the sandbox, never of the submission.
            exc = SandboxUnavailable(_describe_status(st, self.limits))
        else:
            said = _describe_status(st, self.limits)
            if grace > 0 and ended is None and said == "the sandboxed process was killed by SIGKILL":
                said = CLOSED_KILLED_TEXT.format(grace=grace)      # the kill just sent, for no limit: ours
            exc = SandboxDied(said, out_of_memory=said == SERVE_FAILED_TEXT and bool(st and st.get("loop_out_of_memory")))
        self._dead = exc
        return exc

    def _check_reply(self, reply, seq: int, mark: int | None = None):
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            raise self._die(StudentError("InvalidResult", "malformed reply from the sandbox"))
        if reply.get("seq") != seq or reply.get("mark") != mark:
            # The runtime answers each request once, with its seq: another reply was written by other
            # code in the jail (it may rewrite the runtime too), never by the grader.
            raise self._die(StudentError("InvalidResult",
                                         "a reply out of sequence: code in the sandbox wrote on the grader's channel"))
        if reply["ok"]:
            # The tensor arguments the call changed in place (runtime.op_call): positions and keyword names.
            changed = reply.get("changed")
            self.changed_inputs = [c for c in changed[:64] if type(c) is int or (type(c) is str and len(c) < 100)] \
                if isinstance(changed, list) else []
            return reply.get("value")
        err = reply.get("error")
        if not isinstance(err, dict):
            raise self._die(StudentError("InvalidResult", "malformed error reply"))
        kind = err.get("kind")
        message = err.get("message")
        lineno = err.get("lineno")
        kind = kind[:100] if isinstance(kind, str) and kind.isidentifier() else "Exception"
        message = message[:2000] if isinstance(message, str) else ""
        lineno = lineno if type(lineno) is int and 0 <= lineno < 10_000_000 else None
        offset = err.get("offset")
        offset = offset if lineno is not None and type(offset) is int and 0 < offset < 10_000_000 else None
        raise StudentError(kind, message, lineno, offset, self._memory_limit_hit(err.get("memory")))

    def _memory_limit_hit(self, said: object) -> dict | None:
        """The runtime's account of a refused allocation (runtime._past_memory_limit), kept only when it is of the limit
        this side set (not one the code lowered) and, for a request of known size ("asked"), its sizes do pass it;
        without "asked" (Python's own MemoryError, no size named) only the limit and what was in use."""
        if type(said) is not dict or set(said) not in ({"limit", "in_use", "asked"}, {"limit", "in_use"}) \
                or not all(type(v) is int and 0 < v < 1 << 62 for v in said.values()):
            return None
        if said["limit"] != self.limits.memory or said["in_use"] > said["limit"] \
                or ("asked" in said and said["asked"] + said["in_use"] <= said["limit"]):
            return None
        return dict(said)

    # ------------------------------------------------------------------ public ops
    def load(self) -> None:
        """Run the student's module top level (inside the jail)."""
        if self._loaded:
            raise RuntimeError("load() was already called")
        self._loaded = True
        self._request("load", self.limits.import_timeout, "import", source=self._source,
                      filename=self._filename, module_name=self._module_name, watch=self._watch)
        self.note_memory_limits()

    def note_memory_limits(self) -> list[tuple[str, int, int]]:
        """The memory rlimits code in the jail lowered under the sandbox's (``lowered_memory_limits``), read now while
        it lives (after its import and at each error of a call, ~40 us); the last read once it has ended: a jail that
        died of a lowered limit is told it, by the grader's own read of /proc, not the jail's word."""
        pid = self._pid()
        if pid is not None and (seen := jail_memory_limits(pid)) is not None:
            self.lowered_limits = lowered_memory_limits(seen, self.limits.memory)
        return self.lowered_limits

    def _need_load(self) -> None:
        if not self._loaded:
            raise RuntimeError("call load() first")

    def new(self, name: str, /, *args, **kwargs) -> int:
        """``name(*args, **kwargs)`` in the jail; its handle."""
        return self.build(name, args, kwargs)

    def build(self, name: str, args: tuple | list = (), kwargs: dict | None = None, *,
              params: dict[str, torch.Tensor] | None = None, eval_mode: bool = False,
              describe: Sequence[str] | None = None) -> int:
        """``new`` then, when given, ``set_params`` and ``call(h, "eval")``, in one round trip. With
        ``describe`` (attributes), the reply also brings the layout the jail's describe op gives right
        after the build: ``describe(h, describe)`` as the next request is answered from it, checked as
        a describe reply is, without a round trip."""
        self._need_load()
        fields: dict = {"name": name, "args": list(args), "kwargs": dict(kwargs or {})}
        if params is not None:
            fields["params"] = dict(params)
        if eval_mode:
            fields["eval"] = True
        if describe is not None:
            fields["describe"] = [str(a) for a in describe]
        reply = self._request("new", self.limits.call_timeout, f"{name}()", **fields)
        # {"handle", "layout"} when a layout was asked; the jail's ops can be rewritten to answer
        # anything, which is checked as any handle is.
        carries = describe is not None and type(reply) is dict
        h = reply.get("handle") if carries else reply
        if type(h) is not int:
            raise self._die(StudentError("InvalidResult", "malformed handle"))
        if carries and reply.get("layout") is not None:
            self._layout = (h, tuple(fields["describe"]), reply["layout"])
        return h

    def call(self, handle: int, method: str, /, *args, **kwargs):
        self._need_load()
        return self._request("call", self.limits.call_timeout, f"call {method}", handle=handle,
                             method=method, args=list(args), kwargs=kwargs)

    def call_function(self, name: str, /, *args, **kwargs):
        """``name(*args, **kwargs)`` for a module-level function of the student's file."""
        self._need_load()
        return self._request("fn", self.limits.call_timeout, f"{name}()", name=name,
                             args=list(args), kwargs=kwargs)

    def set_params(self, handle: int, params: dict[str, torch.Tensor]) -> None:
        self._need_load()
        self._request("set_params", self.limits.call_timeout, "set_params", handle=handle,
                      params=dict(params))

    def describe(self, handle: int, attributes: list[str] | tuple[str, ...] = ()) -> dict:
        """``attributes``: child modules to report even when they are not registered submodules
        (properties) or are registered under another name first (aliases)."""
        self._need_load()
        carried, self._layout = self._layout, None
        if carried is not None and carried[0] == handle and carried[1] == tuple(attributes):
            info = carried[2]
        else:
            info = self._request("describe", self.limits.call_timeout, "describe", handle=handle,
                                 attributes=list(attributes))
        if not _is_describe_reply(info):
            raise self._die(StudentError("InvalidResult", "malformed describe reply"))
        # Class names are the submission's to choose (type("x" * 10**6, ...)) and the tests quote
        # them in feedback ("q_proj is a ..., not an nn.Linear"): clipped like an exception's kind.
        info["type"] = _clip_name(info["type"])
        for child in info.get("children", {}).values():
            child["type"] = _clip_name(child["type"])
        return info

    def grad(self, handle: int, args, kwargs, grad_output, wrt=(0,)) -> list:
        self._need_load()
        out = self._request("grad", self.limits.call_timeout, "grad", handle=handle, args=list(args),
                            kwargs=dict(kwargs or {}), grad_output=grad_output,
                            wrt=[int(i) for i in wrt])
        if not isinstance(out, list):
            raise self._die(StudentError("InvalidResult", "malformed grad reply"))
        return out

    def stats(self) -> dict:
        self._need_load()
        st = self._request("stats", self.limits.call_timeout, "stats")
        if not _is_stats_reply(st):
            raise self._die(StudentError("InvalidResult", "malformed stats reply"))
        return st
