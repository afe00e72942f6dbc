"""Same host, same hour: an earlier commit against this tree, run alternately with one bench.

This host's speed drifts by ±10 % within minutes and by 25-35 % from day to day, so a before and
after is only worth something when both run in the same session, interleaved. This script:
- checks REV out into a temporary git worktree, which shares this tree's .venv;
- points that copy's zygote at the copy: its ``_clean_env`` sets PYTHONPATH to the copy, otherwise
  the editable install would load this tree's ``grading``;
- copies this tree's bench scripts in;
- runs the bench ``--pairs`` times in each tree, alternating;
- prints the per-run and mean numbers, and removes the worktree.

    .venv/bin/python bench/ab.py REV [--bench grade_one|session_cpu|round_trip] [--pairs 3] [--out NAME] [-- BENCH ARGS]

Results go to bench/results/ab_<bench>.json (or NAME.json); each run's own file stays in the temporary folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

# What each bench reports, read from its results file: (label, JSON path, scale to print).
METRICS = {
    "grade_one": [("wall median ms", ("grading_seconds", "median"), 1e3),
                  ("CPU mean ms", ("grading_cpu_mean_seconds",), 1e3),
                  ("jails CPU mean ms", ("grading_cpu_mean_by_process", "jails"), 1e3),
                  ("test process CPU mean ms", ("grading_cpu_mean_by_process", "pytest_child"), 1e3),
                  ("worker CPU mean ms", ("grading_cpu_mean_by_process", "worker"), 1e3)],
    "session_cpu": [("jail CPU ms", ("cpu_per_session_s", "jails"), 1e3),
                    ("wall median ms", ("wall_median_s",), 1e3)],
    "round_trip": [("round trip us", ("median_seconds", "total"), 1e6),
                   ("Session.call wall us", ("session_call", "wall_median_seconds"), 1e6),
                   ("client CPU per request us", ("session_call", "client_cpu_seconds"), 1e6),
                   ("jail CPU per request us", ("session_call", "jail_cpu_seconds"), 1e6)],
}
ZYGOTE_ENV_LINE = '    if not editable and "site-packages" not in pkg_parent:'


def _get(data: dict, path: tuple[str, ...]):
    for key in path:
        if key not in data:
            return None
        data = data[key]
    return data


def checkout(rev: str, where: Path) -> Path:
    copy = where / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(copy), rev],
                   check=True, capture_output=True)
    client = copy / "grading" / "sandbox" / "client.py"
    text = client.read_text()
    if ZYGOTE_ENV_LINE not in text:
        raise SystemExit(f"{rev}: grading/sandbox/client.py has no _clean_env line to patch")
    client.write_text(text.replace(ZYGOTE_ENV_LINE, "    if True:  # bench/ab.py: this copy's own code"))
    (copy / ".venv").symlink_to(ROOT / ".venv")
    for script in (ROOT / "bench").glob("*.py"):
        shutil.copy(script, copy / "bench" / script.name)
    return copy


def run(tree: Path, bench: str, out: str, extra: list[str]) -> dict:
    subprocess.run([str(ROOT / ".venv" / "bin" / "python"), f"bench/{bench}.py", "--out", out, *extra],
                   cwd=tree, check=True, capture_output=True)
    return json.loads((tree / "bench" / "results" / f"{out}.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rev", help="the earlier commit")
    parser.add_argument("--bench", default="grade_one", choices=sorted(METRICS))
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--out", help="results file name (default ab_<bench>)")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []   # the bench's own arguments
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)

    runs: dict[str, list[dict]] = {"before": [], "now": []}
    with tempfile.TemporaryDirectory(prefix="ab-") as tmp:
        copy = checkout(args.rev, Path(tmp))
        try:
            for i in range(args.pairs):
                for side, tree in (("before", copy), ("now", ROOT)):
                    data = run(tree, args.bench, f"ab_{args.bench}_{side}_{i}", extra)
                    runs[side].append(data)
                    (tree / "bench" / "results" / f"ab_{args.bench}_{side}_{i}.json").unlink()
                    shown = ", ".join(f"{label} {_get(data, path) * scale:.1f}"
                                      for label, path, scale in METRICS[args.bench] if _get(data, path) is not None)
                    print(f"{side:6} {i + 1}: {shown}", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(copy)], capture_output=True)
    summary = {}
    for label, path, scale in METRICS[args.bench]:
        summary[label] = {side: [_get(d, path) * scale for d in runs[side] if _get(d, path) is not None]
                          for side in runs}
    out = {"command": " ".join(["python", "bench/ab.py", *sys.argv[1:]]), "rev": args.rev,
           "bench": args.bench, "pairs": args.pairs, "per_run": summary}
    path = write(args.out or f"ab_{args.bench}", out)
    for label, sides in summary.items():
        means = {side: statistics.fmean(v) for side, v in sides.items() if v}
        if len(means) == 2:
            print(f"{label}: {means['before']:.1f} -> {means['now']:.1f} (means of {args.pairs})")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
