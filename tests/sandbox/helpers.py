"""Helpers of the sandbox tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import torch

from grading.sandbox import Executor, Limits, SandboxUnavailable, protocol

ABUSE = Path(__file__).resolve().parent.parent / "fixtures" / "submissions" / "abuse"

# The limits of the one `executor` fixture (tests/conftest.py): short call and import timeouts
# keep hang tests fast.
TEST_LIMITS = Limits(cpu=5, wall=20, call_timeout=2, import_timeout=3)

GOOD = '''
import torch


class Scale(torch.nn.Module):
    def __init__(self, factor=2.0):
        super().__init__()
        self.factor = factor
        self.lin = torch.nn.Linear(3, 2)

    def forward(self, x, shift=0.0):
        return x * self.factor + shift

    def project(self, x):
        return self.lin(x)

    def both(self, x):
        return x + 1, x - 1
'''


def abuse_source(name: str) -> str:
    return (ABUSE / name).read_text()


def processes() -> list[dict]:
    out = subprocess.run(["ps", "-eo", "pid=,ppid=,uid=,stat=,args="], capture_output=True, text=True,
                         check=True).stdout
    procs = []
    for line in out.splitlines():
        parts = line.split(None, 4)
        if len(parts) < 4:
            continue
        procs.append({"pid": int(parts[0]), "ppid": int(parts[1]), "uid": int(parts[2]), "stat": parts[3],
                      "args": parts[4] if len(parts) > 4 else ""})
    return procs


def leftovers(ex: Executor) -> list[dict]:
    """Processes of the jail uids, and any child of the zygote (supervisors, jails, zombies)."""
    return [p for p in processes() if p["uid"] in ex.uids or p["ppid"] == ex.zygote_pid]


def wait_no_leftovers(ex: Executor, timeout: float = 3.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        left = leftovers(ex)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def assert_healthy(ex: Executor) -> None:
    """Nothing is left running, the zygote is fine, and a correct module works."""
    assert wait_no_leftovers(ex) == []
    assert ex.alive
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    with ex.session(GOOD, "good.py", "good") as s:
        s.load()
        h = s.new("Scale", 3.0)
        out = s.call(h, "__call__", x, shift=1.0)
        assert type(out) is torch.Tensor
        assert torch.equal(out, x * 3.0 + 1.0)
    assert wait_no_leftovers(ex) == []


class SharedExecutor:
    """The sandbox Executor the test modules share (one zygote start: ~1.5 s of CPU, paid by each of
    the ~40 modules that used the sandbox when each had its own)."""

    def __init__(self) -> None:
        self.current: Executor | None = None

    def get(self) -> Executor:
        if self.current is not None and not self.current.alive:
            self.close()            # a module ended its zygote: the next one gets a fresh executor
        if self.current is None:
            try:
                self.current = Executor(TEST_LIMITS)
            except SandboxUnavailable as e:
                pytest.fail(f"sandbox unavailable on a root host: {e.reason}")
        return self.current

    def close(self) -> None:
        """Close the executor (its zygote kills whatever jail is left) and check that nothing of it runs."""
        ex, self.current = self.current, None
        if ex is not None:
            ex.close()
            assert wait_no_leftovers(ex) == []


def roundtrip(value, **caps):
    """`value` encoded, sent over a real socket pair and decoded (the wire format, no processes)."""
    a, b = socket.socketpair()
    try:
        data = protocol.encode(value)
        t = threading.Thread(target=a.sendall, args=(data,))
        t.start()
        out = protocol.recv(b, **caps)
        t.join()
        return out
    finally:
        a.close()
        b.close()



def kernel_records_since(since: float) -> list[bytes]:
    """The text of every record in the kernel's log (/dev/kmsg) stamped at or after ``since`` (time.monotonic)."""
    import os

    from grading.sandbox.zygote import KMSG

    out: list[bytes] = []
    try:
        fd = os.open(KMSG, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        pytest.skip("no /dev/kmsg to read")
    try:
        while True:
            try:
                record = os.read(fd, 8192)
            except BrokenPipeError:     # records overwritten while reading
                continue
            except OSError:
                break
            head, _, text = record.partition(b";")
            fields = head.split(b",")
            if len(fields) >= 3 and int(fields[2]) >= since * 1e6:
                out.append(text.split(b"\n", 1)[0])
    finally:
        os.close(fd)
    return out


def jail_faults_logged(since: float) -> list[int]:
    """The pids of jails ("ag-jail") whose unhandled fault the kernel logged since ``since`` (time.monotonic), read
    with the zygote's own parser: a test of the crash wording asks this, because printk's host-wide rate limit drops
    fault lines when other processes fault (review RA, round 38), and then the fallback wording is the right one."""
    from grading.sandbox.zygote import kernel_record_end

    said = [kernel_record_end(text) for text in kernel_records_since(since) if text.startswith(b"ag-jail[")]
    return [s[1] for s in said if s is not None and s[0] == "fault"]
