"""Review RA of round 38 on zygote.kernel_end: a record is read as the kernel writes it, from its start.

A process's name (comm, 15 bytes) is the student's, and since kernel 6.18 a fault line ends with the base name of the
file the faulting ip lies in, also the student's: the pid was the last "[<pid>]: segfault at" of the line, so a file
named "x[<pid>]: segfault at " made another jail's self-sent SIGSEGV a "crash" and hid the faulting one's own.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time

import pytest

from grading.sandbox.zygote import kernel_end
from tests.sandbox.helpers import kernel_records_since

TAIL = b" ip 00007f8eceb85ad8 sp 00007fffe6007478 error 4"


def _said(tmp_path, text: bytes, pid: int, stamp_us: int | None = None) -> str | None:
    """kernel_end of ``pid`` over a log of one kernel record (a regular file reads as one record, then the end)."""
    since = time.monotonic()
    stamp = int(since * 1e6) + 1000 if stamp_us is None else stamp_us     # 1 ms after the start
    log = tmp_path / "kmsg"
    log.write_bytes(b"3,100,%d,-;" % stamp + text + b"\n SUBSYSTEM=x\n")
    return kernel_end(pid, since, kmsg=str(log))


def test_a_fault_line_whose_file_name_forges_another_pid_names_the_faulting_process(tmp_path):
    line = b"ag-jail[500]: segfault at 0" + TAIL + b" in x[777]: segfault at [0,7f8ecea44000+1000]"
    assert _said(tmp_path, line, 500) == "fault"
    assert _said(tmp_path, line, 777) is None


@pytest.mark.parametrize("comm", [b"x[12", b"[1]", b"a[7]: segfaul", b"[777]:", b"\xe4\xb8\xad[777]", b"\n[777]"],
                         ids=["open_bracket", "bracketed_pid", "almost_the_wording", "pid_colon", "utf8", "newline"])
def test_a_hostile_process_name_never_moves_the_pid_read(tmp_path, comm):
    # /dev/kmsg writes bytes < 0x20, >= 0x7f and backslashes as \xNN: the name counts in bytes once unescaped
    escaped = b"".join(b"\\x%02x" % c if c < 0x20 or c >= 0x7f or c == 0x5c else bytes([c]) for c in comm)
    line = escaped + b"[500]: segfault at 0" + TAIL + b" in x[777]: segfault at [0,1+1000]"
    assert _said(tmp_path, line, 500) == "fault"
    assert _said(tmp_path, line, 777) is None


@pytest.mark.parametrize("comm", [b"[777] trap ", b"[7] trap a ip:", b"ag-jail"], ids=["fake_trap", "fake_ip", "plain"])
def test_a_trap_line_is_read_from_its_start(tmp_path, comm):
    line = b"traps: " + comm + b"[500] trap divide error ip:7f1 sp:7ff error:0 in x[777] trap a ip:1 sp:1 error:0"
    assert _said(tmp_path, line, 500) == "fault"
    assert _said(tmp_path, line, 777) is None
    gp = b"traps: " + comm + b"[500] general protection fault ip:7f1 sp:7ff error:0 in libc.so.6[1,2+3]"
    assert _said(tmp_path, gp, 500) == "fault"


def test_only_the_oom_killers_own_messages_name_a_killed_process(tmp_path):
    assert _said(tmp_path, b"Out of memory: Killed process 500 (x[1]) total-vm:1kB", 500) == "oom"
    assert _said(tmp_path, b"Memory cgroup out of memory: Killed process 500 (ag-jail) total-vm:1kB", 500) == "oom_cgroup"
    # a record that starts with a student's name (a fault line's) is never an OOM kill, whatever the name says
    assert _said(tmp_path, b"cgroup: Killed process 500 (" + TAIL, 500) is None


def test_a_record_from_before_the_jails_start_does_not_count(tmp_path):
    """The log's clock is CLOCK_MONOTONIC to the ms: a record 50 ms before the start is a previous holder's pid."""
    line = b"ag-jail[500]: segfault at 0" + TAIL
    assert _said(tmp_path, line, 500, stamp_us=int((time.monotonic() - 0.05) * 1e6)) is None
    assert _said(tmp_path, line, 500, stamp_us=int((time.monotonic() - 0.001) * 1e6)) == "fault"   # within the slack


def test_the_log_read_is_bounded_by_a_number_of_records(tmp_path):
    log = tmp_path / "kmsg"
    since = time.monotonic()
    log.write_bytes(b"3,100,%d,-;ag-jail[500]: segfault at 0" % int(since * 1e6 + 1000) + TAIL + b"\n")
    assert kernel_end(500, since, kmsg=str(log), max_records=2) == "fault"
    assert kernel_end(500, since, kmsg=str(log), max_records=1) is None    # stopped before the log's end


def test_a_real_fault_in_a_file_named_after_another_pid_is_the_faulting_processs(tmp_path):
    """Plain python3.11 names itself like a fault line (prctl PR_SET_NAME) and jumps into a file named
    "x[<pid>]: segfault at ": the kernel's line is found for its pid only."""
    python = shutil.which("python3.11")
    if python is None:
        pytest.skip("no python3.11")
    other = 9_999_999      # above PID_MAX_LIMIT (2**22): no real process holds it
    path = tmp_path / f"x[{other}]: segfault at "
    path.write_bytes(b"\0" * 4096)
    code = ("import ctypes\n"
            "libc = ctypes.CDLL(None)\n"
            f"libc.prctl(15, b'a[{other}]: segf', 0, 0, 0)\n"           # PR_SET_NAME
            f"f = open({str(path)!r}, 'rb')\n"
            "libc.mmap.restype = ctypes.c_void_p\n"
            "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, "
            "ctypes.c_long]\n"
            "p = libc.mmap(None, 4096, 1, 2, f.fileno(), 0)\n"          # PROT_READ, MAP_PRIVATE: executing it faults
            "ctypes.CFUNCTYPE(None)(p)()\n")
    since = time.monotonic()
    proc = subprocess.Popen([python, "-c", code])
    assert proc.wait(30) == -signal.SIGSEGV
    logged = kernel_records_since(since)
    if not any(b"[%d]: segfault at " % proc.pid in r for r in logged):
        pytest.skip("printk's rate limit dropped the fault line (other processes faulted)")
    assert any(b"x[%d]: segfault at " % other in r for r in logged), logged   # the forgery is in the real line
    assert kernel_end(proc.pid, since) == "fault"
    assert kernel_end(other, since) is None

