"""What batching a test's independent calls into one round trip could save at most (issue 14 item 1,
round 38): N requests to a jail one after another (each waits for its reply, as a grading's calls do
today) against the same N requests written in one ``sendall`` and their N replies read afterwards.

The jail's runtime reads its requests through a buffered reader, so requests written back to back
are served in order without any change to it: the pipelined runs are the floor a batch op (one frame
with N calls, N replies) could reach, before the per-call limits, idle watch and reply checks that
``Session._request`` adds to each call (``bench/round_trip.py`` measures those). Both ways run
interleaved in the same session (one group of each per round), so the host's drift hits both alike.
Per way and N: wall per call (median of the groups' wall / N), and CPU per call on this side
(``time.process_time``) and in the jail (its schedstat). The garbage collector is off, as in the
grading child. Writes bench/results/batch_trip.json (or --out).

    .venv/bin/python bench/batch_trip.py [--groups 300] [--sizes 1 2 4 8] [--out NAME]

The request is ``bench/round_trip.py``'s, the suite's commonest: ``__call__`` of a module with three
(2, 4, 5, 16) float32 tensors, answered with two tensors; the module does almost nothing, so what is
measured is the round trip's own cost.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402
from bench.round_trip import MODULE, jail_cpu_seconds, warm_module  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=300, help="groups of N calls per way and N")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--out", default="batch_trip")
    args = parser.parse_args()

    import torch

    from grading.sandbox import Executor, protocol

    x = torch.randn(2, 4, 5, 16)
    ways = ("one_by_one", "pipelined")
    # (way, n) -> per-group [wall s, client CPU s, jail CPU s]
    seen: dict[tuple[str, int], list[list[float]]] = {(w, n): [] for w in ways for n in args.sizes}
    with Executor() as ex, ex.session(MODULE) as s:
        h = warm_module(s, x)
        reader = getattr(s, "_rfile", s._sock)
        pid = s._pid()

        def request() -> bytes:
            s._seq += 1
            return protocol.encode({"op": "call", "seq": s._seq, "handle": h, "method": "__call__",
                                    "args": [x, x, x, None], "kwargs": {"return_weights": True}})

        def check(reply: dict, seq: int) -> None:
            assert reply["ok"] and reply["seq"] == seq, reply

        def one_by_one(n: int) -> None:
            for _ in range(n):
                s._sock.sendall(request())
                check(protocol.recv(reader), s._seq)

        def pipelined(n: int) -> None:
            first = s._seq + 1
            s._sock.sendall(b"".join(request() for _ in range(n)))
            for i in range(n):
                check(protocol.recv(reader), first + i)

        gc.disable()
        try:
            for _ in range(args.groups):
                for n in args.sizes:
                    for way, run in (("one_by_one", one_by_one), ("pipelined", pipelined)):
                        jail0 = jail_cpu_seconds(pid)
                        own0, t0 = time.process_time(), time.perf_counter()
                        run(n)
                        wall, own = time.perf_counter() - t0, time.process_time() - own0
                        seen[(way, n)].append([wall, own, jail_cpu_seconds(pid) - jail0])
        finally:
            gc.enable()
    per_call = {}
    for (way, n), groups in seen.items():
        per_call.setdefault(way, {})[str(n)] = {
            "wall_median_us": statistics.median(g[0] for g in groups) / n * 1e6,
            "client_cpu_mean_us": statistics.fmean(g[1] for g in groups) / n * 1e6,
            "jail_cpu_mean_us": statistics.fmean(g[2] for g in groups) / n * 1e6}
    data = {"command": " ".join(["python", "bench/batch_trip.py", *sys.argv[1:]]),
            "load_average": os.getloadavg(), "groups": args.groups, "per_call": per_call}
    path = write(args.out, data)
    for n in args.sizes:
        a, b = per_call["one_by_one"][str(n)], per_call["pipelined"][str(n)]
        print(f"N={n}: per call, one by one -> pipelined: wall {a['wall_median_us']:.0f} -> {b['wall_median_us']:.0f} us, "
              f"client CPU {a['client_cpu_mean_us']:.0f} -> {b['client_cpu_mean_us']:.0f} us, "
              f"jail CPU {a['jail_cpu_mean_us']:.0f} -> {b['jail_cpu_mean_us']:.0f} us")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
