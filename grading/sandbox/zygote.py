"""The warm executor process (``python -m grading.sandbox.zygote <control fd>``).

Started by :class:`grading.sandbox.client.Executor` with a minimal clean environment. It imports torch
once, never runs student code itself, and forks one jail per job:

    zygote ──unshare(NEWPID), posix_spawn──> jail init (pid 1 of a new pid namespace: ``cat`` reading a pipe
             │                               only the zygote writes, root, runs no student code; exits at
             │                               that pipe's end, which tears the namespace down)
             └──fork──> student process (pid 2 of that namespace, the zygote's own child: setsid, PDEATHSIG, its
                        own mount/net/ipc/uts namespaces, new root, rlimits, uid drop, NO_NEW_PRIVS, seccomp,
                        then the runtime serving loop)

The zygote supervises every jail itself, in its one loop: when a jail's lifeline pipe becomes
readable (the trusted side is done or dead) or its wall limit passes, it SIGKILLs the jail's student
process; when that process has ended (the zygote's own wait), it closes the init's pipe and reports the
student process's wait status and CPU on the status pipe; when one stops itself (SIGSTOP, SIGTSTP...),
it resumes it. (pid 1 used to be a fork of this torch-sized process that forked the student's process in
turn: the second fork's page-table copy and teardown cost ~15 ms of CPU per grading. posix_spawn is a
vfork: it copies no page table.) (A supervisor process per jail, forked from this torch-sized process,
cost about 9 % of a grading's CPU.) The zygote is a child subreaper and reaps everything that comes
back to it.
"""

from __future__ import annotations

import os

# Thread pools must be single-threaded BEFORE torch is imported: a libgomp pool does not survive fork.
for _k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_k] = "1"

import builtins  # noqa: E402
import ctypes  # noqa: E402
import errno  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import secrets  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Mapping  # noqa: E402

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402
import torch.nn  # noqa: E402
import torch.nn.functional  # noqa: E402

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass

# Torch's lazy first-use paths, taken or settled before the forks (see that module).
from grading.sandbox import lazy_torch  # noqa: E402

lazy_torch.prepare()

import pyseccomp  # noqa: E402

from grading.forking import cpu_seconds, load_credit, name_process, prepare_for_forks  # noqa: E402
from grading.sandbox import protocol  # noqa: E402
from grading.sandbox.runtime import Runtime, before_forks, prepare_process  # noqa: E402

# Private builtins, as protocol takes its own (see there): run_jail goes on after the student's code has run.
__builtins__ = dict(builtins.__dict__)

# --------------------------------------------------------------------------- libc
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_libc.syscall.restype = ctypes.c_long

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
CLONE_THREAD = 0x00010000
NS_FLAGS = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
JAIL_NS_FLAGS = NS_FLAGS & ~CLONE_NEWPID     # the jail unshares these itself; NEWPID is the zygote's

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SYS_pivot_root = 155  # x86_64

UID_MIN, UID_MAX = 60000, 65000
CPU_CHECK_S = 0.1     # how often the zygote reads a running jail's CPU against its session's limit
# The PROF clock moves by whole ticks (1-4 ms): the rlimit's signal is sent at the tick that reaches the limit, read
# back on the zombie at the limit or a tick past it; a millisecond covers rounding, far less than any tick.
PROF_SLACK_S = 0.001
JAIL_THREADS_KEPT = 1024   # thread ids kept per jail (Jail.note_threads): a set of ints, ~60 KiB at most
LIFE_OPEN = 1 << 63        # a thread's end not yet seen (Jail.lives)
# The kernel events (ThreadWatch) the zygote reads of one jail: a thread's start and its end are one each, so an honest
# jail's few threads are far below it; a jail starting threads without end (~13,000 a second here) reaches it in a
# third of a second, and from then on the kernel drops its events (ThreadWatch.follow): at ~1.4-2.3 us an event, what
# one jail's threads cost the zygote is bounded at ~10 ms, where the churn cost it 0.33 s in 9 s (round 41).
JAIL_EVENTS_MAX = 4 * JAIL_THREADS_KEPT


def jail_uid(uids: list[int], live: list[int], choice: Callable[[list[int]], int] = secrets.choice) -> int:
    """The uid of a new jail among its executor's ``uids``: one that no live jail (``live``: their
    uids) has, else one of the least shared, drawn at random. RLIMIT_NPROC counts the threads of a
    uid: with one uid per executor, a jail holding all it could get left 4 of the 16 to the jail
    opened beside it in the same grading (the determinism test's fresh session). Drawn, not the first
    free one: a grading's first session (the visible tests') always had the executor's first uid and
    the hidden tests' session, opened beside it, another, so ``os.getuid()`` told a submission which
    tests it was answering. Drawn uniformly among the free ones, every session's uid is uniform over
    the executor's, whichever session it is."""
    least = min(live.count(u) for u in uids)
    return choice([u for u in uids if live.count(u) == least])


def _check(rc: int, what: str) -> None:
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def _b(s):
    return None if s is None else os.fsencode(s)


def mount(src, target, fstype, flags, data=None):
    _check(_libc.mount(_b(src), _b(target), _b(fstype), flags, _b(data)), f"mount {target}")


def prctl(option, arg2=0):
    _check(_libc.prctl(option, arg2, 0, 0, 0), f"prctl {option}")


def unshare(flags):
    _check(_libc.unshare(flags), "unshare")


# --------------------------------------------------------------------------- what the jail sees
PROJECT_MARKERS = ("grader_tests", "rubric", "app", "autograder", "grading", "data", "worker", "migrations", ".git")


def _project_root() -> str:
    import grading  # the package that holds this module
    return os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(grading.__file__))))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def compute_binds() -> list[tuple[str, bool]]:
    """(path, is_dir) bound read-only at the same path in the jail."""
    project = _project_root()
    binds: list[tuple[str, bool]] = [("/usr", True)]
    prefix = os.path.realpath(sys.base_prefix)
    if _inside(project, prefix):
        raise RuntimeError(f"the interpreter prefix {prefix} contains the project {project}")
    binds.append((prefix, True))
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        p = os.path.realpath(entry)
        if _inside(p, prefix) or _inside(p, "/usr") or p == "/":
            continue
        if _inside(project, p):                      # the project itself or one of its parents
            continue
        if any(os.path.isdir(os.path.join(p, m)) for m in PROJECT_MARKERS):
            continue
        if _inside(p, project) and "site-packages" not in p.split("/") \
                and "dist-packages" not in p.split("/"):
            continue                                 # only a venv's site-packages inside the repo
        if (p, True) not in binds:
            binds.append((p, True))
    for f in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/etc/ld.so.cache"):
        if os.path.exists(f):
            binds.append((f, False))
    return binds


def _jail_mountpoint() -> str:
    for base in ("/run/autograder-sandbox", "/tmp/autograder-sandbox"):
        try:
            os.makedirs(base + "/root", mode=0o700, exist_ok=True)
            return base + "/root"
        except OSError:
            continue
    raise RuntimeError("no directory for the jail mount point")


# --------------------------------------------------------------------------- seccomp
F_SETPIPE_SZ = 1031   # fcntl.F_SETPIPE_SZ (Linux)
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33   # Linux (not in Python's socket module)
DENY_EPERM = [
    "fork", "vfork", "execve", "execveat", "ptrace", "unshare", "setns", "mount", "umount2",
    "pivot_root", "chroot", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "process_vm_readv", "process_vm_writev", "kexec_load", "kexec_file_load",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "memfd_create",
    "memfd_secret", "open_by_handle_at", "name_to_handle_at", "move_mount", "open_tree", "fsopen",
    "fsmount", "fsconfig", "fspick", "mount_setattr", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog", "iopl", "ioperm", "pidfd_getfd",
    "shmget", "shmat", "msgget", "semget", "mq_open", "personality", "kcmp", "lookup_dcookie",
    "vhangup", "set_mempolicy", "mbind", "migrate_pages", "move_pages",
    # Its own priority: a session's wall limit and the grading's budget give back the time a jail waited
    # for a CPU (forking.load_credit), so a jail that made itself nice 19 or SCHED_IDLE would be paid for
    # waiting it caused, holding a worker slot longer. Only lowering is possible unprivileged; torch and
    # its OpenMP runtime call none of these. Nor its CPU affinity: pinned to a CPU other jails keep busy, it
    # would wait there for the credit too.
    "setpriority", "sched_setscheduler", "sched_setattr", "sched_setparam", "sched_setaffinity",
]


def seccomp_filter():
    f = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    eperm = pyseccomp.ERRNO(errno.EPERM)
    for name in DENY_EPERM:
        try:
            f.add_rule(eperm, name)
        except (OSError, RuntimeError, ValueError):
            pass  # unknown to this libseccomp/kernel
    # clone: only threads (CLONE_THREAD set); clone3: ENOSYS so glibc falls back to clone.
    f.add_rule(eperm, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, CLONE_THREAD, 0))
    f.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    # No socket of its own at all (its one socket, the data socket, is handed in with a small send
    # buffer: protocol.JAIL_SNDBUF): the 30 AF_UNIX socketpairs its descriptors allowed queued 13 MiB of
    # kernel memory with the default buffers, outside RLIMIT_AS. Its own network namespace left it
    # nothing to reach anyway.
    f.add_rule(eperm, "socket")
    f.add_rule(eperm, "socketpair")
    # A pipe keeps its default 64 KiB: enlarged (F_SETPIPE_SZ, up to 1 MiB each), the pipes a jail's
    # descriptors allow held ~1 MiB each of kernel memory, outside RLIMIT_AS, until the jail ended.
    f.add_rule(eperm, "fcntl", pyseccomp.Arg(1, pyseccomp.EQ, F_SETPIPE_SZ))
    # So does a socket its default buffers: with SO_SNDBUF/SO_RCVBUF raised to net.core.*mem_max (4 MiB
    # here), the 30 AF_UNIX socketpairs a jail's descriptors allow queued 470 MiB (13 MiB by default).
    for option in (socket.SO_SNDBUF, socket.SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE):
        f.add_rule(eperm, "setsockopt", pyseccomp.Arg(1, pyseccomp.EQ, socket.SOL_SOCKET),
                   pyseccomp.Arg(2, pyseccomp.EQ, option))
    return f


PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class SeccompProgram:
    """``seccomp_filter()`` compiled to BPF once, in the zygote; each jail only installs it.

    Building and compiling the filter with libseccomp in every jail cost ~2.5 ms of CPU and wall
    per jail (ctypes calls in a freshly forked process, each touching pages it must copy); the
    compiled program is the same for every jail, so the jail makes one ``prctl`` call instead."""

    def __init__(self) -> None:
        import tempfile

        with tempfile.TemporaryFile() as fh:
            seccomp_filter().export_bpf(fh)
            fh.seek(0)
            code = fh.read()
        if not code or len(code) % 8:
            raise OSError(errno.EINVAL, f"libseccomp exported {len(code)} bytes of BPF")
        self._code = ctypes.create_string_buffer(code, len(code))
        self._prog = _SockFprog(len(code) // 8, ctypes.addressof(self._code))

    def load(self) -> None:
        """Install the filter on this process (NO_NEW_PRIVS must be set, as libseccomp requires)."""
        _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(self._prog), 0, 0),
               "prctl(PR_SET_SECCOMP)")


# --------------------------------------------------------------------------- the jail (process B)
def _mkdirs(path: str) -> None:
    os.makedirs(path, mode=0o755, exist_ok=True)


def build_root(root: str, binds, tmp_bytes: int) -> None:
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=512,mode=755")
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = "/" + name
        if os.path.islink(host):
            os.symlink(os.readlink(host), root + host)
    # /tmp first: the venv may itself live under /tmp (a CI clone), and a tmpfs mounted after
    # the binds would hide it.
    _mkdirs(root + "/tmp")
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
          f"size={int(tmp_bytes)},nr_inodes=4096,mode=1777")
    for path, is_dir in binds:
        target = root + path
        if is_dir:
            _mkdirs(target)
        else:
            _mkdirs(os.path.dirname(target))
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        mount(path, target, None, MS_BIND)
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID
        if not path.startswith("/dev/"):
            flags |= MS_NODEV
        mount(None, target, None, flags)
    _mkdirs(root + "/proc")
    # hidepid: the jail's init (pid 1, root) is no process of the student's to see; only its own process is.
    mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    os.chdir(root)
    _check(_libc.syscall(SYS_pivot_root, b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


# The jail's two processes. The kernel drops a signal whose action is the default that pid 1 of a pid namespace
# receives from inside it (only SIGKILL and SIGSTOP from an ancestor, and faults, reach it): with the student's code
# running as pid 1, ``os.kill(os.getpid(), signal.SIGTERM)``, libc's kill/raise/tgkill through ctypes, an alarm after a
# SIG_DFL set through ctypes, or a pending signal unblocked, each returned and the code went on, where ``python
# attention.py`` would have ended there (rounds 35-37). Rounds 35/36 wrapped each Python-level sender; round 37 fixes
# the class instead: pid 1 of the namespace is a tiny init that runs no student code (launch), and the student's code
# runs as pid 2, where every default action is the kernel's, as in any process.
_PROT_READ, _PROT_WRITE = 1, 2
_MAP_SHARED, _MAP_ANONYMOUS, _MAP_FIXED_NOREPLACE, _MADV_DONTFORK = 0x01, 0x20, 0x100000, 10


class EndPage:
    """One page shared by the zygote and one jail: the grader's loop's exit code.

    Mapped at a random address (a hint the kernel keeps when it is free: MAP_FIXED_NOREPLACE), not where the kernel
    would put it: the zygote maps one per live jail, so the next free address told a jail how many other jails were
    running, and the hidden tests' session is opened while the visible tests' one still runs. Marked
    MADV_DONTFORK once the jail is forked: no later jail gets it (nor could write another's)."""

    def __init__(self) -> None:
        size = resource.getpagesize()
        _libc.mmap.restype = ctypes.c_void_p
        _libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.c_long]
        for _ in range(8):
            hint = secrets.randbelow(1 << 34) * size + (1 << 44)    # within [16 TiB, 80 TiB): user space
            addr = _libc.mmap(hint, size, _PROT_READ | _PROT_WRITE,
                              _MAP_SHARED | _MAP_ANONYMOUS | _MAP_FIXED_NOREPLACE, -1, 0)
            if addr not in (None, ctypes.c_void_p(-1).value):
                break
        else:   # a smaller address space (a 39-bit arm64 one): where the kernel puts it
            addr = _libc.mmap(None, size, _PROT_READ | _PROT_WRITE, _MAP_SHARED | _MAP_ANONYMOUS, -1, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), "mmap of a jail's end page")
        self.address: int | None = addr
        self.size = size

    # Byte 1: the exit code of the grader's own loop when it ended (run_jail: protocol.SERVE_FAILED_EXIT or
    # INTERRUPTED_EXIT), written just before that exit: a student's ``os._exit(72)`` leaves it 0, and is told as
    # an exit with code 72, not as "a SIGINT between calls" (round 36b).
    def mark_loop_end(self, code: int) -> None:
        if self.address is not None:
            ctypes.c_ubyte.from_address(self.address + 1).value = code & 0xFF

    def loop_end(self) -> int:
        return 0 if self.address is None else ctypes.c_ubyte.from_address(self.address + 1).value

    # Byte 2: 1 when what ended that loop was a refused allocation (a MemoryError, ENOMEM, torch's allocator): the
    # only loop end after which a note on memory rlimits the code lowered is said (mend round 48, review RC HIGH-1).
    # Written by the jail, so only a fact the trusted side reads itself (/proc limits) is ever said with it.
    def mark_loop_out_of_memory(self) -> None:
        if self.address is not None:
            ctypes.c_ubyte.from_address(self.address + 2).value = 1

    def loop_out_of_memory(self) -> bool:
        return self.address is not None and ctypes.c_ubyte.from_address(self.address + 2).value == 1

    def keep_from_later_forks(self) -> None:
        _libc.madvise(ctypes.c_void_p(self.address), ctypes.c_size_t(self.size), _MADV_DONTFORK)

    def close(self) -> None:
        if self.address is not None:
            _libc.munmap(ctypes.c_void_p(self.address), ctypes.c_size_t(self.size))
            self.address = None


_end_page: EndPage | None = None       # this jail's end page (launch)


def reset_inherited_signals() -> None:
    """What the process that started the zygote had ignored or blocked is inherited across exec (a Celery worker, a
    test that ignored SIGQUIT): the jails' signals must not depend on who that was. In the zygote, once; Python's own
    start-up settings (SIGPIPE and SIGXFSZ ignored, SIGINT's KeyboardInterrupt) are kept, as in ``python
    attention.py``."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for s in signal.valid_signals():
        if s not in (signal.SIGPIPE, signal.SIGXFSZ) and signal.getsignal(s) == signal.SIG_IGN:
            signal.signal(s, signal.SIG_DFL)


# The job-control stops: sent to itself, the student's process stops (pid 2 is no init); nobody in a jail would send
# it SIGCONT, so the zygote does (_reap), as the kernel's dropping them at pid 1 did before (tests/grading/
# test_tamper_hostile).
_STOPS = frozenset({signal.SIGSTOP, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU})


def cpu_rlimit(lim: Mapping) -> tuple[int, int]:
    """The (soft, hard) RLIMIT_CPU of a jail of these limits: at the soft one the kernel sends SIGXCPU (and again each
    second past it), at the hard one SIGKILL."""
    cpu = int(math.ceil(float(lim["cpu_rlimit"])))
    return cpu, cpu + 1


def prof_seconds(pid: int) -> float | None:
    """The CPU seconds of process ``pid`` (all its threads) on its PROF clock, the one RLIMIT_CPU counts (the kernel's
    tick-sampled utime + stime), readable while it is a zombie; None when it is gone. /proc/<pid>/stat and wait4's
    rusage (cpu_seconds, the zygote's own check) are scaled to the scheduler's runtime and lag it on a loaded host
    (2.45 s against 3.0 s at a 3 s rlimit, review RE): the rlimit's signal then comes before this side's check."""
    try:
        return time.clock_gettime((~pid << 3) | 0)      # a process's CPUCLOCK_PROF clock id (posix-cpu-timers.h)
    except OSError:
        return None


def session_backstop(lim: dict, wall: float) -> float:
    """How many times its wall limit a session may last when host load takes from it (Jail.wall_over): the job's
    ``wall_backstop``, cut so that it ends by ``wall_hard`` seconds when the job has one (client.Limits.wall_hard: what
    is left of the grading's budget and of the load credit it gives back)."""
    backstop = float(lim.get("wall_backstop", 1.0))
    if "wall_hard" in lim and wall > 0:
        backstop = min(backstop, max(1.0, float(lim["wall_hard"]) / wall))
    return backstop


def _set_rlimits(lim: dict) -> None:
    # RLIMIT_CPU is the executor's, the same for every session (``cpu_rlimit``): the session's own CPU
    # limit, cut to what is left of the grading's budget (the hidden tests' session gets less than the
    # visible tests'), is enforced by this zygote (``Jail.over_cpu``). Set as the rlimit, getrlimit()
    # told a submission which session it was in (20 s for the visible tests, 8 s for the hidden ones).
    resource.setrlimit(resource.RLIMIT_AS, (lim["memory"], lim["memory"]))
    resource.setrlimit(resource.RLIMIT_CPU, cpu_rlimit(lim))
    resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (lim["fsize"], lim["fsize"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (lim["nofile"], lim["nofile"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))


SETUP_FD = 5   # in B: the write end of the setup-error pipe, closed before student code runs


def _prefer_for_oom_kill(pid: int | str = "self") -> None:
    """Make this jail (its process ``pid``) the kernel's first choice when the host runs out of memory. The zygote holds torch and
    scores higher by size alone; a zygote killed mid-grading makes the worker retry the run (a lost zygote is
    the grader's fault), so a submission that drove the host out of memory would be graded again and again
    and end as `error` instead of getting its grade. Raising one's own score needs no privilege."""
    try:
        with open(f"/proc/{pid}/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:    # no /proc (an unusual host): the memory rlimit still bounds the jail
        pass


def run_jail(launched: list) -> None:
    """The jail's student process: pid 2 of its own pid namespace, forked by the zygote (launch) once it had spawned
    the namespace's init (pid 1). Never returns.

    ``launched``: launch's job for it (JAIL_LIMITS and its uid), data socket, output, the zygote's pidfd, the setup
    pipe, binds, root and seccomp program, emptied here: the descriptors' numbers depend on how many jails the
    zygote held (one more beside the visible tests' session), and nothing that differs between sessions is left
    where the student's code can reach it (its frames, gc.get_objects) once it runs (BecomeJail).

    A setup failure is written to the setup pipe, which only the zygote reads and which is closed
    before the student's code starts: the data socket carries nothing but replies, so whatever a
    submission writes there can never pass for a failure of the sandbox (that would end the grading
    as a grader `error` and be retried)."""
    job, data_fd, out_fd, parent_pidfd, setup_fd, binds, root, seccomp = launched
    launched.clear()
    code = 0
    report_fd = setup_fd
    try:
        try:
            os.setsid()
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)     # the zygote's end is its own
            # Python's own SIGINT handler, as in ``python attention.py``: KeyboardInterrupt, which code may catch (the
            # zygote's loop may have had another); SIGCHLD's default and no wakeup fd, the zygote's own (main). The
            # others are inherited (reset_inherited_signals).
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _prefer_for_oom_kill()
            unshare(JAIL_NS_FLAGS)
            os.umask(0o022)
            lim = job["limits"]
            uid = int(job["uid"])
            if not UID_MIN <= uid <= UID_MAX:
                raise ValueError(f"uid {uid} outside {UID_MIN}..{UID_MAX}")
            build_root(root, binds, lim["tmp"])
            _libc.sethostname(b"sandbox", 7)
            # fds: data socket -> 3, output -> 1 and 2, /dev/null -> 0, nothing else.
            hi_data = _fcntl_dup(data_fd)
            hi_out = _fcntl_dup(out_fd)
            hi_pidfd = _fcntl_dup(parent_pidfd)
            hi_setup = _fcntl_dup(setup_fd)
            report_fd = hi_setup
            null = os.open("/dev/null", os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(hi_out, 1)
            os.dup2(hi_out, 2)
            os.dup2(hi_data, 3)
            os.dup2(hi_pidfd, 4)
            os.dup2(hi_setup, SETUP_FD)
            report_fd = SETUP_FD
            os.closerange(SETUP_FD + 1, max(1 << 16, resource.getrlimit(resource.RLIMIT_NOFILE)[0]))
            _set_rlimits(lim)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)      # setresuid cleared it
            r, _, _ = select.select([4], [], [], 0)
            if r:                                         # the zygote already died: nobody would kill us
                os._exit(75)
            os.close(4)
            prctl(PR_SET_NO_NEW_PRIVS, 1)
            seccomp.load()
            os.environ.clear()
            os.environ.update({"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
                               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
            prepare_process()   # stdio, working directory, sys.argv/path/modules, input()
            sock = socket.socket(fileno=3)
            # Every jail forks from the same zygote, hence the same RNG state: seed afresh so that
            # two sessions never share random draws (a dropout left on differs between sessions).
            seed = int.from_bytes(os.urandom(8), "little")
            # The CPU generator itself: torch.manual_seed also queues CUDA/XPU seeding, whose lazy
            # path formats a stack trace and reads source files (~2.5 ms per jail, and nothing of
            # it exists here).
            torch.default_generator.manual_seed(seed)
            random.seed(seed)
            # NumPy's global generator: shared like torch's once a preloaded package (pandas)
            # imported numpy.random here; otherwise its first import in the jail seeds it from
            # the OS (importing it here would cost every jail ~4 ms).
            if "numpy.random" in sys.modules:
                sys.modules["numpy.random"].seed(seed % (1 << 32))
            os.close(SETUP_FD)   # from here on only student-controlled code runs in this process
        except BaseException as e:  # noqa: BLE001
            msg = f"jail setup failed: {type(e).__name__}: {e}"
            try:
                os.write(report_fd, msg[:2000].encode("utf-8", "replace"))
            except BaseException:  # noqa: BLE001
                pass
            os._exit(70)
        try:
            max_message = int(lim["max_message"])
            # nothing that differs between sessions reachable from the student's frames (BecomeJail)
            del job, lim, data_fd, out_fd, parent_pidfd, setup_fd, hi_data, hi_out, hi_pidfd, hi_setup, null, uid, seed
            Runtime().serve(sock, max_message)
        except KeyboardInterrupt:   # a SIGINT between calls: each request's own code catches what it raises
            code = protocol.INTERRUPTED_EXIT
        except BaseException as e:  # noqa: BLE001 - said as such to the trusted side (the exit code and the end page)
            code = protocol.SERVE_FAILED_EXIT
            if _end_page is not None and _refused_allocation(e):
                _end_page.mark_loop_out_of_memory()
        if code and _end_page is not None:
            _end_page.mark_loop_end(code)
    except BaseException:  # noqa: BLE001
        code = 0
    finally:
        os._exit(code)


def _refused_allocation(e: BaseException) -> bool:
    """Whether ``e``, what ended the grader's loop, is a refused allocation: a MemoryError, an OSError with ENOMEM, or
    torch's allocator's RuntimeError ("can't allocate memory"). False if reading it fails (memory may be gone)."""
    try:
        return isinstance(e, MemoryError) or (isinstance(e, OSError) and e.errno == errno.ENOMEM) \
            or (type(e) is RuntimeError and "can't allocate memory" in str(e))
    except BaseException:  # noqa: BLE001 - no memory left to read it, or a property of the code's raised
        return False


def _fcntl_dup(fd: int) -> int:
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 100)


# --------------------------------------------------------------------------- supervision
class Jail:
    """A running jail as the zygote supervises it."""

    def __init__(self, pid: int, lifeline_fd: int, status_fd: int, setup_r: int, wall: float, uid: int,
                 cpu: float = math.inf, backstop: float = 1.0, end_page: EndPage | None = None,
                 init_fd: int | None = None, forked_ns: int = 0, rlimit: tuple[int, int] | None = None):
        self.pid = pid                              # its student process (pid 2 of its namespace), our child
        self.end_page = end_page                    # where the grader's loop marks its own end (run_jail)
        self.init_fd = init_fd                      # our end of its init's stdin: closed, the init (pid 1) exits
        self.uid = uid
        self.cpu = cpu                              # CPU seconds it may use (its session's limit)
        self.rlimit = rlimit                        # its RLIMIT_CPU (soft, hard), set as it started (cpu_rlimit)
        self.prof: float | None = None              # its PROF clock read as a zombie, just before it was reaped
        self.pidfd = os.pidfd_open(pid)
        self.lifeline_fd, self.status_fd, self.setup_r = lifeline_fd, status_fd, setup_r
        self.started, self.wall = time.monotonic(), wall
        self.deadline = self.started + wall        # moved on by the time host load took (wall_over)
        self.hard = self.started + wall * max(1.0, backstop)
        self.credit = 0.0                           # the latest forking.load_credit read, reported at its end
        self.reason: str | None = None            # why it was killed: "closed", "wall", "output" or "cpu"
        self.killed_at: float | None = None       # when (kill)
        self.ended: tuple[int, object] | None = None  # (wait status, rusage) once reaped
        # The ids of its threads this side saw (note_threads): a fault record names the faulting thread's id, the
        # pid only for the main thread's fault; a thread's is said only when seen here, never read off the record.
        self.threads: set[int] = set()
        # CLOCK_MONOTONIC in ns just before its fork: a kernel fork event naming its pid as a thread group is its own
        # only from then on (ThreadWatch; an earlier holder of the pid had ended before the fork could take it).
        self.forked_ns = forked_ns

        # The life of each thread the kernel's events named (ThreadWatch): id -> [its clone, its end or LIFE_OPEN], in
        # CLOCK_MONOTONIC ns. A thread id is the host's, reused once freed (pid_max is 32,768 here: a jail starting
        # and joining threads cycles through it in about a second), so a fault record names one of its threads only
        # if printed within that thread's life (kernel_end).
        self.lives: dict[int, list[int]] = {}
        self.events = 0                 # the kernel's events of its threads read (ThreadWatch.drain)
        self.watched = True             # its events still asked of the kernel (until JAIL_EVENTS_MAX: unwatch)

    def unwatch(self, now_ns: int) -> None:
        """No more of its threads' events (JAIL_EVENTS_MAX was reached): a life whose end is not seen is closed now,
        so no record printed after this counts for its id (the id may be another process's by then); a fault of those
        threads later is said without a cause, as one the kernel did not log."""
        self.watched = False
        for life in self.lives.values():
            if life[1] == LIFE_OPEN:
                life[1] = now_ns

    def add_thread(self, tid: int, cloned_ns: int | None = None) -> None:
        if len(self.threads) < JAIL_THREADS_KEPT:
            self.threads.add(tid)
        if cloned_ns is not None and (tid in self.lives or len(self.lives) < JAIL_THREADS_KEPT):
            self.lives[tid] = [cloned_ns, LIFE_OPEN]     # a later life of an id replaces the earlier one

    def thread_ended(self, tid: int, ended_ns: int) -> None:
        if tid in self.lives:
            self.lives[tid][1] = ended_ns

    def wall_over(self, now: float) -> bool:
        """Its session's wall limit has passed (called once ``deadline`` has): the time its threads
        waited for a CPU that other load held is not counted (forking.load_credit), up to ``hard``, the
        limit times the backstop. At load average 13-20 an honest session's seconds of CPU took several
        times as long, and the wall limit lost the tests a loaded host, not the submission, made slow."""
        if now < self.hard:
            self.credit = max(self.credit, load_credit(self.pid, now - self.started))
            self.deadline = min(self.hard, self.started + self.wall + self.credit)
        return now >= self.deadline

    def over_cpu(self) -> bool:
        """It used its CPU limit: the CPU of all its threads (it can start no process), as the kernel
        counts it for RLIMIT_CPU. One that ended meanwhile is not: its end is reported as such."""
        self.note_threads()
        used = cpu_seconds(self.pid)
        if used is not None:   # the grading's budget gives back what host load took (child.Budget.credit)
            self.credit = max(self.credit, load_credit(self.pid, time.monotonic() - self.started, used))
        return used is not None and used >= self.cpu

    def note_threads(self) -> None:
        """Add the ids of its live threads (/proc/<pid>/task, ~15 us) to ``threads``: read at every CPU check, so a
        thread that lived a check's interval (CPU_CHECK_S) is known. At most JAIL_THREADS_KEPT (its RLIMIT_NPROC bounds
        the live ones; ids of ended threads are kept, and a jail starting threads without end stops adding)."""
        if len(self.threads) >= JAIL_THREADS_KEPT:
            return
        try:
            seen = os.listdir(f"/proc/{self.pid}/task")
        except OSError:
            return
        for tid in seen:
            if tid.isdigit():
                self.add_thread(int(tid))

    def kill(self, reason: str) -> None:
        if self.reason is None:
            if self.ended is not None or select.select([self.pidfd], [], [], 0)[0]:
                # It had ended already (a jail that died closes its data socket, and the trusted side closes the
                # session, often before this side has seen the end): nothing is sent, and its end is reported as
                # it was, not as this side's kill (a SIGKILL said as the grader's that was not).
                return
            self.killed_at = time.monotonic()
            if _exiting(self.pid):
                return      # ending by itself (its data socket closes before it is a zombie): its end is its own
            self.reason = reason
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def rlimit_ended(self, wstatus: int) -> bool:
        """Whether its RLIMIT_CPU ended it: SIGXCPU with its PROF clock (``prof``) at the soft limit or past it, SIGKILL
        at the hard one (a SIGXCPU handled or ignored). A SIGXCPU or SIGKILL it sent itself before using that much
        CPU is not (nor one after an rlimit it lowered itself: that ends it before the clock reaches ours)."""
        if self.rlimit is None or self.prof is None or not os.WIFSIGNALED(wstatus):
            return False
        sig = os.WTERMSIG(wstatus)
        limit = {signal.SIGXCPU: self.rlimit[0], signal.SIGKILL: self.rlimit[1]}.get(sig)
        return limit is not None and self.prof >= limit - PROF_SLACK_S

    def finish(self) -> None:
        """Report the ended jail on its status pipe and let go of it."""
        if self.init_fd is not None:      # its init (pid 1) exits at the pipe's end, tearing the namespace down
            os.close(self.init_fd)
            self.init_fd = None
        if self.ended is None:
            self.prof = prof_seconds(self.pid)   # a zombie now (its pidfd was readable): read before it is reaped
            _, wstatus, ru = os.wait4(self.pid, 0)
        else:
            wstatus, ru = self.ended
        status: dict = {"status": self.reason or "exited", "cpu": round(ru.ru_utime + ru.ru_stime, 3),
                        "maxrss_kib": ru.ru_maxrss, "credit": round(self.credit, 3)}
        rlimit = self.reason is None and self.rlimit_ended(wstatus)
        if rlimit:
            # Its CPU limit, as the kernel's rlimit counts it, came before this side's check (over_cpu, every
            # CPU_CHECK_S, on the scheduler's clock): said as the limit, with the seconds the rlimit counted.
            status.update(status="cpu", cpu=round(max(status["cpu"], self.prof or 0.0), 3))
        try:
            setup_error = os.read(self.setup_r, 4096)   # the jail has ended: every write end is closed
        except OSError:
            setup_error = b""
        if setup_error:
            status.update(status="setup_failed", reason=setup_error.decode("utf-8", "replace"))
        if os.WIFEXITED(wstatus):
            status["exit_code"] = os.WEXITSTATUS(wstatus)
        elif os.WIFSIGNALED(wstatus):
            status["signal"] = os.WTERMSIG(wstatus)
            # Who ended it, when the kernel says so: only for an end the wait status leaves open (a SIGKILL this side
            # did not send, a fault signal), so an honest session's end reads nothing more.
            if (status["signal"] == signal.SIGKILL and self.reason is None and not rlimit) \
                    or status["signal"] in FAULT_SIGNALS:
                seen = kernel_end(self.pid, self.started, threads=frozenset(self.threads),
                                  lives={t: (a, b) for t, (a, b) in self.lives.items()})
                if seen is not None:
                    status["kernel"] = seen
        if (os.WIFEXITED(wstatus) and self.end_page is not None
                and self.end_page.loop_end() == os.WEXITSTATUS(wstatus) != 0):
            status["loop_end"] = True    # the grader's loop ended the jail (run_jail), not the student's exit
            if self.end_page.loop_out_of_memory():
                status["loop_out_of_memory"] = True
        if self.end_page is not None:
            self.end_page.close()
        _report(self.status_fd, status)
        for fd in (self.init_fd, self.pidfd, self.lifeline_fd, self.status_fd, self.setup_r):
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass


# The kernel's own record of every thread a jail starts: the proc connector's fork events (drivers/connector/cn_proc.c),
# sent by the kernel as a task is cloned, each naming the new task's id and its thread group's (host ids). A thread that
# starts and faults between two CPU checks (Jail.note_threads, every CPU_CHECK_S) was never in /proc when read; its fork
# event was, queued on this socket before the thread ran a single instruction of its own. Nothing the jail writes
# reaches it (a netlink multicast only the kernel sends, checked: the sender's port is the kernel's, 0; the jail has no
# socket but AF_UNIX). The kernel takes a listen request only from root in the host's user and pid namespaces, on a
# socket in the host's network namespace, and its events name host ids: in a pid namespace of the zygote's own they
# would be matched against ids of another numbering, so there is no watch there (nor in another user namespace). The
# request asks for fork and exit events alone since Linux 6.6 (struct proc_input); an older kernel takes only the
# bare 4-byte operation (any other length is dropped, and nothing would be sent) and sends every event, which drain
# skips. Asked for only while a jail lives (ThreadWatch.listen), and filtered by the kernel to the live jails' thread
# groups (ThreadWatch.follow, round 41): before it every thread the host started was an event, read at ~2.3 us each.
# Where events are lost (ENOBUFS under a fork storm, more than a turn's DRAIN_MAX) only what the CPU checks saw is
# known. Exit events end a thread's life (Jail.lives): its id may be the host's next process's.
_NETLINK_CONNECTOR, _CN_IDX_PROC, _CN_VAL_PROC = 11, 1, 1
_PROC_CN_MCAST_LISTEN, _PROC_CN_MCAST_IGNORE, _PROC_EVENT_FORK, _PROC_EVENT_EXIT = 1, 2, 0x1, 0x80000000
_NLMSG_DONE = 3
_CN_EVENT = 16 + 20         # nlmsghdr, then cn_msg's header: the proc_event starts here
# what, cpu, timestamp_ns (CLOCK_MONOTONIC), then a fork's parent pid/tgid and child pid/tgid, or an exit's pid/tgid
_EVENT = struct.Struct("=IIQIIII")
THREAD_WATCH_RCVBUF = 8 << 20   # ~10,000 events (~830 bytes each as the kernel counts) between two reads
DRAIN_MAX = THREAD_WATCH_RCVBUF // 830    # events read in one turn of the loop: a host's fork storm costs it ~25 ms
_PID_INIT_INO, _USER_INIT_INO = 0xEFFFFFFC, 0xEFFFFFFD   # include/linux/proc_ns.h: the host's namespaces
_FILTERED_SINCE = (6, 6)    # the kernel that takes an event-type filter with the request (struct proc_input)
# The socket's own filter (classic BPF, SO_ATTACH_FILTER; netlink runs it on every multicast, in the sending task's
# context, before the message is queued): only fork events whose new task is of a followed jail's thread group and exit
# events of such a thread are queued, so the host's other threads (and a jail past JAIL_EVENTS_MAX) cost the zygote
# nothing. A word load of BPF reads big-endian; the event's fields are the host's order, so the compared ids are
# swapped.
_SO_ATTACH_FILTER, _SO_DETACH_FILTER = 26, 27
_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_RET_K = 0x20, 0x15, 0x06
_EV_WHAT, _EV_FORK_TGID, _EV_EXIT_TGID = _CN_EVENT, _CN_EVENT + 28, _CN_EVENT + 20   # offsets in the message
_FOLLOW_MAX = 100           # ids one filter compares (a jump reaches 255 instructions): more, and every event is read


def _be(v: int) -> int:
    return struct.unpack(">I", struct.pack("=I", v & 0xFFFFFFFF))[0]


def follow_program(pids: list[int] | None) -> bytes:
    """The filter that queues the fork and exit events of thread groups ``pids`` only (None: every message)."""
    def ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
        return struct.pack("=HBBI", code, jt, jf, k)

    if pids is None or len(pids) > _FOLLOW_MAX:
        return ins(_BPF_RET_K, 0xFFFFFFFF)
    n = len(pids)
    # 0 what; 1 fork? else to 4+n; 2 its tgid; 3.. one per id, to accept; 3+n drop; 4+n exit? else drop; 5+n its
    # tgid; 6+n.. one per id, to accept; 6+2n drop; 7+2n accept
    prog = [ins(_BPF_LD_W_ABS, _EV_WHAT), ins(_BPF_JEQ_K, _be(_PROC_EVENT_FORK), 0, n + 2),
            ins(_BPF_LD_W_ABS, _EV_FORK_TGID)]
    prog += [ins(_BPF_JEQ_K, _be(pid), 7 + 2 * n - (3 + i) - 1, 0) for i, pid in enumerate(pids)]
    prog += [ins(_BPF_RET_K, 0), ins(_BPF_JEQ_K, _be(_PROC_EVENT_EXIT), 0, n + 1), ins(_BPF_LD_W_ABS, _EV_EXIT_TGID)]
    prog += [ins(_BPF_JEQ_K, _be(pid), 7 + 2 * n - (6 + n + i) - 1, 0) for i, pid in enumerate(pids)]
    prog += [ins(_BPF_RET_K, 0), ins(_BPF_RET_K, 0xFFFFFFFF)]
    return b"".join(prog)


def _kernel_version(release: str) -> tuple[int, int]:
    """(major, minor) of a kernel release string ("6.18.44-fc-v1300"), (0, 0) when unreadable."""
    try:
        major, minor = release.split(".")[:2]
        return int(major), int("".join(c for c in minor if c.isdigit()) or "0")
    except ValueError:
        return 0, 0


def listen_request(op: int, release: str) -> bytes:
    """The proc connector's multicast request ``op`` (listen or ignore) as the running kernel (``release``) takes it."""
    if _kernel_version(release) >= _FILTERED_SINCE:
        body = struct.pack("=II", op, _PROC_EVENT_FORK | _PROC_EVENT_EXIT if op == _PROC_CN_MCAST_LISTEN else 0)
    else:
        body = struct.pack("=I", op)         # pre-6.6: exactly sizeof(enum proc_cn_mcast_op), unfiltered
    cn_msg = struct.pack("=IIIIHH", _CN_IDX_PROC, _CN_VAL_PROC, 0, 0, len(body), 0) + body
    return struct.pack("=IHHII", 16 + len(cn_msg), _NLMSG_DONE, 0, 0, 0) + cn_msg


def in_host_namespaces(pid_ns: str = "/proc/self/ns/pid", user_ns: str = "/proc/self/ns/user") -> bool:
    """Whether this process is in the host's pid and user namespaces, where the kernel takes a proc connector request
    and its events' ids are this process's own."""
    try:
        return os.stat(pid_ns).st_ino == _PID_INIT_INO and os.stat(user_ns).st_ino == _USER_INIT_INO
    except OSError:
        return False


_SOL_NETLINK, _NETLINK_ADD_MEMBERSHIP, _NETLINK_DROP_MEMBERSHIP = 270, 1, 2   # linux/netlink.h


def _set_membership(fd: int, op: int) -> None:
    sock = socket.socket(fileno=fd)
    try:
        sock.setsockopt(_SOL_NETLINK, op, _CN_IDX_PROC)
    finally:
        sock.detach()


class ThreadWatch:
    """The kernel's fork events, read into the live jails' ``threads`` (:meth:`drain`) while :meth:`listen` asks."""

    def __init__(self) -> None:
        # A bare descriptor, no socket object: a jail closes it by number at its fork (launch's ``held``), and no
        # finalizer of an object its frames dropped closes that number again once it names another file.
        self.fd: int | None = None
        self.listening = False
        self.following: tuple[int, ...] | None = None    # the thread groups the socket's filter queues (None: all)
        # Why there is no watch (None: there is one): told once at the executor's start (client.Executor), so a
        # deployment where it never applies (docker-compose: the worker's own pid namespace) says so.
        self.off: str | None = None
        if not in_host_namespaces():
            self.off = ("not in the host's pid and user namespaces (the kernel takes no proc connector request there, "
                        "and its events would name host ids)")
            return
        try:
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_CONNECTOR)
        except OSError as e:
            self.off = f"no proc connector socket: {e}"
            return
        try:
            sock.setblocking(False)
            try:
                sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, THREAD_WATCH_RCVBUF)
            except OSError:
                pass
            sock.bind((0, 0))       # in no group: nothing is delivered until listen() joins it
        except OSError as e:
            sock.close()
            self.off = f"the proc connector socket could not be bound: {e}"
            return
        self.fd = sock.detach()

    def fileno(self) -> int | None:
        return self.fd

    def listen(self, on: bool) -> None:
        """Ask the kernel for its events (before a jail is forked: they are queued from the request's return on), or
        withdraw the request (no jail lives: the host's threads cost nothing then). A watch the kernel refuses is
        closed: only what the CPU checks see is known."""
        if self.fd is None or on == self.listening:
            return
        try:
            # The group's membership decides what reaches this socket on every kernel (another process's request
            # makes the kernel send to all members; a socket that made none gets them unfiltered); the request
            # decides whether the kernel sends at all (its count of listeners).
            if on:
                _set_membership(self.fd, _NETLINK_ADD_MEMBERSHIP)
            os.write(self.fd, listen_request(_PROC_CN_MCAST_LISTEN if on else _PROC_CN_MCAST_IGNORE,
                                             os.uname().release))
            if not on:
                _set_membership(self.fd, _NETLINK_DROP_MEMBERSHIP)
        except OSError as e:
            self.listening = on     # withdrawn at close if it was asked
            self.close()
            self.off = f"the kernel refused the proc connector request: {e}"
            return
        self.listening = on

    def follow(self, pids: list[int] | None) -> None:
        """Queue only the events of these thread groups from now on (None: every event, as while a jail is forked and
        its pid not yet known). A filter the kernel refuses leaves every event queued, as before it."""
        key = None if pids is None else tuple(sorted(pids))
        if self.fd is None or key == self.following:
            return
        code = follow_program(None if key is None else list(key))
        buf = ctypes.create_string_buffer(code, len(code))
        prog = _SockFprog(len(code) // 8, ctypes.addressof(buf))
        sock = socket.socket(fileno=self.fd)
        try:
            sock.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, bytes(prog))
            self.following = key
        except OSError:
            # a refused filter leaves the old one in the kernel (mend 41, LOW 8): dropped, so every event is queued,
            # as following = None says
            try:
                sock.setsockopt(socket.SOL_SOCKET, _SO_DETACH_FILTER, 0)
            except OSError:
                pass        # none was attached (ENOENT)
            self.following = None
        finally:
            sock.detach()

    def before_fork(self) -> None:
        """Listen, queueing every event: the new jail's pid is not known until its fork returns, and the filter still
        follows the jails before it (none, after the last one ended), which would drop the first events of its
        threads; the next follow of the live jails narrows it again."""
        self.listen(True)
        self.follow(None)

    def drain(self, jails: dict[int, Jail], most: int = DRAIN_MAX) -> None:
        """Read the queued events, at most ``most``; a new thread (not a process: its id is not its group's) of a live
        jail's process, cloned after that jail's fork, is added to its ``threads`` and ``lives``; a known thread's exit
        ends its life. Only the kernel's (sender port 0)."""
        if self.fd is None:
            return
        by_pid = {j.pid: j for j in jails.values() if j.watched}
        sock = socket.socket(fileno=self.fd)     # for recvfrom's sender; detached below, never closing the fd
        try:
            for _ in range(most):
                try:
                    data, (port, _) = sock.recvfrom(256)
                except (BlockingIOError, InterruptedError):
                    return
                except OSError as e:
                    if e.errno == errno.ENOBUFS:    # events were dropped: what the CPU checks saw still counts
                        continue
                    return
                if port != 0 or len(data) < _CN_EVENT + _EVENT.size:
                    continue
                what, _, stamp, a, b, tid, tgid = _EVENT.unpack_from(data, _CN_EVENT)
                j = by_pid.get(b if what == _PROC_EVENT_EXIT else tgid)
                if j is None or not j.watched:
                    continue
                if what == _PROC_EVENT_EXIT:
                    j.thread_ended(a, stamp)
                elif what == _PROC_EVENT_FORK and tid != tgid and stamp >= j.forked_ns:
                    j.add_thread(tid, stamp)
                else:
                    continue
                j.events += 1
                if j.events >= JAIL_EVENTS_MAX:
                    j.unwatch(stamp)
        finally:
            sock.detach()
            self.follow([j.pid for j in jails.values() if j.watched])

    def close(self) -> None:
        if self.fd is not None:
            if self.listening:     # a request never withdrawn keeps the kernel's count of listeners up
                try:
                    os.write(self.fd, listen_request(_PROC_CN_MCAST_IGNORE, os.uname().release))
                except OSError:
                    pass
                self.listening = False
            os.close(self.fd)
            self.fd = None


# The signals a fault of the process's own code raises (a bad memory access, instruction or division).
FAULT_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE})
# What the kernel logs (/dev/kmsg) as it ends a process itself, each naming its victim's host pid (or the faulting
# thread's id; the main thread's is the pid). The OOM killer: "Out of memory: Killed process 123 (ag-jail) ..." or
# "Memory cgroup out of memory: Killed process ..." (mm/oom_kill.c; its message is one of three fixed strings and the
# pid comes before the name). An unhandled fault: "ag-jail[123]: segfault at 0 ip ..." (arch/x86/mm/fault.c) or
# "traps: ag-jail[123] general protection fault ip:..." / "traps: ag-jail[123] trap divide error ip:..."
# (arch/x86/kernel/traps.c). The name (comm) is the student's to set (up to 15 bytes, any bytes but NUL) and, since
# 6.18, the line also ends with the base name of the file the faulting ip lies in (" in x[9]: segfault at [...]"),
# also the student's: so a record is parsed from its start, the pid being the first "[<pid>]" that starts within
# 15 bytes of the name's start and is followed by the kernel's own wording. Text a name could hold is shorter than
# that wording (17 bytes for a segfault, 27 for a trap), so a forged one would run into the real "[<pid>]".
_OOM_LINE = re.compile(rb"(?P<why>Out of memory|Memory cgroup out of memory|Out of memory \(oom_kill_allocating_task\))"
                       rb": Killed process (?P<pid>\d+) \(")
_SEGFAULT = re.compile(rb"\[(?P<pid>\d+)\]: segfault at [0-9a-f]+ ip ")
_TRAP = re.compile(rb"\[(?P<pid>\d+)\] (?:general protection fault|trap [^\[\]:]+?) ip:[0-9a-f]+ sp:[0-9a-f]+ error:")
_TRAPS = b"traps: "
_COMM_MAX = 15                      # TASK_COMM_LEN - 1
_KMSG_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")   # /dev/kmsg writes a byte < 0x20, >= 0x7f or a backslash as \xNN
KMSG = "/dev/kmsg"
# How much of the log one jail's end may read: the zygote reads it inline in its only loop. Measured at ~6 us a record
# (review RA, round 38), so 20,000 records cost ~0.12 s; past the bound the end is said without a cause, as for a
# line the ring dropped. Records are read oldest first: on a ring longer than this the jail's own may not be reached.
KMSG_MAX_RECORDS = 20_000
# The slack before a jail's start from which records count: the log's clock is CLOCK_MONOTONIC (to the ms), so a few
# ms cover rounding; a second (as before) let a previous holder of the same pid count.
KMSG_SLACK_S = 0.005


def _fault_pid(text: bytes) -> int | None:
    """The pid a fault record names, read as the kernel writes it (see above), else None."""
    if text.startswith(_TRAPS):
        text, line = text[len(_TRAPS):], _TRAP
    else:
        line = _SEGFAULT
    for start in range(min(len(text), _COMM_MAX + 1)):
        if text[start:start + 1] == b"[":
            m = line.match(text, start)
            if m is not None:
                return int(m.group("pid"))
    return None


def kernel_record_end(text: bytes) -> tuple[str, int] | None:
    """What one kernel record (its text, as /dev/kmsg gives it) says of a process's end: ("oom" | "oom_cgroup" |
    "fault", pid), else None."""
    text = _KMSG_ESCAPE.sub(lambda m: bytes.fromhex(m.group(1).decode()), text)
    m = _OOM_LINE.match(text)
    if m is not None:
        return ("oom_cgroup" if b"cgroup" in m.group("why") else "oom"), int(m.group("pid"))
    pid = _fault_pid(text)
    return None if pid is None else ("fault", pid)


def kernel_end(pid: int, since: float, kmsg: str = KMSG, max_records: int = KMSG_MAX_RECORDS,
               threads: frozenset[int] = frozenset(), lives: Mapping[int, tuple[int, int]] | None = None) -> str | None:
    """How the kernel says it ended process ``pid`` (started at ``since``, time.monotonic), from its log: "oom" (the
    machine ran out of memory), "oom_cgroup" (the memory limit of its cgroup was reached) or "fault" (an unhandled
    fault of its code, which the kernel logs only when no handler took the signal), else None: nothing logged for
    it (a signal it sent itself, another sender, a log the rate limit or the ring dropped, no /dev/kmsg to read,
    more than ``max_records`` records to read). ``threads``: ids of its other threads the caller saw (Jail.threads),
    whose fault records count as its own; an OOM record names the process, so its pid only. ``lives``: the lives of
    threads the kernel's events named (Jail.lives, CLOCK_MONOTONIC ns): a record of one of those ids counts only when
    printed within that life, give or take KMSG_SLACK_S (the log's clock is the scheduler's, to the microsecond; the
    host's ~32,768 ids take far longer than that to come round to the same one).

    Per-jail evidence, unlike the host's or a cgroup's OOM counts, which other processes move too (round 35). Read
    only when a jail's end leaves the question open (Jail.finish): ~6 us a record, bounded by ``max_records``."""
    try:
        fd = os.open(kmsg, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    found = None
    earliest = (since - KMSG_SLACK_S) * 1e6   # the log's clock is the monotonic one in microseconds
    slack = KMSG_SLACK_S * 1e6
    lives = lives or {}
    try:
        for _ in range(max_records):
            try:
                record = os.read(fd, 8192)
            except BlockingIOError:
                break
            except BrokenPipeError:    # records overwritten while reading: go on with the next one
                continue
            except OSError:
                break
            if not record:
                break
            head, _, text = record.partition(b";")
            fields = head.split(b",")
            try:
                # the kernel's own records only (facility 0): a line written to /dev/kmsg by a process is "user"
                if len(fields) < 3 or int(fields[0]) >> 3 != 0 or int(fields[2]) < earliest:
                    continue
            except ValueError:
                continue
            said = kernel_record_end(text.split(b"\n", 1)[0])
            if said is not None and said[1] != pid and said[1] in lives:
                cloned, ended = lives[said[1]]
                if not cloned / 1e3 - slack <= int(fields[2]) <= ended / 1e3 + slack:
                    continue     # an earlier or later holder of the thread's id
            if said is not None and (said[1] == pid or (said[0] == "fault" and said[1] in (threads | lives.keys()))) \
                    and (found is None or said[0] != "fault"):
                found = said[0]    # an OOM kill is said over a fault line of the same pid
        else:
            found = None            # the bound was reached before the log's end: the newest records were not read
    finally:
        os.close(fd)
    return found


_PF_EXITING = 0x4   # include/linux/sched.h: set as a process starts to exit, before its descriptors are closed


def _exiting(pid: int) -> bool:
    """Whether process ``pid`` is exiting (or gone): its flags in /proc/<pid>/stat (the ninth field)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        return bool(int(fields[6]) & _PF_EXITING)
    except (OSError, ValueError, IndexError):
        return True


def _report(status_fd: int, status: dict) -> None:
    try:
        os.write(status_fd, (json.dumps(status) + "\n").encode())
    except OSError:
        pass


# The limits a jail is given (_set_rlimits, Runtime.serve): each the executor's, the same for all its sessions.
JAIL_LIMITS = ("memory", "cpu_rlimit", "fsize", "nofile", "tmp", "nproc", "max_message")


class BecomeJail(BaseException):
    """Raised in a jail just forked, out of :func:`launch` and the zygote's loop, up to :func:`start`, which runs
    :func:`run_jail` with these arguments. Unwinding drops the zygote's frames and all they held: the job as
    received, the other live jails (``main``'s ``jails``: their limits, deadlines and number), the last message;
    called from ``launch``, run_jail was below them and a submission reached them through ``sys._getframe``
    (/tmp/R1/leak1.py, round 35). A BaseException: no ``except Exception`` of the zygote's catches it."""


def launch(job: dict, fds: list[int], own_pidns: int, ctrl: socket.socket, binds, root: str,
           seccomp: SeccompProgram, held: list[int] = (), live_uids: list[int] = (),
           init_program: str = "/bin/cat") -> Jail | None:
    """Fork one jail for ``job``; ``fds`` are its data socket, lifeline, output and status pipe.
    The zygote keeps the lifeline and the status pipe; None when no jail could be started (the
    reason is on the status pipe). ``held``: the fds the zygote holds for other jails, closed in
    the new jail at once (it closes every other fd before student code runs anyway).
    ``job["uids"]`` are the executor's uids; the jail gets one of them that no live jail has
    (``live_uids``), see :func:`jail_uid`. ``init_program``: the jail's pid 1 (:func:`_init_program`)."""
    data_fd, lifeline_fd, out_fd, status_fd = fds
    try:
        wall = float(job["limits"]["wall"])
        cpu = float(job["limits"]["cpu"])
        backstop = session_backstop(job["limits"], wall)
        uids = [int(u) for u in job["uids"]]
        for u in uids or [None]:
            if u is None or not UID_MIN <= u <= UID_MAX:
                raise ValueError(f"uid {u} outside {UID_MIN}..{UID_MAX}")
        uid = jail_uid(uids, list(live_uids))
        # What the jail gets of the job: nothing that differs between sessions of the same executor. The session's
        # CPU and wall limits are the zygote's to enforce (Jail); in the jail, a file walking the stack to run_jail
        # read job["limits"] (cpu 20.0 for the visible tests, 8.0 for the hidden ones: round 35).
        jail_job = {"uid": uid, "limits": {k: job["limits"][k] for k in JAIL_LIMITS}}
        rlimit = cpu_rlimit(jail_job["limits"])
    except (KeyError, TypeError, ValueError) as e:
        _report(status_fd, {"status": "setup_failed", "reason": f"jail setup failed: {type(e).__name__}: {e}"})
        for fd in fds:
            os.close(fd)
        return None
    global _end_page
    opened: list[int] = []
    init = -1
    try:
        _end_page = EndPage()          # shared with the jail forked next, and with no other
        setup_r, setup_w = os.pipe()
        opened += [setup_r, setup_w]
        parent_pidfd = os.pidfd_open(os.getpid())
        opened.append(parent_pidfd)
        hold_r, hold_w = os.pipe()            # the init's stdin: it exits at this pipe's end (Jail.finish, our end)
        opened += [hold_r, hold_w]
        unshare(CLONE_NEWPID)                 # the next child is pid 1 of a new pid namespace, the one after pid 2
        try:
            # A vfork and exec: no copy of this torch-sized process's page tables (a fork here cost ~15 ms of CPU per
            # grading). Its own session: a terminal's ^C does not reach it. Every other descriptor of ours is
            # close-on-exec (main).
            init = os.posix_spawn(init_program, ["ag-jail-init"], {}, setsid=True, file_actions=[
                (os.POSIX_SPAWN_DUP2, hold_r, 0), (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, 1, 2)])
        except OSError:
            _setns_back(own_pidns)
            raise
    except OSError as e:                      # out of fds, or namespaces refused
        _report(status_fd, {"status": "setup_failed", "reason": f"jail setup failed: {e}"})
        for fd in (*fds, *opened):
            os.close(fd)
        if _end_page is not None:
            _end_page.close()
        _end_page = None
        return None
    forked_ns = time.monotonic_ns()
    try:
        pid = os.fork()
    except OSError as e:
        pid = -1
        fork_error = e
    if pid == 0:  # ------------------------------------------------------------ the jail's student process, pid 2
        name_process("ag-jail")
        ctrl.close()
        for fd in (lifeline_fd, status_fd, setup_r, hold_r, hold_w, own_pidns, *held):
            try:
                os.close(fd)
            except OSError:
                pass
        raise BecomeJail(jail_job, data_fd, out_fd, parent_pidfd, setup_w, binds, root, seccomp)
    _setns_back(own_pidns)
    _prefer_for_oom_kill(init)   # as much the jail as its student process: killed, it ends the namespace
    for fd in (setup_w, parent_pidfd, data_fd, out_fd, hold_r):
        os.close(fd)
    end_page, _end_page = _end_page, None
    if pid > 0:          # the jails forked later do not get it
        end_page.keep_from_later_forks()
    else:
        end_page.close()
    if pid < 0:
        _report(status_fd, {"status": "setup_failed", "reason": f"fork failed: {fork_error}"})
        for fd in (lifeline_fd, status_fd, setup_r, hold_w):     # hold_w: the init exits (and is reaped: _reap)
            os.close(fd)
        return None
    try:
        jail = Jail(pid, lifeline_fd, status_fd, setup_r, wall, uid, cpu, backstop, end_page, hold_w, forked_ns,
                    rlimit=rlimit)
        # The student process's pid, first on the status pipe: the trusted side reads what its threads do
        # (/proc) while it waits for a reply, and stops a jail that sleeps there (client.IdleWatch).
        _report(status_fd, {"pid": jail.pid})
        return jail
    except OSError as e:                      # no pidfd: a jail nobody watches must not run
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        end_page.close()
        _report(status_fd, {"status": "setup_failed", "reason": f"jail setup failed: {e}"})
        for fd in (lifeline_fd, status_fd, setup_r, hold_w):
            os.close(fd)
        return None


def _setns_back(own_pidns: int) -> None:
    """Back to this process's own pid namespace for its next children; a zygote that cannot is of no further use
    (every later jail would share one namespace): it ends, the client reports it."""
    if _libc.setns(own_pidns, CLONE_NEWPID) != 0:
        os.write(2, f"setns back to the zygote's pid namespace failed: {os.strerror(ctypes.get_errno())}\n".encode())
        os._exit(1)


def _init_program(base: str) -> str:
    """The program each jail's pid 1 runs: ``cat`` (it reads its stdin, a pipe only the zygote writes, and exits at
    its end), by a link named ``ag-jail-init`` in the jail's mount point's parent, so ``ps`` names it (a process's
    name is its program file's). It needs no reaping of its own: the student's process, the namespace's only other
    one, is the zygote's child, and cannot fork (seccomp)."""
    cat = next(p for p in ("/usr/bin/cat", "/bin/cat") if os.access(p, os.X_OK))
    link = os.path.join(base, "ag-jail-init")
    if not (os.path.islink(link) and os.readlink(link) == cat):
        tmp = f"{link}.{os.getpid()}"
        os.symlink(cat, tmp)
        os.replace(tmp, link)
    return link


# --------------------------------------------------------------------------- zygote main
def probe() -> str | None:
    """None if this host can build jails, else the reason it cannot."""
    if os.geteuid() != 0:
        return f"the sandbox must be started as root (euid is {os.geteuid()})"
    pid = os.fork()
    if pid == 0:
        try:
            unshare(NS_FLAGS)
            seccomp_filter()
            os._exit(0)
        except BaseException:  # noqa: BLE001
            os._exit(1)
    _, st = os.waitpid(pid, 0)
    if not (os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0):
        return "unshare(NEWNS|NEWPID|NEWNET|NEWIPC|NEWUTS) or seccomp setup failed on this host"
    return None


def _drain(fd: int) -> bytes:
    """What is waiting on a lifeline (empty at its end)."""
    try:
        return os.read(fd, 64)
    except OSError:
        return b""


def _reap(jails: dict[int, Jail]) -> None:
    """Reap every ended child (the jails' student processes and inits); a jail's wait status is kept for its report.
    A student process that stopped itself is resumed (_STOPS); its pid stays its own while it is unreaped."""
    by_pid = {j.pid: j for j in jails.values()}
    while True:
        # Seen first, not reaped: a jail's PROF clock is read on its zombie (Jail.rlimit_ended), gone once reaped.
        try:
            seen = os.waitid(os.P_ALL, 0, os.WEXITED | os.WSTOPPED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if seen is None:
            return
        if seen.si_pid in by_pid and seen.si_code in (os.CLD_EXITED, os.CLD_KILLED, os.CLD_DUMPED):
            by_pid[seen.si_pid].prof = prof_seconds(seen.si_pid)
        try:
            pid, wstatus, ru = os.wait4(seen.si_pid, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if os.WIFSTOPPED(wstatus):
            if pid in by_pid and os.WSTOPSIG(wstatus) in _STOPS:
                os.kill(pid, signal.SIGCONT)
            continue
        if pid in by_pid:
            by_pid[pid].ended = (wstatus, ru)


def preload(names: list[str]) -> None:
    """Import the packages the assignments let students use, once, here: every jail inherits them
    (a pandas import costs ~0.3 s of CPU in each jail otherwise). Before any fork and before
    seccomp; nothing of the project is imported by them."""
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - not installed: the student's import fails in the jail instead
            traceback.print_exc()


def main() -> None:
    ctrl = socket.socket(fileno=int(sys.argv[1]))
    preload([str(n) for n in json.loads(sys.argv[2])] if len(sys.argv) > 2 else [])
    me = os.getpid()
    jails: dict[int, Jail] = {}               # by pidfd
    watch = ThreadWatch()                     # the kernel's record of the jails' threads (closed in every jail)
    try:
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        reason = probe()
        binds = compute_binds() if reason is None else []
        root = _jail_mountpoint() if reason is None else ""
        own_pidns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        ctrl.set_inheritable(False)       # nothing of ours reaches a jail's init (posix_spawn: launch)
        seccomp = SeccompProgram() if reason is None else None
        init_program = _init_program(os.path.dirname(root)) if reason is None else ""
        reset_inherited_signals()
        # A student process that stops itself (SIGSTOP, SIGTSTP...) is resumed at once (_reap): its SIGCHLD wakes the
        # loop's select through this pipe. A jail puts SIGCHLD's default back (run_jail).
        chld_r, chld_w = os.pipe()
        os.set_blocking(chld_w, False)
        os.set_blocking(chld_r, False)
        signal.signal(signal.SIGCHLD, lambda _s, _f: None)
        signal.set_wakeup_fd(chld_w, warn_on_full_buffer=False)
        if reason is None:   # what launch() does for every jail, tried once here
            watch.listen(True)   # a request the kernel refuses closes the watch, and is told at the start (off)
            watch.listen(False)
            unshare(CLONE_NEWPID)
            _check(_libc.setns(own_pidns, CLONE_NEWPID), "setns back to the zygote's pid namespace")
    except BaseException as e:  # noqa: BLE001
        reason = f"{type(e).__name__}: {e}"
    before_forks()        # what each jail drops from sys (computed once, here)
    prepare_for_forks()   # after everything this process imports and warms: jails fork from here
    ctrl.send(json.dumps({"ready": reason is None, "reason": reason, "pid": me,
                          "binds": [b[0] for b in binds] if reason is None else [],
                          "thread_watch_off": watch.off}).encode())
    if reason is not None:
        return
    while True:
        now = time.monotonic()
        # Every CPU_CHECK_S while a jail runs: its CPU is read against its session's limit.
        wait = min([0.25 if not jails else CPU_CHECK_S,
                    *(max(0.0, j.deadline - now) for j in jails.values() if j.reason is None)])
        # A killed jail's lifeline stays readable: only its end is awaited then.
        watched = [ctrl.fileno(), chld_r] + [j.pidfd for j in jails.values()] \
            + [j.lifeline_fd for j in jails.values() if j.killed_at is None]
        r, _, _ = select.select(watched, [], [], wait)
        ready = set(r)
        now = time.monotonic()
        if chld_r in ready:
            _drain(chld_r)
        # Before any jail's end is told: the events of its threads were queued before they ran (ThreadWatch). Not
        # waited on: every fork of the host would wake the loop; it wakes each CPU_CHECK_S while a jail runs, and the
        # socket's buffer (THREAD_WATCH_RCVBUF) holds ~10,000 events.
        watch.drain(jails)
        _reap(jails)
        for key, j in list(jails.items()):
            try:
                if j.pidfd in ready or j.ended is not None:
                    del jails[key]
                    j.finish()
                elif j.killed_at is not None:
                    pass       # killed: only its end is awaited
                elif j.lifeline_fd in ready:
                    # b"o" from the session's output reader: the jail printed past its limit.
                    j.kill("output" if b"o" in _drain(j.lifeline_fd) else "closed")
                elif now >= j.deadline and j.wall_over(now):
                    j.kill("wall")
                elif j.reason is None and j.over_cpu():
                    j.kill("cpu")
            except Exception:  # noqa: BLE001 - one jail's bookkeeping must not end the zygote
                traceback.print_exc()
        if not jails:
            watch.listen(False)   # none lives: the host's threads are no events of ours until the next jail
        if ctrl.fileno() not in ready:
            continue
        try:
            msg, fds, _, _ = socket.recv_fds(ctrl, 65536, 8)
        except OSError:
            break
        if not msg:
            for f in fds:
                os.close(f)
            break
        try:
            for f in fds:                 # nothing of ours reaches a jail's init (posix_spawn: launch)
                os.set_inheritable(f, False)
            job = json.loads(msg)
            if len(fds) != 4:
                raise ValueError("expected 4 fds")
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            for f in fds:
                os.close(f)
            continue
        held = [fd for j in jails.values() for fd in (j.pidfd, j.lifeline_fd, j.status_fd, j.setup_r, j.init_fd)
                if fd is not None] + [chld_r, chld_w] + ([] if watch.fileno() is None else [watch.fileno()])
        watch.before_fork()       # its threads' events are queued from here on, every event until its pid is known
        try:
            jail = launch(job, fds, own_pidns, ctrl, binds, root, seccomp, held,
                          [j.uid for j in jails.values()], init_program)
        except Exception:  # noqa: BLE001 - launch reports and closes what it can; never end the loop
            traceback.print_exc()
            continue
        if jail is not None:
            jails[jail.pidfd] = jail
        watch.follow([j.pid for j in jails.values() if j.watched])
    for j in jails.values():
        j.kill("closed")
    _reap(jails)
    watch.close()     # withdrawn: the kernel's count of listeners, kept past the socket's end, sends no more


def start() -> None:
    """The zygote's entry point; in a jail forked by it, the jail's (BecomeJail)."""
    try:
        main()
        return
    except BecomeJail as forked:
        launched = list(forked.args)
        forked.__traceback__ = None      # the frames it holds: main's and launch's
    run_jail(launched)


if __name__ == "__main__":
    try:
        start()
    finally:
        os._exit(0)   # skip the interpreter's (slow, torch-laden) shutdown
