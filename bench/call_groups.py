"""How many of a grading's requests a batch could carry (issue 14 item 1, round 38): the requests of one
warm grading of a correct submission, each with the line of the suite's test that made it. Consecutive
requests from the same line of the same test are a loop's iterations (or two calls on one line): their
inputs do not depend on each other's results, so one frame could carry them. Requests a batch would
spare = the sum over such runs of (length - 1). ``bench/batch_trip.py`` measures what each spared one
is worth. Writes bench/results/call_groups.json (or --out).

    .venv/bin/python bench/call_groups.py [--out NAME]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="call_groups")
    args = parser.parse_args()

    from grading.executor import suite_packages
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor, client

    code = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_bytes()
    suite = str(ROOT / "grader_tests" / "attention")
    with tempfile.NamedTemporaryFile("r") as log:
        fd = os.open(log.name, os.O_WRONLY | os.O_APPEND)   # the forked test process appends too
        request = client.Session._request

        def recorded(self, op, timeout, during, **fields):
            frame, site = sys._getframe(1), "-"
            while frame is not None:
                if frame.f_code.co_filename.startswith(suite) and "/test_" in frame.f_code.co_filename:
                    site = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}:{frame.f_lineno}"
                    break
                frame = frame.f_back
            os.write(fd, f"{op} {site}\n".encode())
            return request(self, op, timeout, during, **fields)

        with Executor(preload=suite_packages()) as ex:
            grade(GradeInput(code=code), "attention", executor=ex)     # warm
            client.Session._request = recorded
            try:
                result = grade(GradeInput(code=code), "attention", executor=ex)
            finally:
                client.Session._request = request
        assert result["status"] == "graded", result["status"]
        lines = [line.split() for line in log.read().splitlines()]
    runs: list[tuple[str, str, int]] = []     # (op, site, consecutive requests)
    for op, site in lines:
        if runs and runs[-1][:2] == (op, site) and site != "-":
            runs[-1] = (op, site, runs[-1][2] + 1)
        else:
            runs.append((op, site, 1))
    spared = sum(n - 1 for _, _, n in runs)
    by_op = collections.Counter(op for op, _ in lines)
    data = {"command": " ".join(["python", "bench/call_groups.py", *sys.argv[1:]]), "requests": len(lines),
            "by_op": dict(by_op), "frames_if_batched": len(runs), "requests_spared": spared,
            "runs_longer_than_one": [{"op": op, "site": site, "requests": n} for op, site, n in runs if n > 1]}
    path = write(args.out, data)
    print(f"{len(lines)} requests ({dict(by_op)}); batching consecutive requests of one test line: "
          f"{len(runs)} frames, {spared} requests spared; written to {path}")


if __name__ == "__main__":
    main()
