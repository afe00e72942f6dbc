"""Agreement of the audit checker with the hand scores of tests/audit/validation.

    .venv/bin/python bench/audit_validation.py [-v]

Prints the mean absolute difference, Spearman's rank correlation, the largest differences and the
gaming corpus' scores. Figures: the lab's 2x3 heatmap drawn by tests/audit/helpers.make_heatmap, with the weights
it plots passed as the grader passes the student's (cells read in the text are checked against them)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rubric.audit import grade_audit, load_checklist  # noqa: E402
from rubric.audit.grade import correlation, ranks  # noqa: E402
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, make_heatmap  # noqa: E402


def spearman(a: list[float], b: list[float]) -> float:
    return correlation(ranks(a), ranks(b)) or 0.0


def main() -> None:
    verbose = "-v" in sys.argv
    val = ROOT / "tests" / "audit" / "validation"
    hand = yaml.safe_load((val / "hand_scores.yaml").read_text(encoding="utf-8"))
    cl = load_checklist()
    fig = make_heatmap()
    rows = []
    cpu = []
    for name, spec in hand["audits"].items():
        t0 = time.process_time()
        r = grade_audit((val / name).read_text(encoding="utf-8"), fig, spec.get("measured", MEASURED_OK), cl,
                        weights=EXAMPLE_WEIGHTS)
        cpu.append(time.process_time() - t0)
        rows.append((name, spec["hand"], r["score"], r))
    mad = sum(abs(h - s) for _, h, s, _ in rows) / len(rows)
    rho = spearman([h for _, h, _, _ in rows], [s for _, _, s, _ in rows])
    print(f"validation audits: {len(rows)}  mean |auto - hand| = {mad:.2f}/15  Spearman = {rho:.2f}  "
          f"CPU per audit with its figure: mean {1000 * sum(cpu) / len(cpu):.1f} ms, max {1000 * max(cpu):.1f} ms")
    for name, h, s, r in sorted(rows, key=lambda x: -abs(x[1] - x[2])):
        if verbose or abs(h - s) >= 1:
            print(f"  {name:32s} hand {h:5.1f} auto {s:5.1f}  " +
                  " ".join(f"{it['id']}={it['points']:g}" for it in r["items"]) +
                  ("  flags: " + ",".join(f["kind"] for f in r["flags"]) if r["flags"] else ""))
    gaming = ROOT / "tests" / "audit" / "gaming"
    print("gaming corpus (with the real heatmap, must be <= 4):")
    for p in sorted(gaming.iterdir()):
        r = grade_audit(p.read_text(encoding="utf-8"), fig, MEASURED_OK, cl, weights=EXAMPLE_WEIGHTS)
        print(f"  {p.name:32s} {r['score']:5.1f}  " + " ".join(f"{it['id']}={it['points']:g}" for it in r["items"]))


if __name__ == "__main__":
    main()
