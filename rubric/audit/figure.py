"""What the audit's figure shows: a grid of uniform cells (a heatmap) and its shape, or something else.

The bytes were already checked by the upload validator (PNG/JPEG, pixel cap). Decoding is bounded: a
JPEG is decoded at 1/2..1/8 scale (``Image.draft``), anything else is box-reduced (``Image.reduce``) to
at most ``side`` pixels before any analysis. On that small copy (numpy only):

1. neighbouring pixels whose colours differ by at most ``tol`` in every channel are connected, and the
   connected regions are labelled (union by minimum label, with pointer jumping);
2. a region is a *cell* when it is large enough, nearly fills its bounding box (text inside a cell is
   a hole, not a break), has one colour (no gradient) and is not the white background;
3. cells that touch (allowing a gridline between them) form a cluster; the cluster is a *grid* when its
   cell edges fall on evenly spaced lines (a run of equal cells may merge into one region: its length is
   a whole number of steps) and the cells cover its bounding box.

A colour bar (a gradient), a photo (no large uniform region), a pie chart (wedges do not fill their box)
and a bar chart (bars of different heights do not tile a rectangle) are therefore not grids.
"""

from __future__ import annotations

import io
import math
import time
from dataclasses import dataclass

import numpy as np

ANALYSIS_SIDE = 160        # pixels on the long side of the analysed copy
COLOUR_TOL = 6             # max per-channel difference between connected neighbours (0-255)
MIN_CELL_SHARE = 0.004     # a cell covers at least this share of the copy...
MIN_CELL_SIDE = 4          # ...and is at least this many pixels wide and high
MIN_FILL = 0.8             # pixels of the region / area of its bounding box
MAX_CELL_STD = 6.0         # colour standard deviation inside a cell (per channel)
MIN_COVERAGE = 0.7         # cells' boxes / the cluster's box (gridlines take the rest)
MAX_CELLS = 400            # more uniform patches than this is not a heatmap of a small matrix


@dataclass(frozen=True)
class FigureReport:
    """``kind`` is "grid" (with ``rows`` x ``cols``), "blank", "not_heatmap" or "unreadable"."""

    kind: str
    rows: int = 0
    cols: int = 0
    cells: int = 0
    ms: float = 0.0

    @property
    def shape(self) -> tuple[int, int] | None:
        return (self.rows, self.cols) if self.kind == "grid" else None


def _decode(data: bytes, side: int) -> np.ndarray:
    from PIL import Image

    im = Image.open(io.BytesIO(data))
    if im.format == "JPEG":
        im.draft("RGB", (2 * side, 2 * side))     # DCT scaling: never decodes the full-size image
    if im.mode not in ("RGB", "RGBA", "L", "LA"):
        im = im.convert("RGBA")
    factor = max(1, math.ceil(max(im.size) / side))
    if factor > 1:
        im = im.reduce(factor)
    rgba = np.asarray(im.convert("RGBA"), dtype=np.float32)
    alpha = rgba[..., 3:4] / 255.0
    return (rgba[..., :3] * alpha + 255.0 * (1.0 - alpha)).round().astype(np.int16)   # flattened onto white


def _label(same_x: np.ndarray, same_y: np.ndarray, h: int, w: int) -> np.ndarray:
    """Connected components of the pixel grid, edges given by the two boolean maps. Returns labels 0..K-1."""
    idx = np.arange(h * w).reshape(h, w)
    a = np.concatenate([idx[:, :-1][same_x], idx[:-1, :][same_y]])
    b = np.concatenate([idx[:, 1:][same_x], idx[1:, :][same_y]])
    lab = np.arange(h * w)
    while True:
        la, lb = lab[a], lab[b]
        diff = la != lb
        if not diff.any():
            break
        la, lb = la[diff], lb[diff]
        low = np.minimum(la, lb)
        np.minimum.at(lab, la, low)
        np.minimum.at(lab, lb, low)
        while True:                                   # pointer jumping: every pixel points at its root
            nxt = lab[lab]
            if np.array_equal(nxt, lab):
                break
            lab = nxt
    roots = lab == np.arange(h * w)
    return (np.cumsum(roots) - 1)[lab]


def _steps(edges: list[float], tol: float) -> int | None:
    """Number of equal steps between clustered edge positions (None if they are not evenly spaced)."""
    pts: list[list[float]] = []
    for e in sorted(edges):
        if pts and e - pts[-1][-1] <= tol:
            pts[-1].append(e)
        else:
            pts.append([e])
    lines = [sum(p) / len(p) for p in pts]
    gaps = [b - a for a, b in zip(lines, lines[1:], strict=False)]
    if not gaps:
        return None
    base = min(gaps)
    if base < MIN_CELL_SIDE:
        return None
    n = 0
    for g in gaps:
        k = round(g / base)
        if k < 1 or abs(g - k * base) > 0.2 * base:
            return None
        n += k
    return n


def analyse_figure(data: bytes, side: int = ANALYSIS_SIDE) -> FigureReport:
    t0 = time.perf_counter()

    def done(kind: str, rows: int = 0, cols: int = 0, cells: int = 0) -> FigureReport:
        return FigureReport(kind, rows, cols, cells, round((time.perf_counter() - t0) * 1000, 2))

    try:
        px = _decode(data, side)
    except Exception:  # noqa: BLE001 - validated upstream; anything Pillow still refuses is "unreadable"
        return done("unreadable")
    h, w = px.shape[:2]
    if h < 2 or w < 2:
        return done("blank")
    lum = px @ np.array([0.299, 0.587, 0.114])
    ink = (lum < 235) | (px.max(axis=2) - px.min(axis=2) > 20)
    if lum.std() < 3.0 or ink.mean() < 0.005:
        return done("blank")

    same_x = np.abs(px[:, 1:] - px[:, :-1]).max(axis=2) <= COLOUR_TOL
    same_y = np.abs(px[1:, :] - px[:-1, :]).max(axis=2) <= COLOUR_TOL
    lab = _label(same_x, same_y, h, w).ravel()
    k = int(lab.max()) + 1
    count = np.bincount(lab, minlength=k)
    big = count >= max(MIN_CELL_SHARE * h * w, MIN_CELL_SIDE * MIN_CELL_SIDE)
    if not big.any():
        return done("not_heatmap")
    ys, xs = np.divmod(np.arange(h * w), w)
    x0 = np.full(k, w)
    y0 = np.full(k, h)
    x1 = np.zeros(k, dtype=np.int64)
    y1 = np.zeros(k, dtype=np.int64)
    sel = big[lab]
    np.minimum.at(x0, lab[sel], xs[sel])
    np.minimum.at(y0, lab[sel], ys[sel])
    np.maximum.at(x1, lab[sel], xs[sel] + 1)
    np.maximum.at(y1, lab[sel], ys[sel] + 1)
    flat = px.reshape(-1, 3).astype(np.float64)
    n = np.maximum(count, 1)[:, None]
    mean = np.stack([np.bincount(lab, flat[:, c], minlength=k) for c in range(3)], axis=1) / n
    sq = np.stack([np.bincount(lab, flat[:, c] ** 2, minlength=k) for c in range(3)], axis=1) / n
    std = np.sqrt(np.maximum(sq - mean ** 2, 0.0)).max(axis=1)

    cells: list[tuple[int, int, int, int]] = []
    for i in np.flatnonzero(big):
        bw, bh = int(x1[i] - x0[i]), int(y1[i] - y0[i])
        r, g, b = mean[i]
        white = 0.299 * r + 0.587 * g + 0.114 * b > 235 and max(r, g, b) - min(r, g, b) < 20
        if (white or bw < MIN_CELL_SIDE or bh < MIN_CELL_SIDE or count[i] / (bw * bh) < MIN_FILL
                or std[i] > MAX_CELL_STD):
            continue
        cells.append((int(x0[i]), int(y0[i]), int(x1[i]), int(y1[i])))
    if not cells or len(cells) > MAX_CELLS:
        return done("not_heatmap", cells=len(cells))

    # clusters of touching cells: a gridline narrower than a quarter of a typical cell may separate them
    sides = sorted(min(c[2] - c[0], c[3] - c[1]) for c in cells)
    gap = max(2.0, 0.25 * sides[len(sides) // 2])
    parent = list(range(len(cells)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (ax0, ay0, ax1, ay1) in enumerate(cells):
        for j in range(i):
            bx0, by0, bx1, by1 = cells[j]
            if ax0 - gap <= bx1 and bx0 - gap <= ax1 and ay0 - gap <= by1 and by0 - gap <= ay1:
                parent[root(i)] = root(j)
    clusters: dict[int, list[tuple[int, int, int, int]]] = {}
    for i, c in enumerate(cells):
        clusters.setdefault(root(i), []).append(c)

    best: tuple[int, int, int, int] | None = None     # (area, rows, cols, cells)
    for group in clusters.values():
        gx0, gy0 = min(c[0] for c in group), min(c[1] for c in group)
        gx1, gy1 = max(c[2] for c in group), max(c[3] for c in group)
        area = (gx1 - gx0) * (gy1 - gy0)
        if sum((c[2] - c[0]) * (c[3] - c[1]) for c in group) < MIN_COVERAGE * area:
            continue
        cols = _steps([e for c in group for e in (c[0], c[2])], gap)
        rows = _steps([e for c in group for e in (c[1], c[3])], gap)
        if rows and cols and (best is None or area > best[0]):
            best = (area, rows, cols, len(group))
    if best is None or best[0] < 0.05 * h * w or best[1] < 2 or best[2] < 2:
        # no grid, a tiny one (a legend), or a single row/column of bands (a stepped colour bar, sky over grass)
        return done("not_heatmap", cells=len(cells))
    return done("grid", best[1], best[2], best[3])
