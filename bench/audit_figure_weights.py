"""Whether the audit's figure check tells a heatmap of the student's weights from one of other numbers (round 26).

    .venv/bin/python bench/audit_figure_weights.py

Draws the lab's 2x3 heatmap (tests/audit/helpers.make_cmap_heatmap) on every colormap the figure analysis knows,
reversed or not, PNG and JPEG, for the example's weights, the lab's hand example and two random softmax rows each,
and counts: figures of the weights they plot that are flagged (must be 0), and the same figures judged against other
random softmax rows (flagged: the check works; the rest rank alike by chance or their colours are off the colormap)."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rubric.audit.figure import _COLORMAPS_HEX, analyse_figure  # noqa: E402
from rubric.audit.grade import _plots_other_weights  # noqa: E402
from tests.audit.helpers import EXAMPLE_WEIGHTS, make_cmap_heatmap  # noqa: E402

LAB = [[0.4011, 0.1978, 0.4011], [0.2840, 0.1400, 0.5760]]     # grader_tests/attention/cases.hand_example


def main() -> None:
    rng = random.Random(0)

    def softmax_rows() -> list[list[float]]:
        rows = []
        for _ in range(2):
            e = [math.exp(rng.gauss(0, 1.2)) for _ in range(3)]
            rows.append([round(v / sum(e), 2) for v in e])
        return rows

    own = own_flagged = unjudged = other_flagged = 0
    for name in _COLORMAPS_HEX:
        for reverse in (False, True):
            for fmt in ("PNG", "JPEG"):
                for w in (EXAMPLE_WEIGHTS, LAB, softmax_rows(), softmax_rows()):
                    report = analyse_figure(make_cmap_heatmap(w, name, reverse, fmt))
                    if report.shape != (2, 3):
                        continue
                    own += 1
                    unjudged += not report.positions
                    if _plots_other_weights(report, w):
                        own_flagged += 1
                        print(f"flagged, plots its weights: {name} reverse={reverse} {fmt} {w}")
                    other_flagged += _plots_other_weights(report, softmax_rows())
    print(f"{own} figures: {own_flagged} of the weights they plot flagged; {unjudged} not judged (colours off the "
          f"colormap); judged against other weights: {other_flagged} of {own} flagged")


if __name__ == "__main__":
    main()
