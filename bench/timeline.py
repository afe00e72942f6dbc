"""Where one warm grading's wall time goes: a timeline of its phases (sessions opened and loaded,
the test process forked, each test, sessions closed) and its round trips to the jails by kind.

The functions of interest are wrapped to append ``time pid event`` lines to one file (the forked
test process inherits the wrappers and appends its own), so the timeline spans both processes.
The wrappers cost a few µs per event: totals are a little above a plain grading's.
Writes bench/results/timeline.json (or --out).

    .venv/bin/python bench/timeline.py [--warm 4] [--out NAME]
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402


class Recorder:
    def __init__(self, path: str):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self.path = path

    def event(self, name: str) -> None:
        os.write(self.fd, f"{time.perf_counter():.6f} {os.getpid()} {name}\n".encode())

    def wrap(self, owner, attr: str, label: str | None = None) -> None:
        f = getattr(owner, attr)
        label = label or attr

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            self.event(f"> {label}")
            try:
                return f(*args, **kwargs)
            finally:
                self.event(f"< {label}")

        setattr(owner, attr, wrapper)

    def requests(self, session_cls) -> None:
        """Each request to a jail, with its op, what it was for and its duration in µs."""
        real = session_cls._request
        record = self.event

        def request(session, op, timeout, during, **fields):
            t0 = time.perf_counter()
            try:
                return real(session, op, timeout, during, **fields)
            finally:
                record(f"RT {op} {during.replace(' ', '_')} {(time.perf_counter() - t0) * 1e6:.0f}")

        session_cls._request = request


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warm", type=int, default=4, help="gradings before the one recorded")
    parser.add_argument("--out", default="timeline")
    args = parser.parse_args()

    import _pytest.runner

    import grading.child
    import grading.runner
    import grading.sandbox.client as client
    from grading.executor import suite_packages
    from grading.sandbox import Executor

    rec = Recorder(tempfile.mktemp(prefix="timeline-"))
    rec.wrap(grading.child, "_fork_child")
    rec.wrap(grading.child, "_child_main")
    rec.wrap(grading.runner, "run_suite")
    rec.wrap(grading.runner, "_grade_audit")
    rec.wrap(client.Session, "__init__", "open_session")
    rec.wrap(client.Session, "load")
    rec.wrap(client.Session, "close")
    rec.requests(client.Session)
    real_protocol = _pytest.runner.runtestprotocol

    def runtestprotocol(item, log=True, nextitem=None):
        rec.event(f"> test {item.name}")
        try:
            return real_protocol(item, log=log, nextitem=nextitem)
        finally:
            rec.event(f"< test {item.name}")

    _pytest.runner.runtestprotocol = runtestprotocol

    code = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_bytes()
    with Executor(preload=suite_packages()) as ex:
        for _ in range(args.warm):
            grading.runner.grade(grading.runner.GradeInput(code=code), "attention", executor=ex)
            time.sleep(0.2)
        os.ftruncate(rec.fd, 0)
        rec.event("grade start")
        result = grading.runner.grade(grading.runner.GradeInput(code=code), "attention", executor=ex)
        rec.event("grade end")
    assert result["status"] == "graded", result["message"]

    lines = [line.split(None, 2) for line in Path(rec.path).read_text().splitlines()]
    os.unlink(rec.path)
    t0 = float(lines[0][0])
    phases, tests, by_kind = [], {}, collections.defaultdict(list)
    started: dict[str, float] = {}
    for t, pid, name in lines:
        ms = (float(t) - t0) * 1000
        if name.startswith("RT "):
            _, op, during, us = name.split(" ")
            by_kind[f"{op} {during}"].append(float(us) / 1000)
        elif " test " in name:
            test = name.split(" test ", 1)[1]
            if name.startswith(">"):
                started[test] = ms
            else:
                tests[test] = round(ms - started[test], 2)
        else:
            phases.append(f"{ms:8.2f} ms  {'parent' if pid == lines[0][1] else 'tests '}  {name}")
    trips = {k: {"n": len(v), "total_ms": round(sum(v), 2), "mean_ms": round(sum(v) / len(v), 3)}
             for k, v in sorted(by_kind.items(), key=lambda kv: -sum(kv[1]))}
    total_rt = sum(sum(v) for v in by_kind.values())
    n_rt = sum(len(v) for v in by_kind.values())
    data = {"command": " ".join(["python", "bench/timeline.py", *sys.argv[1:]]), "load_average": os.getloadavg(),
            "grading_ms": round((float(lines[-1][0]) - t0) * 1000, 2), "phases": phases,
            "round_trips": {"n": n_rt, "total_ms": round(total_rt, 2), "by_kind": trips},
            "tests_ms": tests, "tests_total_ms": round(sum(tests.values()), 2)}
    path = write(args.out, data)
    print("\n".join(phases))
    print(f"{len(tests)} tests in {data['tests_total_ms']:.1f} ms; {n_rt} round trips in {total_rt:.1f} ms:")
    for kind, v in trips.items():
        print(f"  {v['n']:3d} x {kind:<40} {v['total_ms']:7.2f} ms (mean {v['mean_ms']:.3f})")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
