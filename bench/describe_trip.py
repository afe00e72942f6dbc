"""What a describe request costs next to the build it follows, and what the build that brings the
layout back spares (round 25): the suite's MultiHeadAttention built with its weights, then described
with its four projections asked by name, two requests (``build`` then ``describe``) against one
(``build(describe=...)`` then a ``describe`` answered from its reply). Blocks of each alternate;
wall time and the trusted process's CPU per build+describe. Writes bench/results/describe_trip.json.

    .venv/bin/python bench/describe_trip.py [--blocks 10] [--per-block 100] [--out NAME]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "out_proj")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--per-block", type=int, default=100)
    parser.add_argument("--out", default="describe_trip")
    args = parser.parse_args()

    import torch

    from grading.sandbox import Executor, Limits

    code = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_text()
    params = {f"{p}.{w}": torch.randn(16, 16) if w == "weight" else torch.randn(16)
              for p in PROJECTIONS for w in ("weight", "bias")}
    runs: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in ("two_requests", "one_request")}
    limits = Limits(wall=600, cpu=300, max_received=1 << 30)     # thousands of builds in one session
    with Executor(limits) as ex, ex.session(code, "attention.py", "attention") as s:
        s.load()

        def two() -> None:
            h = s.build("MultiHeadAttention", (16, 4), {}, params=params, eval_mode=True)
            s.describe(h, PROJECTIONS)

        def one() -> None:
            h = s.build("MultiHeadAttention", (16, 4), {}, params=params, eval_mode=True, describe=PROJECTIONS)
            s.describe(h, PROJECTIONS)

        for _ in range(20):
            two()
            one()
        for _ in range(args.blocks):
            for name, fn in (("two_requests", two), ("one_request", one)):
                w0, c0 = time.perf_counter(), time.process_time()
                for _ in range(args.per_block):
                    fn()
                runs[name]["wall"].append((time.perf_counter() - w0) / args.per_block)
                runs[name]["cpu"].append((time.process_time() - c0) / args.per_block)
    medians = {name: {k: statistics.median(v) for k, v in r.items()} for name, r in runs.items()}
    spared = {k: medians["two_requests"][k] - medians["one_request"][k] for k in ("wall", "cpu")}
    data = {"command": " ".join(["python", "bench/describe_trip.py", *sys.argv[1:]]),
            "load_average": os.getloadavg(), "per_block": args.per_block, "blocks": args.blocks,
            "median_seconds_per_build_and_describe": medians, "spared_seconds": spared}
    path = write(args.out, data)
    print(", ".join(f"{name}: wall {m['wall'] * 1e6:.0f} us, trusted CPU {m['cpu'] * 1e6:.0f} us"
                    for name, m in medians.items())
          + f"; spared per describe: wall {spared['wall'] * 1e6:.0f} us, trusted CPU {spared['cpu'] * 1e6:.0f} us"
          + f"; written to {path}")


if __name__ == "__main__":
    main()
