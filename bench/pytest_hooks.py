"""pytest's own cost per test in the grading's test process, and what disabling more of its plugins
would spare (issue 14 item 1, round 38).

Runs ``runtestprotocol`` (setup, call, teardown, reports: the hooks the grading child runs for each
item) over trivial tests (``assert True``), configured with the grading's own pytest arguments
(``grading.collected.pytest_args``), then with each extra ``-p no:NAME`` set below. Each variant runs in
a fresh process, the variants alternate ``--rounds`` times (the host drifts), and the median CPU per test
(``time.process_time``) over the rounds is reported. Writes bench/results/pytest_hooks.json (or --out).

    .venv/bin/python bench/pytest_hooks.py [--tests 31] [--loops 20] [--rounds 5] [--out NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

VARIANTS = {
    "grading's arguments": [],
    "+ no:warnings": ["-p", "no:warnings"],
    "+ no:warnings and 10 more": ["-p", "no:warnings", "-p", "no:junitxml", "-p", "no:pastebin", "-p", "no:doctest",
                                  "-p", "no:setuponly", "-p", "no:setupplan", "-p", "no:legacypath", "-p", "no:tmpdir",
                                  "-p", "no:monkeypatch", "-p", "no:recwarn", "-p", "no:nose"],
}

CHILD = """
import json, sys, time
import pytest
from _pytest.config import _prepareconfig
from grading.collected import pytest_args
folder, loops, extra = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
args = [folder, "-c", folder + "/pytest.ini", "--rootdir", folder, *pytest_args("attention")[5:], *extra]
config = _prepareconfig(args)
config._do_configure()
session = pytest.Session.from_config(config)
config.hook.pytest_sessionstart(session=session)
items = list(session.perform_collect())
hook = config.hook.pytest_runtest_protocol
per_test = []
for _ in range(loops):
    t = time.process_time()
    for i, item in enumerate(items):
        hook(item=item, nextitem=items[i + 1] if i + 1 < len(items) else None)
    per_test.append((time.process_time() - t) / len(items))
print(json.dumps({"per_test_s": min(per_test), "plugins": len(config.pluginmanager.get_plugins())}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=31, help="trivial tests (a grading runs 31-32)")
    parser.add_argument("--loops", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default="pytest_hooks")
    args = parser.parse_args()
    seen: dict[str, list[float]] = {name: [] for name in VARIANTS}
    plugins: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "pytest.ini").write_text("[pytest]\naddopts =\n")
        Path(folder, "test_trivial.py").write_text("".join(f"def test_{i}():\n    assert True\n\n"
                                                           for i in range(args.tests)))
        for _ in range(args.rounds):
            for name, extra in VARIANTS.items():
                out = subprocess.run([sys.executable, "-c", CHILD, folder, str(args.loops), json.dumps(extra)],
                                     cwd=ROOT, check=True, capture_output=True, text=True).stdout
                got = json.loads(out.strip().splitlines()[-1])
                seen[name].append(got["per_test_s"])
                plugins[name] = got["plugins"]
    result = {name: {"cpu_per_test_median_us": statistics.median(v) * 1e6,
                     "cpu_per_test_us_by_round": [x * 1e6 for x in v], "plugins": plugins[name],
                     "extra_args": VARIANTS[name]} for name, v in seen.items()}
    data = {"command": " ".join(["python", "bench/pytest_hooks.py", *sys.argv[1:]]),
            "load_average": os.getloadavg(), "tests": args.tests, "variants": result}
    path = write(args.out, data)
    for name, r in result.items():
        print(f"{name}: {r['cpu_per_test_median_us']:.0f} us of CPU per test ({r['plugins']} plugins), "
              f"x{args.tests} tests = {r['cpu_per_test_median_us'] * args.tests / 1e3:.2f} ms")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
