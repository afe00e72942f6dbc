"""Grading one correct submission with the warm sandbox vs a bare `python -c "import torch"`.

Goal (issue 14): median grading time at most 0.06 x one bare torch import, measured in the same
run on the same machine. Because the machine is shared, the CPU time of a grading (every process
it involves) is reported too, with where it goes, and compared with the CPU time of the import.
Writes bench/results/grade_one.json (or --out).

    .venv/bin/python bench/grade_one.py [--repeats 15] [--out NAME] [--suite attention_numpy [--code FILE]]

With --suite attention_numpy it grades the course page's NumPy code as printed (it imports pandas
for its demo) and writes bench/results/grade_one_attention_numpy.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import bare_torch_import_seconds, proc_stat, summary, write  # noqa: E402

CORRECT = {
    "attention": ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py",
    "attention_numpy": ROOT / "tests" / "fixtures" / "submissions" / "numpy" / "course_page.py",
}
PARTS = ("worker", "pytest_child", "zygote", "jails")


def cpu_parts(zygote_pid: int) -> dict[str, float]:
    """CPU used so far by this process (the worker's part), its reaped children (the forked pytest
    children), the zygote itself (forking and supervising each jail) and the zygote's reaped
    children (every jail, with the student's code)."""
    me = os.times()
    fields = proc_stat(zygote_pid)
    tick = os.sysconf("SC_CLK_TCK")
    return {"worker": me.user + me.system, "pytest_child": me.children_user + me.children_system,
            "zygote": (int(fields[11]) + int(fields[12])) / tick,
            "jails": (int(fields[13]) + int(fields[14])) / tick}


def cpu_seconds(zygote_pid: int) -> float:
    """CPU used so far by every process of a grading: what one grading costs the machine, which
    unlike wall time does not depend on what else the machine is doing."""
    return sum(cpu_parts(zygote_pid).values())


def bare_torch_import_cpu_seconds(repeats: int) -> list[float]:
    """CPU time (user + system) of `python -c "import torch"`, measured like its wall time."""
    out = []
    for _ in range(repeats):
        before = os.times()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        after = os.times()
        out.append(after.children_user + after.children_system
                   - before.children_user - before.children_system)
    return out


def _shown(path: Path) -> str:
    """The submission's path as recorded: relative to the tree when inside it (a file elsewhere, e.g. one graded
    by both trees of bench/ab.py, as given)."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--suite", default="attention", choices=sorted(CORRECT))
    parser.add_argument("--code", type=Path, default=None, help="a submission of the suite (default: its correct one)")
    parser.add_argument("--no-preload", action="store_true",
                        help="start the zygote without the suites' packages (the worker preloads them)")
    parser.add_argument("--out", default=None, help="results file name (default from the suite)")
    parser.add_argument("--pause", type=float, default=0.3,
                        help="seconds between gradings, for the zygote to reap the jails before their "
                             "CPU is read (0: back to back; each grading's CPU then lags by a jail)")
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
        parts: dict[str, list[float]] = {p: [] for p in PARTS}
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), cpu_parts(ex.zygote_pid)
            result = grade(GradeInput(code=code), args.suite, executor=ex)
            t1 = time.perf_counter()
            time.sleep(args.pause)   # let the zygote reap the jails (their CPU is counted then)
            c1 = cpu_parts(ex.zygote_pid)
            times.append(t1 - t0)
            for p in PARTS:
                parts[p].append(c1[p] - c0[p])
            cpus.append(sum(c1.values()) - sum(c0.values()))
            totals.add(result["total"])
    n_bare = max(5, args.repeats // 3)
    bare = bare_torch_import_seconds(n_bare)
    bare_cpu = bare_torch_import_cpu_seconds(n_bare)
    g, b, c, bc = summary(times), summary(bare), summary(cpus), summary(bare_cpu)
    data = {
        "command": " ".join(["python", "bench/grade_one.py", *sys.argv[1:]]),
        "load_average": os.getloadavg(),
        "suite": args.suite,
        "preload": list(preload),
        "code": _shown(args.code or CORRECT[args.suite]),
        "grading_seconds": g,
        "grading_cpu_seconds": c,
        "grading_cpu_median_by_process": {p: statistics.median(v) for p, v in parts.items()},
        # Means resolve what the 10 ms ticks of /proc round away in each grading's medians.
        "grading_cpu_mean_by_process": {p: statistics.fmean(v) for p, v in parts.items()},
        "grading_cpu_mean_seconds": statistics.fmean(cpus),
        "first_grading_seconds": first["duration_s"],
        "bare_torch_import_seconds": b,
        "bare_torch_import_cpu_seconds": bc,
        "ratio_median": g["median"] / b["median"],
        "cpu_ratio_median": c["median"] / bc["median"],
        "goal_ratio_at_most": 0.06,
        "totals_seen": sorted(totals),
    }
    name = "grade_one" if args.suite == "attention" else f"grade_one_{args.suite}"
    path = write(args.out or name + ("_no_preload" if args.no_preload else ""), data)
    print(f"grading one correct submission: median {g['median'] * 1000:.0f} ms (p95 {g['p95'] * 1000:.0f} ms), "
          f"CPU median {c['median'] * 1000:.0f} ms: "
          + ", ".join(f"{p} {v * 1000:.0f}" for p, v in data["grading_cpu_median_by_process"].items())
          + f"; CPU mean {data['grading_cpu_mean_seconds'] * 1000:.1f} ms: "
          + ", ".join(f"{p} {v * 1000:.1f}" for p, v in data["grading_cpu_mean_by_process"].items()))
    print(f"bare python -c 'import torch':  median {b['median'] * 1000:.0f} ms, CPU {bc['median'] * 1000:.0f} ms")
    print(f"ratio {data['ratio_median']:.3f} wall, {data['cpu_ratio_median']:.3f} CPU (goal <= 0.06); "
          f"load average {data['load_average'][0]:.1f}; totals {sorted(totals)}; written to {path}")


if __name__ == "__main__":
    main()
