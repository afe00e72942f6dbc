"""Grading one correct submission with the warm sandbox vs a bare `python -c "import torch"`.

Goal (grading-core issue): median grading time below 0.5 x one bare torch import, measured in the
same run on the same machine. Writes bench/results/grade_one.json.

    .venv/bin/python bench/grade_one.py [--repeats 15] [--suite attention_numpy [--code FILE]]

With --suite attention_numpy it grades the course page's NumPy code as printed (it imports pandas
for its demo) and writes bench/results/grade_one_attention_numpy.json.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import bare_torch_import_seconds, summary, write  # noqa: E402

CORRECT = {
    "attention": ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py",
    "attention_numpy": ROOT / "tests" / "fixtures" / "submissions" / "numpy" / "course_page.py",
}


def cpu_seconds(zygote_pid: int) -> float:
    """CPU used so far by this process, its reaped children (the pytest children) and the zygote
    with its reaped children (every jail and its supervisor): what one grading costs the machine,
    which unlike wall time does not depend on what else the machine is doing."""
    me = os.times()
    fields = Path(f"/proc/{zygote_pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    zygote = sum(int(x) for x in fields[11:15]) / tick      # utime, stime, cutime, cstime
    return me.user + me.system + me.children_user + me.children_system + zygote


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--suite", default="attention", choices=sorted(CORRECT))
    parser.add_argument("--code", type=Path, default=None, help="a correct submission of the suite")
    parser.add_argument("--no-preload", action="store_true",
                        help="start the zygote without the suites' packages (the worker preloads them)")
    args = parser.parse_args()

    from grading.executor import suite_packages
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor

    code = (args.code or CORRECT[args.suite]).read_bytes()
    preload = () if args.no_preload else suite_packages()
    with Executor(preload=preload) as ex:
        first = grade(GradeInput(code=code), args.suite, executor=ex)  # warms caches; reported separately
        assert first["status"] == "graded", first.get("message")
        times, cpus, totals = [], [], set()
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), cpu_seconds(ex.zygote_pid)
            result = grade(GradeInput(code=code), args.suite, executor=ex)
            time.sleep(0.3)   # let the zygote reap the jails' supervisors (their CPU is counted then)
            times.append(time.perf_counter() - t0 - 0.3)
            cpus.append(cpu_seconds(ex.zygote_pid) - c0)
            totals.add(result["total"])
    bare = bare_torch_import_seconds(max(5, args.repeats // 3))
    g, b = summary(times), summary(bare)
    data = {
        "suite": args.suite,
        "preload": list(preload),
        "code": str((args.code or CORRECT[args.suite]).relative_to(ROOT)),
        "grading_seconds": g,
        "grading_cpu_seconds": summary(cpus),
        "first_grading_seconds": first["duration_s"],
        "bare_torch_import_seconds": b,
        "ratio_median": g["median"] / b["median"],
        "goal_ratio_below": 0.5,
        "totals_seen": sorted(totals),
    }
    name = "grade_one" if args.suite == "attention" else f"grade_one_{args.suite}"
    path = write(name + ("_no_preload" if args.no_preload else ""), data)
    print(f"grading one correct submission: median {g['median'] * 1000:.0f} ms (p95 {g['p95'] * 1000:.0f} ms), "
          f"CPU median {data['grading_cpu_seconds']['median'] * 1000:.0f} ms")
    print(f"bare python -c 'import torch':  median {b['median'] * 1000:.0f} ms")
    print(f"ratio {data['ratio_median']:.3f} (goal < 0.5); totals {sorted(totals)}; written to {path}")


if __name__ == "__main__":
    main()
