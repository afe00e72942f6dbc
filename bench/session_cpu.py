"""CPU of one sandbox session that loads a one-line module and closes: the fixed cost of a jail
(the jail's fork, namespaces, mounts, pivot_root, seccomp, teardown), with no student
work. Writes bench/results/session_cpu.json.

    .venv/bin/python bench/session_cpu.py [--repeats 30] [--out NAME]
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
from bench.grade_one import cpu_parts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--out", default="session_cpu")
    args = parser.parse_args()

    from grading.sandbox import Executor

    with Executor() as ex:
        for _ in range(3):           # warm
            with ex.session("x = 1\n") as s:
                s.load()
        before = cpu_parts(ex.zygote_pid)
        walls = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            with ex.session("x = 1\n") as s:
                s.load()
            walls.append(time.perf_counter() - t0)
        time.sleep(0.5)              # let the zygote reap the last jails
        after = cpu_parts(ex.zygote_pid)
    per = {k: (after[k] - before[k]) / args.repeats for k in after}
    data = {"command": " ".join(["python", "bench/session_cpu.py", *sys.argv[1:]]),
            "load_average": os.getloadavg(), "repeats": args.repeats,
            "cpu_per_session_s": per, "wall_median_s": statistics.median(walls)}
    path = write(args.out, data)
    print("CPU per empty session: " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in per.items())
          + f"; wall median {data['wall_median_s'] * 1000:.0f} ms; written to {path}")


if __name__ == "__main__":
    main()
