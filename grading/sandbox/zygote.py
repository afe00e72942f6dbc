"""The warm executor process (``python -m grading.sandbox.zygote <control fd>``).

Started by :class:`grading.sandbox.client.Executor` with a minimal clean environment. It imports torch
once, never runs student code itself, and forks one jail per job:

    zygote ──unshare(NEWPID), fork──> jail (pid 1 of a new pid namespace: setsid, PDEATHSIG, its own
                                      mount/net/ipc/uts namespaces, new root, rlimits, uid drop,
                                      NO_NEW_PRIVS, seccomp, then the runtime serving loop)

The zygote supervises every jail itself, in its one loop: when a jail's lifeline pipe becomes
readable (the trusted side is done or dead) or its wall limit passes, it SIGKILLs the jail (pid 1:
the kernel tears down the whole pid namespace); when the jail has ended, it reports its wait status
and CPU on the status pipe. (A supervisor process per jail, forked from this torch-sized process,
cost about 9 % of a grading's CPU.) The zygote is a child subreaper and reaps everything that comes
back to it.
"""

from __future__ import annotations

import os

# Thread pools must be single-threaded BEFORE torch is imported: a libgomp pool does not survive fork.
for _k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_k] = "1"

import ctypes  # noqa: E402
import errno  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import operator  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import secrets  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402

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
    mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir(root)
    _check(_libc.syscall(SYS_pivot_root, b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


# abort() in a jail. The jail is pid 1 of its pid namespace, and the kernel drops a signal whose action is the
# default that pid 1 sends itself: glibc's abort() raised SIGABRT twice for nothing and fell through to its last
# resort, an instruction that faults, so the jail ended with SIGSEGV and the student read "segmentation fault" for
# a call of abort() (a failed assertion in C or C++ code, ``os.abort()``; round 34). A fault reaches pid 1 as any
# process: SIGABRT's handler is one breakpoint instruction, mapped once here and inherited by every jail, and a
# jail that called abort() ends with SIGTRAP, which nothing else in a jail raises (ptrace is refused; only code
# written to trap on purpose could).
_BREAKPOINTS = {"x86_64": b"\xcc", "amd64": b"\xcc", "aarch64": (0xD4200000).to_bytes(4, "little"),
                "arm64": (0xD4200000).to_bytes(4, "little")}
_PROT_READ, _PROT_WRITE, _PROT_EXEC = 1, 2, 4
_abort_trap_address: int | None = None


class _SigAction(ctypes.Structure):
    """glibc's struct sigaction (glibc adds the restorer itself)."""

    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]


def map_abort_trap() -> None:
    """Maps the breakpoint SIGABRT's handler runs (read-only and executable); in the zygote, once."""
    global _abort_trap_address
    code = _BREAKPOINTS.get(os.uname().machine.lower())
    if code is None or _abort_trap_address is not None:
        return                       # an architecture without its breakpoint here: abort() ends as before
    _libc.mmap.restype = ctypes.c_void_p
    _libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    _libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    size = resource.getpagesize()
    addr = _libc.mmap(None, size, _PROT_READ | _PROT_WRITE, 0x22, -1, 0)     # MAP_PRIVATE | MAP_ANONYMOUS
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap of the abort trap")
    ctypes.memmove(addr, code, len(code))
    _check(_libc.mprotect(addr, size, _PROT_READ | _PROT_EXEC), "mprotect of the abort trap")
    _abort_trap_address = addr


def trap_aborts() -> None:
    """SIGABRT's handler in this jail: the breakpoint of map_abort_trap (see there)."""
    if _abort_trap_address is None:
        return
    action = _SigAction(handler=_abort_trap_address)
    _check(_libc.sigaction(signal.SIGABRT, ctypes.byref(action), None), "sigaction(SIGABRT)")


# Signals sent to the jail. The kernel drops every signal whose action is the default that pid 1 of a pid namespace
# receives from its own namespace (only SIGKILL and SIGSTOP from an ancestor, and faults, reach it): a submission's
# ``os.kill(os.getpid(), signal.SIGTERM)`` or ``signal.raise_signal(signal.SIGUSR1)`` returned and its code went on,
# where ``python attention.py`` would have ended there (round 35). Each signal whose default action ends a process
# gets a handler in the jail that ends it instead, after writing the signal's number on a page shared with the
# zygote only (``_end_page``): the zygote then reports the jail as ended by that signal, and a student's
# ``os._exit(143)`` still as an exit with code 143. A handler the student installs replaces this one and runs, as
# in any process; ``signal.signal(s, SIG_DFL)`` puts this one back, and ``signal.getsignal`` tells it as SIG_DFL
# (``_signal``; a sigaction() of SIG_DFL through ctypes is dropped by the kernel again). Not among them: SIGKILL and SIGSTOP (they cannot be caught: sent to itself, the jail goes on),
# SIGABRT (trap_aborts), SIGPIPE and SIGXFSZ (Python ignores them in every process), and the faults (SIGSEGV,
# SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS): a real fault reaches pid 1 as any process, and a Python handler would
# return to the faulting instruction and fault again without end.
_NOT_ENDING_HERE = {signal.SIGKILL, signal.SIGSTOP, signal.SIGABRT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGSEGV,
                    signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGTRAP, signal.SIGSYS}
# default action "ignore" or "stop" (signal(7)): nothing to do for these
_NOT_ENDING_ANYWHERE = {signal.SIGCHLD, signal.SIGCONT, signal.SIGURG, signal.SIGWINCH, signal.SIGTSTP,
                        signal.SIGTTIN, signal.SIGTTOU}
ENDED_BY_SIGNAL_EXIT = 128   # the jail exits with 128 + the signal's number, as a shell reports a signal's end
_MAP_SHARED, _MAP_ANONYMOUS, _MAP_FIXED_NOREPLACE, _MADV_DONTFORK = 0x01, 0x20, 0x100000, 10


class EndPage:
    """One page shared by the zygote and one jail, where the jail's :func:`_end_on` writes the signal it ends on.

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

    def write(self, signum: int) -> None:
        if self.address is not None:
            ctypes.c_ubyte.from_address(self.address).value = signum & 0xFF

    def read(self) -> int:
        return 0 if self.address is None else ctypes.c_ubyte.from_address(self.address).value

    # Byte 1: the exit code of the grader's own loop when it ended (run_jail: protocol.SERVE_FAILED_EXIT or
    # INTERRUPTED_EXIT), written just before that exit: a student's ``os._exit(72)`` leaves it 0, and is told as
    # an exit with code 72, not as "a SIGINT between calls" (round 36b).
    def mark_loop_end(self, code: int) -> None:
        if self.address is not None:
            ctypes.c_ubyte.from_address(self.address + 1).value = code & 0xFF

    def loop_end(self) -> int:
        return 0 if self.address is None else ctypes.c_ubyte.from_address(self.address + 1).value

    def keep_from_later_forks(self) -> None:
        _libc.madvise(ctypes.c_void_p(self.address), ctypes.c_size_t(self.size), _MADV_DONTFORK)

    def close(self) -> None:
        if self.address is not None:
            _libc.munmap(ctypes.c_void_p(self.address), ctypes.c_size_t(self.size))
            self.address = None


_end_page: EndPage | None = None       # this jail's page for the signal that ended it (launch)
_ending_signals: tuple[int, ...] = ()  # computed once in the zygote (find_ending_signals)


def find_ending_signals() -> None:
    """The signals the jail ends on by its own handler (see above): those whose default action ends a process and
    whose action in the zygote is the default, and SIGINT (Python's KeyboardInterrupt handler in the zygote and in
    the jails, as in any Python process: only ``signal.signal(SIGINT, SIG_DFL)`` gives it _end_on)."""
    global _ending_signals
    # What the process that started the zygote had ignored or blocked is inherited across exec (a Celery worker,
    # a test that ignored SIGQUIT): the jails' signals must not depend on who that was. Python's own SIGINT
    # handler is set in each jail (run_jail).
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for s in signal.valid_signals():
        if s not in _NOT_ENDING_HERE and s not in _NOT_ENDING_ANYWHERE and signal.getsignal(s) == signal.SIG_IGN:
            signal.signal(s, signal.SIG_DFL)
    _ending_signals = tuple(
        s for s in sorted(signal.valid_signals())
        if s not in _NOT_ENDING_HERE and s not in _NOT_ENDING_ANYWHERE
        and (s == signal.SIGINT or signal.getsignal(s) == signal.SIG_DFL))


_in_jail = False   # set in a jail as it starts (run_jail)


def _end_on(signum: int, frame: object) -> None:
    """The jail's handler of an ending signal: the end a process whose action for it is the default would have.
    In the zygote, the default action itself (the zygote is no namespace's pid 1: the signal ends it)."""
    if not _in_jail:
        _set_handler(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
        return
    if _end_page is not None:
        _end_page.write(signum)
    os._exit(ENDED_BY_SIGNAL_EXIT + signum)


_set_handler, _get_handler = signal.signal, signal.getsignal


def _signal(signalnum, handler):
    """``signal.signal`` in the jails: the default action asked for an ending signal is :func:`_end_on` (the
    kernel would drop the signal again), and :func:`_end_on` is told as the default, as in any process."""
    if handler == signal.SIG_DFL and signalnum in _ending_signals:
        handler = _end_on
    old = _set_handler(signalnum, handler)
    return signal.SIG_DFL if old is _end_on else old


def _getsignal(signalnum):
    """``signal.getsignal`` in the jails (see :func:`_signal`)."""
    handler = _get_handler(signalnum)
    return signal.SIG_DFL if handler is _end_on else handler


def end_on_signals() -> None:
    """Install :func:`_end_on` for every ending signal but SIGINT (KeyboardInterrupt, see run_jail), in the zygote, once:
    the jails inherit the handlers (44 signal.signal calls cost 0.7 ms of CPU in each jail)."""
    for s in _ending_signals:
        if s != signal.SIGINT:
            _set_handler(s, _end_on)
    for fn, name in ((_signal, "signal"), (_getsignal, "getsignal")):
        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = "signal"
        fn.__doc__ = getattr(signal, name).__doc__
    signal.signal, signal.getsignal = _signal, _getsignal


# Signals the jail sends itself while their action in the kernel is the default (round 36). The handlers above are
# Python's view: a ``sigaction()`` of SIG_DFL made through ctypes (or by a C library) puts the kernel's default back
# under them, and a fault signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS), SIGABRT or SIGKILL sent with
# ``os.kill`` or ``signal.raise_signal`` has no handler here at all: the kernel dropped each (pid 1) and the code went
# on, where ``python attention.py`` ends on it. What sends a signal to the jail itself reads the signal's action in
# the kernel first: the default, and a default that ends a process, the jail ends on it as :func:`_end_on` does, and
# is said to have been ended by it, when the thread the kernel would deliver it to does not block it. Any other
# action is the kernel's to take. Round 36b, as the kernel delivers (signal(7)): a signal sent to the process
# (``os.kill`` of its pid, of a thread's TID, of 0 or of its group, ``os.killpg``, ``signal.pidfd_send_signal`` of a
# pidfd of itself) goes to any thread that does not block it, the caller's mask alone said nothing; one sent to a
# thread (``signal.raise_signal``: the caller; ``signal.pthread_kill``) is delivered only if that thread, not the
# caller, does not block it, and one sent to a thread that is no live thread of the jail (a joined thread's ident)
# is left to the real call. The signal is read as the call reads it (``operator.index``: an IntEnum, np.int64(11)).
# A signal left pending while blocked has its default action taken when it is unblocked, which the kernel drops at
# pid 1 again: ``signal.pthread_sigmask`` ends the jail then (_sigmask). faulthandler's handler (faulthandler.enable())
# dumps the traceback, puts the default back and sends the signal again with C's raise(), dropped at pid 1: after it
# ran (the action is the default again), the jail ends on the signal.
_ENDS_BY_DEFAULT = frozenset(signal.valid_signals()) - _NOT_ENDING_ANYWHERE - {signal.SIGSTOP}
_SIG_DFL_ADDRESS = None     # a sigaction's handler of SIG_DFL (0), as ctypes reads a c_void_p
_PROCESS = "process"        # a signal sent to the jail's process, not to one thread of it
_NO_HANDLER = -1            # sigaction refused the signal
_faulthandler_address: int | None = None      # faulthandler's fatal-signal handler (end_on_sent_signals)
_pthread_sigmask = signal.pthread_sigmask


def _kernel_handler(signum: int) -> int | None:
    """The kernel's action for ``signum`` in this process (whatever Python believes): the handler's address, None
    for the default."""
    old = _SigAction()
    if _libc.sigaction(int(signum), None, ctypes.byref(old)) != 0:
        return _NO_HANDLER
    return old.handler


def _kernel_default(signum: int) -> bool:
    """Whether the kernel's action for ``signum`` in this process is the default (whatever Python believes)."""
    return _kernel_handler(signum) == _SIG_DFL_ADDRESS


def _signum(signum: object) -> int | None:
    """``signum`` as the sending call reads it, when its default action ends a process; else None."""
    try:
        n = operator.index(signum)
    except TypeError:
        return None
    return n if n in _ENDS_BY_DEFAULT else None


def _jail_tids() -> list[int]:
    """The native ids of the jail's live threads."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except (OSError, ValueError):
        return []


def _thread_blocks(tid: int | None, signum: int) -> bool | None:
    """Whether the thread ``tid`` of the jail (native id; None: the caller) blocks ``signum``; None when there is no
    such live thread."""
    if tid is None:
        return signum in _pthread_sigmask(signal.SIG_BLOCK, ())
    for line in _proc_lines(f"/proc/self/task/{int(tid)}/status"):
        if line.startswith("SigBlk:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return None


def _proc_lines(path: str) -> list[str]:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return []
    try:
        return os.read(fd, 1 << 16).decode("ascii", "replace").splitlines()
    except OSError:
        return []
    finally:
        os.close(fd)


def _end_if_dropped(sent: tuple[object, object] | None) -> None:
    """In a jail, before it sends itself a signal (``sent``: the target, _PROCESS or a thread's native id, None for
    the caller, and the signal): end as the default action would (see above), else return."""
    if not _in_jail or sent is None or (signum := _signum(sent[1])) is None:
        return
    target = sent[0]
    if target == _PROCESS:
        if _thread_blocks(None, signum) and not any(_thread_blocks(t, signum) is False for t in _jail_tids()):
            return      # every thread blocks it: left pending (_sigmask)
    elif _thread_blocks(target, signum) is not False:
        return          # blocked by its target (pending, _sigmask), or no live thread of the jail: the real call's
    if _kernel_default(signum):
        _end_on(signum, None)


def _by_faulthandler(sent: tuple[object, object] | None) -> int | None:
    """The signal ``sent`` when faulthandler's handler is its action in the kernel (see above), else None."""
    if not _in_jail or sent is None or _faulthandler_address is None or (signum := _signum(sent[1])) is None:
        return None
    return signum if _kernel_handler(signum) == _faulthandler_address else None


def _self_sending(original: Callable, sent_to_self: Callable[..., tuple[object, object] | None]) -> Callable:
    """``original`` (a sender of signals), first ending the jail on what ``sent_to_self`` of its arguments gives:
    (target, signal) when it is sent to the jail itself, else None."""
    def send(*args, **kwargs):
        try:
            sent = sent_to_self(*args, **kwargs)
        except Exception:   # noqa: BLE001 - arguments the original refuses: it says how
            sent = None
        _end_if_dropped(sent)
        faulted = _by_faulthandler(sent)
        result = original(*args, **kwargs)
        if faulted is not None and _kernel_default(faulted):    # faulthandler's handler ran and put the default back
            _end_on(faulted, None)
        return result
    send.__name__ = send.__qualname__ = original.__name__
    send.__module__, send.__doc__ = getattr(original, "__module__", None), original.__doc__
    return send


def _sigmask(how, mask):
    """``signal.pthread_sigmask`` in the jails: a signal pending while blocked whose action is the default, and
    which this call unblocks, ends the jail (see above); the kernel would drop it."""
    pending = signal.sigpending() if _in_jail else ()
    old = _pthread_sigmask(how, mask)
    if pending:
        blocked = _pthread_sigmask(signal.SIG_BLOCK, ())
        for s in sorted(int(p) for p in pending):
            if s in _ENDS_BY_DEFAULT and s not in blocked and _kernel_default(s):
                _end_on(s, None)
    return old


def _thread_target(thread_id: int) -> int | None | str:
    """The native id of the jail's live thread ``thread_id`` (a ``threading`` ident), None for the caller."""
    if thread_id == threading.get_ident():
        return None
    thread = threading._active.get(thread_id)   # the idents threading knows
    if thread is None or thread.native_id is None or not thread.is_alive():
        raise LookupError(thread_id)            # no live thread of the jail: the real call's answer
    return thread.native_id


def _pidfd_pid(pidfd: int) -> int | None:
    """The pid a pidfd refers to, in the jail's pid namespace (/proc/self/fdinfo)."""
    for line in _proc_lines(f"/proc/self/fdinfo/{int(pidfd)}"):
        if line.startswith("Pid:"):
            return int(line.split()[1])
    return None


def _kill_target(pid: int, sig: object) -> tuple[object, object] | None:
    # kill(-1) is every process but the caller (and the namespace's init, the jail itself): never the jail, although
    # -(-1) is the jail's process group (setsid as pid 1); a group is -pgid below -1. kill() of a thread's TID
    # signals its process.
    pid = operator.index(pid)
    if pid in (0, os.getpid()) or (pid < -1 and -pid == os.getpgrp()) or (pid > 0 and pid in _jail_tids()):
        return _PROCESS, sig
    return None


def _find_faulthandler() -> None:
    """Read the address of faulthandler's fatal-signal handler, in the zygote, once."""
    global _faulthandler_address
    import faulthandler
    if faulthandler.is_enabled():
        _faulthandler_address = _kernel_handler(signal.SIGSEGV)
        return
    fd = os.open(os.devnull, os.O_WRONLY)
    try:
        faulthandler.enable(file=fd)
        _faulthandler_address = _kernel_handler(signal.SIGSEGV)
    finally:
        faulthandler.disable()
        os.close(fd)
    if _faulthandler_address in (_SIG_DFL_ADDRESS, _NO_HANDLER):
        _faulthandler_address = None


def end_on_sent_signals() -> None:
    """Wrap what sends the jail a signal (see _ENDS_BY_DEFAULT), in the zygote, once: the jails inherit it."""
    _find_faulthandler()
    os.kill = _self_sending(os.kill, _kill_target)
    os.killpg = _self_sending(os.killpg, lambda pgid, sig: (_PROCESS, sig) if pgid in (0, os.getpgrp()) else None)
    signal.raise_signal = _self_sending(signal.raise_signal, lambda signalnum: (None, signalnum))
    signal.pthread_kill = _self_sending(signal.pthread_kill,
                                        lambda thread_id, signalnum: (_thread_target(thread_id), signalnum))
    if hasattr(signal, "pidfd_send_signal"):
        signal.pidfd_send_signal = _self_sending(
            signal.pidfd_send_signal,
            lambda pidfd, sig, *rest, **kw: (_PROCESS, sig) if _pidfd_pid(pidfd) == os.getpid() else None)
    _sigmask.__name__ = _sigmask.__qualname__ = "pthread_sigmask"
    _sigmask.__module__, _sigmask.__doc__ = "signal", _pthread_sigmask.__doc__
    signal.pthread_sigmask = _sigmask


def ended_by(wstatus: int, page: EndPage | None) -> int | None:
    """The signal that ended a jail through :func:`_end_on`, or None."""
    if page is None or not os.WIFEXITED(wstatus):
        return None
    sig = page.read()
    if sig in _ENDS_BY_DEFAULT and os.WEXITSTATUS(wstatus) == ENDED_BY_SIGNAL_EXIT + sig:
        return sig
    return None


def _set_rlimits(lim: dict) -> None:
    # RLIMIT_CPU is the executor's, the same for every session (``cpu_rlimit``): the session's own CPU
    # limit, cut to what is left of the grading's budget (the hidden tests' session gets less than the
    # visible tests'), is enforced by this zygote (``Jail.over_cpu``). Set as the rlimit, getrlimit()
    # told a submission which session it was in (20 s for the visible tests, 8 s for the hidden ones).
    cpu = int(math.ceil(lim["cpu_rlimit"]))
    resource.setrlimit(resource.RLIMIT_AS, (lim["memory"], lim["memory"]))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (lim["fsize"], lim["fsize"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (lim["nofile"], lim["nofile"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))


SETUP_FD = 5   # in B: the write end of the setup-error pipe, closed before student code runs


def _prefer_for_oom_kill() -> None:
    """Make this jail the kernel's first choice when the host runs out of memory. The zygote holds torch and
    scores higher by size alone; a zygote killed mid-grading makes the worker retry the run (a lost zygote is
    the grader's fault), so a submission that drove the host out of memory would be graded again and again
    and end as `error` instead of getting its grade. Raising one's own score needs no privilege."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:    # no /proc (an unusual host): the memory rlimit still bounds the jail
        pass


def run_jail(launched: list) -> None:
    """The jail: pid 1 of its own pid namespace, forked by the zygote. Never returns.

    ``launched``: launch's job for it (JAIL_LIMITS and its uid), data socket, output, the zygote's pidfd, the setup
    pipe, binds, root and seccomp program, emptied here: the descriptors' numbers depend on how many jails the
    zygote held (one more beside the visible tests' session), and nothing that differs between sessions is left
    where the student's code can reach it (its frames, gc.get_objects) once it runs (BecomeJail).

    A setup failure is written to the setup pipe, which only the zygote reads and which is closed
    before the student's code starts: the data socket carries nothing but replies, so whatever a
    submission writes there can never pass for a failure of the sandbox (that would end the grading
    as a grader `error` and be retried)."""
    global _in_jail
    job, data_fd, out_fd, parent_pidfd, setup_fd, binds, root, seccomp = launched
    launched.clear()
    code = 0
    report_fd = setup_fd
    try:
        try:
            _in_jail = True
            os.setsid()
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            # Python's own SIGINT handler, as in ``python attention.py``: KeyboardInterrupt, which code may catch (the
            # jail ended on it, "had no handler"); signal.signal(SIGINT, SIG_DFL) gives _end_on. The others are inherited.
            _set_handler(signal.SIGINT, signal.default_int_handler)
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
            trap_aborts()
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
        except BaseException:  # noqa: BLE001 - said as such to the trusted side (the exit code and the end page)
            code = protocol.SERVE_FAILED_EXIT
        if code and _end_page is not None:
            _end_page.mark_loop_end(code)
    except BaseException:  # noqa: BLE001
        code = 0
    finally:
        os._exit(code)


def _fcntl_dup(fd: int) -> int:
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 100)


# --------------------------------------------------------------------------- supervision
class Jail:
    """A running jail as the zygote supervises it."""

    def __init__(self, pid: int, lifeline_fd: int, status_fd: int, setup_r: int, wall: float, uid: int,
                 cpu: float = math.inf, backstop: float = 1.0, end_page: EndPage | None = None):
        self.pid = pid
        self.end_page = end_page                    # where its _end_on writes the signal it ended on
        self.uid = uid
        self.cpu = cpu                              # CPU seconds it may use (its session's limit)
        self.pidfd = os.pidfd_open(pid)
        self.lifeline_fd, self.status_fd, self.setup_r = lifeline_fd, status_fd, setup_r
        self.started, self.wall = time.monotonic(), wall
        self.deadline = self.started + wall        # moved on by the time host load took (wall_over)
        self.hard = self.started + wall * max(1.0, backstop)
        self.credit = 0.0                           # the latest forking.load_credit read, reported at its end
        self.reason: str | None = None            # why it was killed: "closed", "wall", "output" or "cpu"
        self.ended: tuple[int, object] | None = None  # (wait status, rusage) once reaped

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
        used = cpu_seconds(self.pid)
        if used is not None:   # the grading's budget gives back what host load took (child.Budget.credit)
            self.credit = max(self.credit, load_credit(self.pid, time.monotonic() - self.started, used))
        return used is not None and used >= self.cpu

    def kill(self, reason: str) -> None:
        if self.reason is None:
            if self.ended is not None or select.select([self.pidfd], [], [], 0)[0]:
                # It had ended already (a jail that died closes its data socket, and the trusted side closes the
                # session, often before this side has seen the end): nothing is sent, and its end is reported as
                # it was, not as this side's kill (a SIGKILL said as the grader's that was not).
                return
            self.reason = reason
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def finish(self) -> None:
        """Report the ended jail on its status pipe and let go of it."""
        if self.ended is None:
            _, wstatus, ru = os.wait4(self.pid, 0)
        else:
            wstatus, ru = self.ended
        status: dict = {"status": self.reason or "exited", "cpu": round(ru.ru_utime + ru.ru_stime, 3),
                        "maxrss_kib": ru.ru_maxrss, "credit": round(self.credit, 3)}
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
        sig = ended_by(wstatus, self.end_page)
        if sig is not None:   # it received a signal whose action was the default: a process ends on it
            status.pop("exit_code", None)
            status.update(signal=sig, received=True)
        elif (os.WIFEXITED(wstatus) and self.end_page is not None
              and self.end_page.loop_end() == os.WEXITSTATUS(wstatus) != 0):
            status["loop_end"] = True    # the grader's loop ended the jail (run_jail), not the student's exit
        if self.end_page is not None:
            self.end_page.close()
        _report(self.status_fd, status)
        for fd in (self.pidfd, self.lifeline_fd, self.status_fd, self.setup_r):
            try:
                os.close(fd)
            except OSError:
                pass


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
           seccomp: SeccompProgram, held: list[int] = (), live_uids: list[int] = ()) -> Jail | None:
    """Fork one jail for ``job``; ``fds`` are its data socket, lifeline, output and status pipe.
    The zygote keeps the lifeline and the status pipe; None when no jail could be started (the
    reason is on the status pipe). ``held``: the fds the zygote holds for other jails, closed in
    the new jail at once (it closes every other fd before student code runs anyway).
    ``job["uids"]`` are the executor's uids; the jail gets one of them that no live jail has
    (``live_uids``), see :func:`jail_uid`."""
    data_fd, lifeline_fd, out_fd, status_fd = fds
    try:
        wall = float(job["limits"]["wall"])
        cpu = float(job["limits"]["cpu"])
        backstop = float(job["limits"].get("wall_backstop", 1.0))
        uids = [int(u) for u in job["uids"]]
        for u in uids or [None]:
            if u is None or not UID_MIN <= u <= UID_MAX:
                raise ValueError(f"uid {u} outside {UID_MIN}..{UID_MAX}")
        uid = jail_uid(uids, list(live_uids))
        # What the jail gets of the job: nothing that differs between sessions of the same executor. The session's
        # CPU and wall limits are the zygote's to enforce (Jail); in the jail, a file walking the stack to run_jail
        # read job["limits"] (cpu 20.0 for the visible tests, 8.0 for the hidden ones: round 35).
        jail_job = {"uid": uid, "limits": {k: job["limits"][k] for k in JAIL_LIMITS}}
    except (KeyError, TypeError, ValueError) as e:
        _report(status_fd, {"status": "setup_failed", "reason": f"jail setup failed: {type(e).__name__}: {e}"})
        for fd in fds:
            os.close(fd)
        return None
    global _end_page
    opened: list[int] = []
    try:
        _end_page = EndPage()          # shared with the jail forked next, and with no other
        setup_r, setup_w = os.pipe()
        opened += [setup_r, setup_w]
        parent_pidfd = os.pidfd_open(os.getpid())
        opened.append(parent_pidfd)
        unshare(CLONE_NEWPID)                 # the next child is pid 1 of a new pid namespace
    except OSError as e:                      # out of fds, or namespaces refused
        _report(status_fd, {"status": "setup_failed", "reason": f"jail setup failed: {e}"})
        for fd in (*fds, *opened):
            os.close(fd)
        if _end_page is not None:
            _end_page.close()
        _end_page = None
        return None
    try:
        pid = os.fork()
    except OSError as e:
        pid = -1
        fork_error = e
    if pid == 0:  # ------------------------------------------------------------ the jail
        name_process("ag-jail")
        ctrl.close()
        for fd in (lifeline_fd, status_fd, setup_r, own_pidns, *held):
            try:
                os.close(fd)
            except OSError:
                pass
        raise BecomeJail(jail_job, data_fd, out_fd, parent_pidfd, setup_w, binds, root, seccomp)
    # Back to this process's own pid namespace for its next children; a zygote that cannot is of
    # no further use (every later jail would share one namespace): it ends, the client reports it.
    if _libc.setns(own_pidns, CLONE_NEWPID) != 0:
        os.write(2, f"setns back to the zygote's pid namespace failed: {os.strerror(ctypes.get_errno())}\n".encode())
        os._exit(1)
    for fd in (setup_w, parent_pidfd, data_fd, out_fd):
        os.close(fd)
    end_page, _end_page = _end_page, None
    if pid > 0:          # the jails forked later do not get it
        end_page.keep_from_later_forks()
    else:
        end_page.close()
    if pid < 0:
        _report(status_fd, {"status": "setup_failed", "reason": f"fork failed: {fork_error}"})
        for fd in (lifeline_fd, status_fd, setup_r):
            os.close(fd)
        return None
    try:
        jail = Jail(pid, lifeline_fd, status_fd, setup_r, wall, uid, cpu, backstop, end_page)
        # The jail's pid, first on the status pipe: the trusted side reads what the jail's threads do
        # (/proc) while it waits for a reply, and stops a jail that sleeps there (client.IdleWatch).
        _report(status_fd, {"pid": pid})
        return jail
    except OSError as e:                      # no pidfd: a jail nobody watches must not run
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        end_page.close()
        _report(status_fd, {"status": "setup_failed", "reason": f"jail setup failed: {e}"})
        for fd in (lifeline_fd, status_fd, setup_r):
            os.close(fd)
        return None


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
    """Reap every ended child; a jail's wait status is kept for its report."""
    by_pid = {j.pid: j for j in jails.values()}
    while True:
        try:
            pid, wstatus, ru = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
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
    try:
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        reason = probe()
        binds = compute_binds() if reason is None else []
        root = _jail_mountpoint() if reason is None else ""
        own_pidns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        seccomp = SeccompProgram() if reason is None else None
        map_abort_trap()
        find_ending_signals()
        end_on_signals()
        end_on_sent_signals()
        if reason is None:   # what launch() does for every jail, tried once here
            unshare(CLONE_NEWPID)
            _check(_libc.setns(own_pidns, CLONE_NEWPID), "setns back to the zygote's pid namespace")
    except BaseException as e:  # noqa: BLE001
        reason = f"{type(e).__name__}: {e}"
    before_forks()        # what each jail drops from sys (computed once, here)
    prepare_for_forks()   # after everything this process imports and warms: jails fork from here
    ctrl.send(json.dumps({"ready": reason is None, "reason": reason, "pid": me,
                          "binds": [b[0] for b in binds] if reason is None else []}).encode())
    if reason is not None:
        return
    while True:
        now = time.monotonic()
        # Every CPU_CHECK_S while a jail runs: its CPU is read against its session's limit.
        wait = min([0.25 if not jails else CPU_CHECK_S,
                    *(max(0.0, j.deadline - now) for j in jails.values() if j.reason is None)])
        # A killed jail's lifeline stays readable: only its end is awaited then.
        watched = [ctrl.fileno()] + [j.pidfd for j in jails.values()] \
            + [j.lifeline_fd for j in jails.values() if j.reason is None]
        r, _, _ = select.select(watched, [], [], wait)
        ready = set(r)
        now = time.monotonic()
        _reap(jails)
        for key, j in list(jails.items()):
            try:
                if j.pidfd in ready or j.ended is not None:
                    del jails[key]
                    j.finish()
                elif j.lifeline_fd in ready:
                    # b"o" from the session's output reader: the jail printed past its limit.
                    j.kill("output" if b"o" in _drain(j.lifeline_fd) else "closed")
                elif now >= j.deadline and j.wall_over(now):
                    j.kill("wall")
                elif j.reason is None and j.over_cpu():
                    j.kill("cpu")
            except Exception:  # noqa: BLE001 - one jail's bookkeeping must not end the zygote
                traceback.print_exc()
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
            job = json.loads(msg)
            if len(fds) != 4:
                raise ValueError("expected 4 fds")
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            for f in fds:
                os.close(f)
            continue
        held = [fd for j in jails.values() for fd in (j.pidfd, j.lifeline_fd, j.status_fd, j.setup_r)]
        try:
            jail = launch(job, fds, own_pidns, ctrl, binds, root, seccomp, held,
                          [j.uid for j in jails.values()])
        except Exception:  # noqa: BLE001 - launch reports and closes what it can; never end the loop
            traceback.print_exc()
            continue
        if jail is not None:
            jails[jail.pidfd] = jail
    for j in jails.values():
        j.kill("closed")
    _reap(jails)


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
