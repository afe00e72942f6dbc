"""One request to a jail and its reply, as a grading makes ~85 of them: wall time, and where the
trusted side's part goes (encoding the request, sending it, waiting for and decoding the reply),
next to a bare ping-pong of the same size over a socket pair between two processes (the floor the
wake-ups set on this machine). Then the same request through ``Session.call`` whole (the client's
limits, idle watch, budget and reply checks included), with the CPU it costs each side: this
process (the grading child's part) and the jail (its serving loop's part; the module does almost
nothing), read from the jail's schedstat. The garbage collector is off for that part, as in the
grading child. Writes bench/results/round_trip.json (or --out).

    .venv/bin/python bench/round_trip.py [--calls 2000] [--out NAME]

The request is the suite's commonest: ``__call__`` of a module with three (2, 4, 5, 16) float32
tensors, answered with two tensors.
"""

from __future__ import annotations

import argparse
import gc
import os
import socket
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

MODULE = ("import torch\n\nclass M(torch.nn.Module):\n"
          "    def forward(self, q, k, v, mask=None, return_weights=False):\n"
          "        return q * 2, k\n")


def ping_pong_seconds(size: int, calls: int) -> float:
    """Median wall time of ``size`` bytes sent to another process and sent back."""
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        a.close()
        while data := b.recv(1 << 16):
            b.sendall(data)
        os._exit(0)
    b.close()
    msg, times = b"x" * size, []
    for _ in range(calls):
        t0 = time.perf_counter()
        a.sendall(msg)
        got = 0
        while got < size:
            got += len(a.recv(1 << 16))
        times.append(time.perf_counter() - t0)
    a.close()
    os.waitpid(pid, 0)
    return statistics.median(times)


def warm_module(session, x) -> int:
    """Load MODULE in ``session``, build its ``M`` and call it 50 times with ``x`` (the first calls'
    costs left out of what is measured next); the handle."""
    session.load()
    h = session.new("M")
    for _ in range(50):
        session.call(h, "__call__", x, x, x, None, return_weights=True)
    return h


def jail_cpu_seconds(pid: int) -> float:
    """CPU seconds the jail's threads have used (schedstat: nanoseconds, not clock ticks)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--out", default="round_trip")
    args = parser.parse_args()

    import torch

    from grading.sandbox import Executor, protocol

    x = torch.randn(2, 4, 5, 16)
    parts: dict[str, list[float]] = {"encode": [], "send": [], "wait_and_decode": [], "total": []}
    with Executor() as ex, ex.session(MODULE) as s:
        h = warm_module(s, x)
        # Session._request, split into its parts (the same calls, timed one by one).
        reader = getattr(s, "_rfile", s._sock)
        for _ in range(args.calls):
            s._seq += 1
            t0 = time.perf_counter()
            data = protocol.encode({"op": "call", "seq": s._seq, "handle": h, "method": "__call__",
                                    "args": [x, x, x, None], "kwargs": {"return_weights": True}})
            t1 = time.perf_counter()
            s._sock.sendall(data)
            t2 = time.perf_counter()
            reply = protocol.recv(reader)
            t3 = time.perf_counter()
            assert reply["ok"] and reply["seq"] == s._seq
            for key, v in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t3 - t0), strict=True):
                parts[key].append(v)
        size = len(data)
        # Session.call whole, as a test makes it: wall per request, and CPU per request on each side.
        gc.disable()
        pid = s._pid()
        walls = []
        jail0, own0 = jail_cpu_seconds(pid), time.process_time()
        for _ in range(args.calls):
            t0 = time.perf_counter()
            s.call(h, "__call__", x, x, x, None, return_weights=True)
            walls.append(time.perf_counter() - t0)
        own, jail = time.process_time() - own0, jail_cpu_seconds(pid) - jail0
        gc.enable()
    call = {"wall_median_seconds": statistics.median(walls), "client_cpu_seconds": own / args.calls,
            "jail_cpu_seconds": jail / args.calls}
    medians = {k: statistics.median(v) for k, v in parts.items()}
    floor = ping_pong_seconds(size, args.calls)
    data_out = {"command": " ".join(["python", "bench/round_trip.py", *sys.argv[1:]]),
                "load_average": os.getloadavg(), "calls": args.calls, "request_bytes": size,
                "median_seconds": medians, "bare_ping_pong_seconds": floor, "session_call": call}
    path = write(args.out, data_out)
    print("round trip, median us: " + ", ".join(f"{k} {v * 1e6:.0f}" for k, v in medians.items())
          + f"; bare ping-pong of {size} bytes {floor * 1e6:.0f} us; Session.call: wall median "
          + f"{call['wall_median_seconds'] * 1e6:.0f} us, CPU per request {call['client_cpu_seconds'] * 1e6:.0f} us "
          + f"here and {call['jail_cpu_seconds'] * 1e6:.0f} us in the jail; written to {path}")


if __name__ == "__main__":
    main()
