"""Issue 14 item 1: what a jail prepared and warmed ahead of the upload could take off a grading's wall time.

The idea: fork a jail while the worker is idle, build it, and run our own code there (the tensor ops and
allocations a grading's first calls make), so the copy-on-write faults on pages shared with the zygote happen
before the student's code arrives; the student's module is loaded only on request and the jail is never reused.

This measures its best case without the sandbox's protocol: a parent set up as the zygote is (torch and the
jail's runtime imported, the same forwards run, ``prepare_for_forks``) forks children alternately:
- *cold*: the child runs the workload at once (today's jail: forked when the grading asks for it);
- *prepared*: the child first runs a warm-up, reports it is ready, waits for the parent's go, then runs the
  workload. Two warm-ups: *same code* (the workload's module compiled from the same source under another
  name: the best case, every code path the workload takes) and *own code* (the same work done by a module
  written otherwise, ``OTHER``: what a jail could run before it has the student's file).
The workload is one grading's jail side in shape: the module loaded from source, 19 builds, 85 forwards on
encoded/decoded tensors (the protocol's own ``encode``/``decode``), a few backwards. Reported per child:
the workload's wall, CPU and minor faults, and the parent's ``fork()`` call (the page-table copy on the
critical path when the jail is forked at the request), plus the warm-up's own CPU (off the critical path,
but a prepared process's CPU is still the machine's).

A model, and an optimistic one: in the real sandbox (the same own-code warm-up run in each jail before it served)
the warm-up spared ~1,600 of a grading's ~4,290 jail faults after the builds, not 76-87 % of them (README, round 40;
``prepared_jail_faults_round40P.json``).

    .venv/bin/python bench/prepared_warm.py [--children 20] [--out NAME]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

SOURCE = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_text()
# Our own warm-up written as our code would be, not as the submission is: one fused projection and torch's own
# attention. What a prepared jail could really run (it cannot run the student's class before the upload).
OTHER = """
import torch
from torch import nn
import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x, return_weights=False):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        if return_weights:
            w = torch.softmax(q @ k.transpose(-2, -1) / (d // self.h) ** 0.5, dim=-1)
            o = w @ v
        else:
            o = F.scaled_dot_product_attention(q, k, v)
        o = self.out(o.transpose(1, 2).reshape(b, n, d))
        return (o, w) if return_weights else o
"""
WARM_UPS = {"cold": None, "prepared_same_code": SOURCE, "prepared_own_code": OTHER}
BUILDS, FORWARDS, BACKWARDS = 19, 85, 4


def _usage() -> tuple[float, float, int]:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), ru.ru_utime + ru.ru_stime, ru.ru_minflt


def workload(name: str, source: str = SOURCE) -> None:
    """The jail's side of one grading, in shape (see the module's docstring); ``name``: the module's name,
    ``source``: the module's code."""
    import torch

    from grading.sandbox import protocol

    ns: dict = {"__name__": name}
    exec(compile(source, f"{name}.py", "exec"), ns)   # trusted code standing for a submission
    mods = []
    for i in range(BUILDS):
        d, h = (16, 4) if i % 2 else (32, 8)
        mods.append((d, ns["MultiHeadAttention"](d, h)))
    for i in range(FORWARDS):
        d, m = mods[i % BUILDS]
        x = torch.randn(2, 3 + i % 5, d)
        header, body = _split(protocol.encode([x]))
        (x2,) = protocol.decode(header, body)
        out = m(x2, return_weights=bool(i % 3 == 0))
        protocol.encode(out)
    for i in range(BACKWARDS):
        d, m = mods[i]
        x = torch.randn(2, 4, d, requires_grad=True)
        m(x).sum().backward()


def _split(frame: bytes) -> tuple[bytes, bytes]:
    """A frame's header and body as ``protocol.decode`` takes them (protocol.encode: length, header, body)."""
    hlen = int.from_bytes(frame[:4], "big")
    return frame[4:4 + hlen], frame[4 + hlen:]


def _child(warm_up: str | None, ready_w: int, go_r: int, out_w: int) -> None:
    import gc

    gc.disable()                      # as the grading child does; the jail keeps gc on, a short one rarely runs
    warm_cpu = 0.0
    if warm_up is not None:
        _, c0, _ = _usage()
        workload("ours", warm_up)
        _, c1, _ = _usage()
        warm_cpu = c1 - c0
    os.write(ready_w, b"r")
    os.read(go_r, 1)
    t0, c0, f0 = _usage()
    workload("student")
    t1, c1, f1 = _usage()
    os.write(out_w, repr((t1 - t0, c1 - c0, f1 - f0, warm_cpu)).encode())


def _one(warm_up: str | None) -> dict[str, float]:
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    out_r, out_w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            _child(warm_up, ready_w, go_r, out_w)
        finally:
            os._exit(0)
    fork_s = time.perf_counter() - t0
    os.read(ready_r, 1)
    os.write(go_w, b"g")
    import ast

    wall, cpu, faults, warm_cpu = ast.literal_eval(os.read(out_r, 256).decode())
    os.waitpid(pid, 0)
    for fd in (ready_r, ready_w, go_r, go_w, out_r, out_w):
        os.close(fd)
    return {"fork_s": fork_s, "wall_s": wall, "cpu_s": cpu, "minor_faults": faults, "warm_cpu_s": warm_cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--children", type=int, default=20, help="children of each kind, alternated")
    parser.add_argument("--out", default="prepared_warm")
    args = parser.parse_args()

    import torch

    import grading.sandbox.runtime  # noqa: F401 - what the zygote imports before its forks
    from grading.executor import suite_packages
    from grading.forking import prepare_for_forks
    from grading.sandbox.zygote import preload

    torch.set_num_threads(1)
    preload(list(suite_packages()))
    for _ in range(3):
        workload("zygote_warm")         # the zygote's own warm forwards (a parent never starts cold)
    prepare_for_forks()
    runs: dict[str, list[dict]] = {kind: [] for kind in WARM_UPS}
    kinds = list(WARM_UPS)
    for i in range(args.children):
        for kind in kinds[i % len(kinds):] + kinds[:i % len(kinds)]:    # each kind first in turn
            runs[kind].append(_one(WARM_UPS[kind]))
    med = {kind: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for kind, rs in runs.items()}
    data = {"command": " ".join(["python", "bench/prepared_warm.py", *sys.argv[1:]]),
            "load_average": os.getloadavg(), "children": args.children,
            "workload": {"builds": BUILDS, "forwards": FORWARDS, "backwards": BACKWARDS},
            "median": med, "per_child": runs}
    path = write(args.out, data)
    for kind, m in med.items():
        print(f"{kind:18}: workload wall {m['wall_s'] * 1e3:.1f} ms, CPU {m['cpu_s'] * 1e3:.1f} ms, "
              f"{m['minor_faults']:.0f} faults; fork() {m['fork_s'] * 1e3:.2f} ms; warm-up CPU {m['warm_cpu_s'] * 1e3:.1f} ms")
    print(f"load average {data['load_average'][0]:.1f}; written to {path}")


if __name__ == "__main__":
    main()
