"""Page faults: what one costs on this host, and how many a grading takes in each process.

1. The cost of a copy-on-write fault (a child writes a page it shares with its parent) and of a
   zero-fill fault (a fresh anonymous page), each over 20,000 pages, in a forked child.
2. Minor faults per warm grading of a correct submission, split as ``bench/grade_one.py`` splits
   CPU: this process (the worker's part), its forked test process, the zygote and its jails.
3. The faults of a first ``MultiHeadAttention`` forward in a freshly forked child, after the parent
   ran it 5 or 500 times: whether warming code paths before the fork (CPython 3.11 specialises
   bytecode in place) spares the children's copies. It does not: the copies are of the pages
   whose objects' reference counts the child changes.

To see which pages the faults hit, record them while gradings run and map the addresses with the
zygote's ``/proc/PID/maps``: ``perf record -a -e exceptions:page_fault_user`` (error code bit 1:
a write, bit 0: the page was present, so a write to a present page is a copy-on-write).

    .venv/bin/python bench/faults.py [--repeats 10] [--out NAME] [--zygote-env NAME=VALUE ...]

``--zygote-env`` adds variables to the zygote's environment (``client._clean_env``), for allocator
settings the jails inherit: ``GLIBC_TUNABLES=glibc.malloc.tcache_count=0``, ``PYTHONMALLOC=malloc``
(round 38: none changed the jails' faults, README "Where a grading's CPU goes").
"""

from __future__ import annotations

import argparse
import ast
import mmap
import os
import resource
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import proc_stat, write  # noqa: E402

PAGES = 20_000
PAGE = 4096


def _in_child(measure):
    """Run ``measure()`` in a forked child; its result (numbers, tuples), read from a pipe."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.write(w, repr(measure()).encode())
        os._exit(0)
    os.close(w)
    out = b""
    while chunk := os.read(r, 64):
        out += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return ast.literal_eval(out.decode())


def _touch(buf) -> float:
    """Seconds per page to write one byte into each page of ``buf``, the bare loop subtracted."""
    t0 = time.perf_counter()
    for i in range(0, len(buf), PAGE):
        buf[i] = 2
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in range(0, len(buf), PAGE):
        buf[i] = 3
    loop = time.perf_counter() - t0
    return (first - loop) / (len(buf) // PAGE)


def fault_costs(repeats: int = 3) -> dict[str, float]:
    shared = bytearray(PAGES * PAGE)
    for i in range(0, len(shared), PAGE):
        shared[i] = 1                       # present in the parent: the child's writes copy it
    cow = [_in_child(lambda: _touch(shared)) for _ in range(repeats)]
    fresh = [_in_child(lambda: _touch(mmap.mmap(-1, PAGES * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)))
             for _ in range(repeats)]
    return {"copy_on_write_s": statistics.median(cow), "zero_fill_s": statistics.median(fresh)}


def first_forward_after_fork(warm: int, children: int = 15) -> dict[str, float]:
    """Median µs and minor faults of one forward of the reference MultiHeadAttention in a forked
    child, after ``warm`` forwards in its parent (itself a fresh child, so that it starts cold)."""
    def parent() -> tuple[float, float]:
        import gc

        import torch

        torch.set_num_threads(1)
        ns: dict = {}
        source = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_text()
        exec(compile(source, "reference.py", "exec"), ns)  # the trusted reference, not a student's
        x = torch.randn(2, 5, 16)

        def forward() -> None:
            ns["MultiHeadAttention"](16, 4)(x)

        def first() -> tuple[float, int]:
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t0 = time.perf_counter()
            forward()
            return time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

        for _ in range(warm):
            forward()
        gc.freeze()
        runs = [_in_child(first) for _ in range(children)]
        return statistics.median(t for t, _ in runs), statistics.median(f for _, f in runs)

    seconds, faults = _in_child(parent)
    return {"first_forward_us": seconds * 1e6, "first_forward_minor_faults": faults}


def _minflt(pid: int) -> tuple[int, int]:
    """(minor faults of ``pid``, of its reaped children), from /proc."""
    fields = proc_stat(pid)
    return int(fields[7]), int(fields[8])


def grading_faults(repeats: int, zygote_env: dict[str, str] | None = None) -> dict[str, float]:
    from grading.executor import suite_packages
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor, client

    if zygote_env:
        clean_env = client._clean_env
        client._clean_env = lambda: {**clean_env(), **zygote_env}

    code = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_bytes()
    parts: dict[str, list[int]] = {"worker": [], "test_process": [], "zygote": [], "jails": []}
    with Executor(preload=suite_packages()) as ex:
        for _ in range(3):
            grade(GradeInput(code=code), "attention", executor=ex)
        for _ in range(repeats):
            me0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
            z0 = _minflt(ex.zygote_pid)
            result = grade(GradeInput(code=code), "attention", executor=ex)
            time.sleep(0.3)                  # the zygote reaps the jails: their faults count then
            me1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
            z1 = _minflt(ex.zygote_pid)
            assert result["status"] == "graded"
            parts["worker"].append(me1.ru_minflt - me0.ru_minflt)
            parts["test_process"].append(kids1.ru_minflt - kids0.ru_minflt)
            parts["zygote"].append(z1[0] - z0[0])
            parts["jails"].append(z1[1] - z0[1])
    return {k: statistics.median(v) for k, v in parts.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", default="faults")
    parser.add_argument("--zygote-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    costs = fault_costs()
    per_grading = grading_faults(args.repeats, dict(kv.split("=", 1) for kv in args.zygote_env))
    warmed = {str(n): first_forward_after_fork(n) for n in (5, 500)}
    data = {"command": " ".join(["python", "bench/faults.py", *sys.argv[1:]]), "load_average": os.getloadavg(),
            "zygote_env": args.zygote_env, "seconds_per_fault": costs, "minor_faults_per_grading_median": per_grading,
            "first_forward_in_a_fork_after_warm_forwards": warmed}
    path = write(args.out, data)
    print(f"a copy-on-write fault {costs['copy_on_write_s'] * 1e6:.2f} us, a zero-fill fault "
          f"{costs['zero_fill_s'] * 1e6:.2f} us; minor faults per grading: "
          + ", ".join(f"{k} {v:.0f}" for k, v in per_grading.items()))
    for n, w in warmed.items():
        print(f"first forward in a fork after {n} in the parent: {w['first_forward_us']:.0f} us, "
              f"{w['first_forward_minor_faults']:.0f} faults")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
