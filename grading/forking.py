"""Cheaper forks of a warm process: the zygote forks two processes per jail, the worker one
pytest child per grading, each from a process that holds torch (~320 MB resident).

Measured (bench/grade_one.py, README "Where a grading's CPU goes"): most of a jail's CPU was the
kernel copying page tables at fork (``copy_page_range``) for the ~180 MB of private anonymous
memory (a ~100 MB malloc heap of torch's C++ state and the interpreter's objects), and copy-on-write
faults afterwards. Backed by 2 MiB pages, the same memory needs 512 times fewer entries copied.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal

MADV_HUGEPAGE = 14
MADV_COLLAPSE = 25        # Linux 6.1+: collapse now, synchronously, instead of by khugepaged later
HUGE = 2 << 20

try:
    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
except (OSError, AttributeError):  # not Linux/glibc: nothing to prepare
    _libc = None


def _private_anonymous_regions() -> list[tuple[int, int]]:
    """2 MiB-aligned (start, end) of each writable private anonymous mapping (the heap included)."""
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) < 5 or parts[1] != "rw-p" or parts[4] != "0":
            continue
        if len(parts) > 5 and parts[5] != "[heap]":      # a file, a stack, [vvar], ...
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        lo, hi = (lo + HUGE - 1) & ~(HUGE - 1), hi & ~(HUGE - 1)
        if hi - lo >= HUGE:
            out.append((lo, hi))
    return out


def prepare_for_forks() -> int:
    """Call once a process that will fork many children is warm. ``gc.freeze`` puts every object
    alive now out of the collector's reach (children do not write to them to collect them, which
    would copy their pages); ``malloc_trim`` returns freed heap pages; large private anonymous
    regions are collapsed into 2 MiB pages where the kernel allows it (best effort: without
    transparent huge pages nothing changes but the cost). Returns the bytes asked to collapse."""
    gc.unfreeze()   # called again (a suite reloaded): what an earlier call froze may be garbage now
    gc.collect()
    gc.freeze()
    if _libc is None:
        return 0
    try:
        _libc.malloc_trim(0)
    except AttributeError:   # not glibc
        pass
    asked = 0
    for lo, hi in _private_anonymous_regions():
        _libc.madvise(lo, hi - lo, MADV_HUGEPAGE)
        _libc.madvise(lo, hi - lo, MADV_COLLAPSE)   # EINVAL/EAGAIN without THP: kept as it is
        asked += hi - lo
    return asked


PR_SET_NAME = 15


def name_process(name: str) -> None:
    """Give this process a name of its own in ``ps -o comm``, ``top`` and ``perf`` (at most 15
    bytes): the forked test process and the jails otherwise all read ``python``."""
    if _libc is not None:
        _libc.prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)


PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """In a forked child: be SIGKILLed when ``parent``, the process (thread) that forked it, dies.

    The grading child leads its own process group, so a kill of its worker's group misses it, and it
    holds copies of its parent's descriptors: when a pool process was SIGKILLed mid-grading (Celery's
    hard time limit, the OOM killer), it ran on with the student's code, and kept the zygote (whose
    control socket it held) and the decoding fork server alive, beside the replacement grading the
    same run. ``parent`` is checked after the prctl: a parent that died before it is not noticed."""
    if _libc is not None:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(70)


_CLK_TCK = os.sysconf("SC_CLK_TCK")


def load_credit(pid: int, elapsed: float, used: float | None = None) -> float:
    """Seconds of the ``elapsed`` wall time of process ``pid`` that host load took from it: what its live
    threads spent runnable, waiting for a CPU (/proc/<pid>/task/*/schedstat, second field), at most the part
    of ``elapsed`` it was not on a CPU (its own threads waiting for each other, a submission that spins in
    16 of them, earn nothing: their CPU seconds exceed the wall). 0 when it is gone or unreadable. The
    session's and the grading's wall limits give this back (zygote.Jail.wall_over, child.Budget). ``used``: its
    CPU seconds, when just read."""
    used = cpu_seconds(pid) if used is None else used
    waited = 0.0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    waited += int(f.read().split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                continue          # a thread that ended meanwhile
    except OSError:
        return 0.0
    if used is None:
        return 0.0
    return max(0.0, min(waited, elapsed - used))


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) the process ``pid`` has used, all its threads, ended ones included,
    from ``/proc/<pid>/stat`` as the kernel counts it for RLIMIT_CPU (schedstat sums the live threads
    only); None when it is gone or unreadable. One reader for the jail's limits (the zygote's and the
    trusted side's) and the decoding child's."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, ValueError, IndexError):
        return None
