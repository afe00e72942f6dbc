"""Round 40 (E) red team: hostile submissions with threads, signals, descriptors, rlimits, /proc, ptrace, mmap and
ctypes tricks. Each one, graded whole on the shared executor, must end on the student's side (graded, never
``error``), every failed test's feedback in English and Chinese, and a correct submission graded right after it must
score what it scores alone (tests/sandbox/test_hostile_round39's check). A few also check what the student is told.
"""

from __future__ import annotations

import pytest

from tests.sandbox import test_hostile_round39
from tests.sandbox.test_hostile_round39 import REF, fwd, grade_hostile

# The reference's total on the shared executor (round 39's fixture, computed once per module)
reference_total = test_hostile_round39.reference_total

# libc through ctypes, with errno kept
LIBC = "import ctypes\n_libc = ctypes.CDLL(None, use_errno=True)\n"

HOSTILE = {
    # a thread that faults the moment it starts, at import: the kernel's fault, named as such (ThreadWatch)
    "thread_faults_at_import": REF + "\nimport ctypes, threading\n_t = threading.Thread(target=ctypes.string_at, args=(0,))\n_t.start()\n_t.join()\n",
    # the same in the middle of a call
    "thread_faults_mid_call": fwd("import ctypes, threading\n_t = threading.Thread(target=ctypes.string_at, args=(0,))\n_t.start()\n_t.join()"),
    # a real SIGBUS in a thread: a mapped file truncated under the mapping
    "thread_sigbus_truncated_map": fwd("import mmap, os, tempfile, threading\n"
                                       "_fd, _p = tempfile.mkstemp()\nos.ftruncate(_fd, 8192)\n"
                                       "_m = mmap.mmap(_fd, 8192)\nos.ftruncate(_fd, 0)\n"
                                       "_t = threading.Thread(target=lambda: _m[4096])\n_t.start()\n_t.join()"),
    # an invalid instruction run from an executable page it mapped (refused or SIGILL)
    "ud2_from_an_exec_page": fwd(LIBC + "import mmap\n"
                                 "try:\n"
                                 "    _m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
                                 "except OSError:\n"
                                 "    _m = None\n"
                                 "if _m is not None:\n"
                                 "    _m.write(b'\\x0f\\x0b')\n"
                                 "    _buf = (ctypes.c_char * 2).from_buffer(_m)\n"
                                 "    ctypes.CFUNCTYPE(None)(ctypes.addressof(_buf))()"),
    # a comm that reads like the start of a fault line, then SIGSEGV sent to itself: no fault happened
    "comm_forges_a_fault_line_then_sends_segv": fwd(LIBC + "import os, signal\n"
                                                    "_libc.prctl(15, b'x[1]: segfault', 0, 0, 0)\n"
                                                    "os.kill(os.getpid(), signal.SIGSEGV)"),
    # a thread sends itself SIGSEGV (pthread_kill): the thread is known to the zygote, no fault was logged
    "thread_sends_itself_segv": fwd("import signal, threading\n"
                                    "_t = threading.Thread(target=lambda: signal.pthread_kill(threading.get_ident(), signal.SIGSEGV))\n"
                                    "_t.start()\n_t.join()\nimport time; time.sleep(1)"),
    # a SIGSEGV handler that returns: the faulting load runs again and again (CPU limit)
    "segv_handler_returns": fwd("import ctypes, signal\nsignal.signal(signal.SIGSEGV, lambda s, f: None)\nctypes.string_at(0)"),
    # its own interpreter's code made unreadable: the main thread faults on its next instruction there
    "mprotect_its_own_heap": fwd(LIBC + "_page = id(self) & ~4095\n_libc.mprotect(ctypes.c_void_p(_page), 4096, 0)\n"),
    # ptrace: of itself, of its init and of the zygote's pid as it would be outside (all refused)
    "ptrace_everyone": REF + "\n" + LIBC + "for _req, _pid in ((0, 0), (16, 1), (16, 2), (16, 1000)):\n    _libc.ptrace(_req, _pid, 0, 0)\n",
    # /proc: the hidden tests and other students' work are not there; what it reads is printed
    "proc_walk": REF + "\nimport os\nfor _p in ('/proc/1/environ', '/proc/1/cmdline', '/proc/1/root', '/proc/self/mountinfo', '/proc/kmsg', '/dev/kmsg'):\n"
                       "    try:\n        print(_p, open(_p, 'rb').read(200))\n    except OSError as _e:\n        print(_p, _e)\n",
    # every descriptor it can name, duplicated over the data socket (fd 3) mid-call
    "dup2_over_the_data_socket": fwd("import os\n_n = os.open('/dev/null', os.O_RDWR)\nos.dup2(_n, 3)"),
    # its address space cut below what it holds: the grader's own code then fails to allocate
    "rlimit_as_cut": REF + "\nimport resource\n_s = int(open('/proc/self/statm').read().split()[0]) * 4096\nresource.setrlimit(resource.RLIMIT_AS, (_s + (8 << 20), _s + (8 << 20)))\n",
    # the main thread ends through the raw exit syscall; another thread sleeps on (the process lives without it)
    "main_thread_exits_alone": fwd(LIBC + "import threading, time\n"
                                   "threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
                                   "_libc.syscall(60, 0)"),
    # stops itself again and again: each stop wakes the zygote, which resumes it
    "stop_storm": fwd("import os, signal\nfor _ in range(20000):\n    os.kill(os.getpid(), signal.SIGSTOP)"),
    # SIGXCPU ignored and every thread spinning: the CPU of all its threads is its own
    "spinners_ignore_sigxcpu": REF + "\nimport signal, threading\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
                                     "def _spin():\n    while True:\n        pass\nfor _ in range(4):\n    threading.Thread(target=_spin, daemon=True).start()\n",
    # threads started and joined without end, to cycle the host's thread ids
    "thread_churn": fwd("import threading\nfor _ in range(3000):\n    _t = threading.Thread(target=int)\n    _t.start()\n    _t.join()"),
    # a clone of a whole process through the raw syscall (no CLONE_THREAD): refused by the filter
    "raw_clone_process": REF + "\n" + LIBC + "_r = _libc.syscall(56, 17, 0, 0, 0, 0)\nif _r == 0:\n    _libc.syscall(60, 0)\n",
    # a huge write from a thread with the GIL released, at import
    "writev_flood": REF + "\nimport os, threading\n_b = [b'w' * (1 << 20)] * 64\nthreading.Thread(target=lambda: [os.writev(1, _b) for _ in range(64)], daemon=True).start()\n",
    # abort() from a thread
    "abort_from_a_thread": fwd(LIBC + "import threading\n_t = threading.Thread(target=_libc.abort)\n_t.start()\n_t.join()"),
}

# Over 10 s a grading on the 2-core host: a CPU or wall limit reached.
SLOW = {"segv_handler_returns", "main_thread_exits_alone", "stop_storm", "spinners_ignore_sigxcpu", "writev_flood",
        "thread_churn"}     # thread_churn: 26 s on a loaded host (stop 46 durations run)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in HOSTILE])
def test_a_hostile_submission_is_graded_on_the_students_side_and_the_next_grading_is_unharmed(
        executor, reference_total, name):
    result = grade_hostile(executor, HOSTILE[name], reference_total, name)
    said = " ".join(t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed")
    if name.startswith(("comm_forges", "thread_sends_itself")):
        # a signal it sent itself: never told as a fault of its code
        assert "the kernel logged" not in said, said
    if name == "spinners_ignore_sigxcpu":
        # review RE: the kernel's RLIMIT_CPU (its SIGKILL at the hard limit, SIGXCPU ignored) came before the zygote's
        # check and read "killed by SIGKILL, which the grader did not send": what it reached is the CPU limit. Whether
        # the spinners reach it before the grading ends depends on the host's load: a death told is the limit.
        zh = " ".join(t["feedback"]["zh"] for t in result["tests"] if t["outcome"] != "passed")
        assert "did not send" not in said and "SIGXCPU" not in said, said
        assert "不是评分器发出的" not in zh and "SIGXCPU" not in zh, zh
        if "your code's process stopped" in said:
            assert "CPU time" in said and "CPU 时间" in zh, said
