"""Issue 15: the figure is the lab's figure. A grid of uniform cells is detected with its shape; only the
2x3 heatmap earns the figure points, anything else earns 0 with feedback saying what was seen and a flag.
Figures are drawn with Pillow/numpy (matplotlib is not installed)."""

from __future__ import annotations

import random
import time

import pytest

from rubric.audit import grade_audit
from rubric.audit.figure import analyse_figure
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    make_bar_chart,
    make_blank,
    make_gridded_heatmap,
    make_heatmap,
    make_landscape,
    make_noise_photo,
    make_pie,
    make_two_heatmaps,
)

random.seed(4)
W4x4 = [[round(random.random(), 2) for _ in range(4)] for _ in range(4)]
W3x2 = [[0.1, 0.9], [0.5, 0.5], [0.3, 0.7]]

LAB_FIGURES = {
    "matplotlib-like 2x3": lambda: make_heatmap(),
    "2x3 as JPEG": lambda: make_heatmap(fmt="JPEG"),
    "seaborn-like 2x3 with gridlines": lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS),
    "gridded 2x3 as JPEG": lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS, fmt="JPEG"),
    "2x3 with equal neighbouring cells": lambda: make_heatmap([[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]]),
    "two 2x3 heatmaps side by side": lambda: make_two_heatmaps(),
    "large 2x3 (1800 px)": lambda: make_heatmap(cell=500),
}
OTHER_GRIDS = {
    "3x2 (transposed)": (lambda: make_heatmap(W3x2), (3, 2)),
    "4x4": (lambda: make_gridded_heatmap(W4x4), (4, 4)),
    "4x4 without gridlines": (lambda: make_heatmap(W4x4), (4, 4)),
}
NOT_HEATMAPS = {
    "pie chart": make_pie,
    "wide bar chart": make_bar_chart,
    "cartoon landscape with a gradient sky": make_landscape,
    "noise photo": make_noise_photo,
}


@pytest.mark.parametrize("name", LAB_FIGURES)
def test_the_labs_2x3_heatmap_is_recognised(name):
    report = analyse_figure(LAB_FIGURES[name]())
    assert report.shape == (2, 3), report


@pytest.mark.parametrize("name", OTHER_GRIDS)
def test_other_grids_are_measured(name):
    make, shape = OTHER_GRIDS[name]
    assert analyse_figure(make()).shape == shape


@pytest.mark.parametrize("name", NOT_HEATMAPS)
def test_charts_photos_and_drawings_are_not_heatmaps(name):
    assert analyse_figure(NOT_HEATMAPS[name]()).kind == "not_heatmap"


def test_a_blank_image_is_blank_and_garbage_is_unreadable():
    assert analyse_figure(make_blank()).kind == "blank"
    assert analyse_figure(b"\x89PNG\r\n\x1a\n not really").kind == "unreadable"


def _figure_item(result):
    return next(it for it in result["items"] if it["id"] == "figure")


def test_only_the_2x3_heatmap_earns_the_figure_points(checklist):
    r = grade_audit("", make_gridded_heatmap(EXAMPLE_WEIGHTS), MEASURED_OK, checklist)
    assert _figure_item(r)["points"] == 2 and r["flags"] == []


@pytest.mark.parametrize("make, seen_en, seen_zh", [
    (lambda: make_gridded_heatmap(W4x4), "a 4×4 grid", "4×4"),
    (lambda: make_heatmap(W3x2), "a 3×2 grid", "3×2"),
    (make_pie, "not a heatmap", "不是 heatmap"),
    (make_landscape, "not a heatmap", "不是 heatmap"),
    (make_noise_photo, "not a heatmap", "不是 heatmap"),
    (make_blank, "a blank image", "空白"),
])
def test_any_other_figure_earns_0_says_what_was_seen_and_is_flagged(make, seen_en, seen_zh, checklist):
    r = grade_audit("", make(), MEASURED_OK, checklist)
    item = _figure_item(r)
    assert item["points"] == 0 and not item["found"]
    flag = next(f for f in r["flags"] if f["kind"] == "figure")
    assert seen_en in flag["message"]["en"] and seen_zh in flag["message"]["zh"]
    assert set(item["feedback"]) == {"en", "zh"}


def test_wrong_grid_feedback_names_the_shape_seen(checklist):
    r = grade_audit("", make_gridded_heatmap(W4x4), MEASURED_OK, checklist)
    assert "4×4 grid" in _figure_item(r)["feedback"]["en"] and "4×4" in _figure_item(r)["feedback"]["zh"]


def test_text_describing_another_shape_than_the_figure_is_flagged(checklist):
    text = "The heatmap is the 2×3 matrix weights[0, 0]: rows are queries, columns are keys."
    ok = grade_audit(text, make_heatmap(), MEASURED_OK, checklist)
    assert ok["flags"] == []
    r = grade_audit(text, make_gridded_heatmap(W4x4), MEASURED_OK, checklist)
    assert any(f["kind"] == "figure" and "2×3" in f["message"]["en"] and "4×4" in f["message"]["en"]
               for f in r["flags"])


def test_figure_analysis_of_a_typical_figure_takes_under_50ms():
    """bench/audit_figure.py reports the numbers for every figure kind."""
    data = make_gridded_heatmap(EXAMPLE_WEIGHTS)
    analyse_figure(data)
    times = []
    for _ in range(5):     # CPU time: the budget is CPU, and other processes share the machine
        t0 = time.process_time()
        analyse_figure(data)
        times.append(time.process_time() - t0)
    assert min(times) < 0.050, f"best of 5: {min(times) * 1000:.1f} ms"


def test_weights_written_in_the_text_are_checked_against_the_students_own_weights(checklist):
    text = "q0 这一行是 [0.21, 0.58, 0.21]，说明 q0 主要从 k1 读取。"
    same = grade_audit(text, None, {}, checklist, weights=EXAMPLE_WEIGHTS)
    assert same["flags"] == []
    other = grade_audit(text, None, {}, checklist, weights=[[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    flag = next(f for f in other["flags"] if f["kind"] == "figure")
    assert "[0.21, 0.58, 0.21]" in flag["message"]["en"] and "[0.50, 0.30, 0.20]" in flag["message"]["zh"]
    assert grade_audit(text, None, {}, checklist)["flags"] == []          # no weights, nothing checked
