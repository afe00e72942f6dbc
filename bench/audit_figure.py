"""Time of the audit's figure analysis (rubric/audit/figure.py), per kind of figure.

    .venv/bin/python bench/audit_figure.py

Figures are drawn with Pillow/numpy by tests/audit/helpers.py (matplotlib is not installed). Prints the
pixel size, what was detected, and the median and best of 20 runs (decode + analysis)."""

from __future__ import annotations

import io
import statistics
import sys
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tests.audit.helpers as figs  # noqa: E402
from rubric.audit.figure import analyse_figure  # noqa: E402

CASES = {
    "heatmap 2x3 (matplotlib-like)": lambda: figs.make_heatmap(),
    "heatmap 2x3 gridded (seaborn-like)": lambda: figs.make_gridded_heatmap(figs.EXAMPLE_WEIGHTS),
    "heatmap 2x3 JPEG": lambda: figs.make_heatmap(fmt="JPEG"),
    "two heatmaps side by side": figs.make_two_heatmaps,
    "heatmap 2x3 large (1800 px)": lambda: figs.make_heatmap(cell=500),
    "heatmap 4x4": lambda: figs.make_heatmap([[0.1, 0.5, 0.3, 0.9], [0.7, 0.2, 0.8, 0.4]] * 2),
    "pie chart": figs.make_pie,
    "bar chart": figs.make_bar_chart,
    "landscape": figs.make_landscape,
    "noise photo (JPEG)": figs.make_noise_photo,
    "blank": figs.make_blank,
}


def main() -> None:
    for name, make in CASES.items():
        data = make()
        size = Image.open(io.BytesIO(data)).size
        analyse_figure(data)
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            report = analyse_figure(data)
            times.append((time.perf_counter() - t0) * 1000)
        seen = f"{report.rows}x{report.cols} grid" if report.kind == "grid" else report.kind
        print(f"{name:36s} {size[0]:5d}x{size[1]:<5d} {seen:12s} median {statistics.median(times):6.1f} ms"
              f"  best {min(times):6.1f} ms")


if __name__ == "__main__":
    main()
