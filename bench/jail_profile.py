"""Where the jail's side of a request goes: the runtime's serving loop (``Runtime.serve``, as the
jail runs it, but in a plain forked process, without namespaces or seccomp, so that cProfile can
run in it) answers ``__call__`` requests of the correct submission's ``MultiHeadAttention`` on
(2, 5, 16) inputs, the suite's commonest request. The profile's clock is the serving thread's CPU
time (``time.thread_time``), so other load on the host does not count, but cProfile's own
overhead does: the shares matter, not the totals. The trusted side times its own CPU per request
without a profiler. Writes bench/results/jail_profile.json (or --out).

    .venv/bin/python bench/jail_profile.py [--calls 3000] [--out NAME]

The groups: *decode* (the request's header and tensors: protocol._recv, _decode_parsed and what they
call), *encode* (the reply: protocol.encode), *result* (the runtime's reading of what forward returned:
Runtime.result, _plain_tensor), *in-place check* (the arguments' bytes before and after the call:
_snapshot, _changed), *forward* (the student's module, torch included), *loop* (the rest of serve and
op_call: dispatch, the reply dict, flushing stdio).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import socket
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

SUBMISSION = ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py"

# Each group's entry points (cumulative time, so what they call is counted with them).
GROUPS = {
    "decode": [("protocol.py", "_recv")],
    "encode": [("protocol.py", "encode")],
    "result": [("runtime.py", "result")],
    "in-place check": [("runtime.py", "_snapshot"), ("runtime.py", "_changed")],
    "forward": [("module.py", "_call_impl")],
}


def serve_profiled(sock: socket.socket, out: str) -> None:
    """In the child: the runtime's loop under cProfile until the peer closes."""
    from grading.sandbox.runtime import Runtime

    profile = cProfile.Profile(time.thread_time)
    profile.enable()
    Runtime().serve(sock, 8 << 20)
    profile.disable()
    profile.dump_stats(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--out", default="jail_profile")
    args = parser.parse_args()

    import torch

    from grading.sandbox import protocol

    torch.set_num_threads(1)
    prof_path = tempfile.mktemp(suffix=".prof")
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        ours.close()
        serve_profiled(theirs, prof_path)
        os._exit(0)
    theirs.close()
    rfile = protocol.reader(ours)
    seq = 0

    def request(body: dict):
        nonlocal seq
        seq += 1
        ours.sendall(protocol.encode({**body, "seq": seq}))
        reply = protocol.recv(rfile)
        assert reply["ok"], reply
        return reply["value"]

    request({"op": "load", "source": SUBMISSION.read_text(), "filename": "attention.py", "module_name": "attention"})
    handle = request({"op": "new", "name": "MultiHeadAttention", "args": [16, 4], "kwargs": {}})
    x = torch.randn(2, 5, 16)
    call = {"op": "call", "handle": handle, "method": "__call__", "args": [x, x], "kwargs": {"return_weights": True}}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(args.calls):
        request(call)
    client_cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    ours.shutdown(socket.SHUT_RDWR)
    os.waitpid(pid, 0)

    stats = pstats.Stats(prof_path)
    os.unlink(prof_path)
    total = stats.total_tt
    shares = {}
    for group, entries in GROUPS.items():
        cum = sum(ct for (file, _, fn), (_, _, _, ct, _) in stats.stats.items()
                  if any(file.endswith(f) and fn == name for f, name in entries))
        shares[group] = cum / total
    shares["loop"] = 1 - sum(shares.values())
    result = {"command": " ".join(["python", "bench/jail_profile.py", *sys.argv[1:]]),
              "load_average": os.getloadavg(), "calls": args.calls,
              "jail_profiled_cpu_per_call_seconds": total / (args.calls + 2),
              "trusted_cpu_per_call_seconds": client_cpu / args.calls,
              "wall_per_call_seconds": wall / args.calls, "jail_shares": shares}
    path = write(args.out, result)
    print(f"jail (profiled) {result['jail_profiled_cpu_per_call_seconds'] * 1e6:.0f} us CPU per request: "
          + ", ".join(f"{k} {v:.0%}" for k, v in shares.items())
          + f"; trusted side {result['trusted_cpu_per_call_seconds'] * 1e6:.0f} us CPU per request "
          + f"(no profiler); written to {path}")


if __name__ == "__main__":
    main()
