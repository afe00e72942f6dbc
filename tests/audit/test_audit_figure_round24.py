"""Figure reader, round 24: a masked key (weight 0) on a colour map whose low end is as light as the page (Blues,
Greys) was not a cell: the near-white cells were dropped as page, so a masked last column left "a 2×2 grid" (the
figure refused, 0/2) and a masked middle or scattered cell left no grid at all ("not a heatmap"). Now a light cell
of the grid's size on its lattice, enclosed by something (the frame, the other cells), joins the grid it completes
when the colours stay on one colour scale."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from rubric.audit.figure import analyse_figure


def _blues(x: float) -> tuple[int, int, int]:
    a, b = (247, 251, 255), (8, 48, 107)
    return tuple(round(a[k] + (b[k] - a[k]) * x) for k in range(3))


def _greys(x: float) -> tuple[int, int, int]:
    v = round(255 - 240 * x)
    return (v, v, v)


def _viridis_end(x: float) -> tuple[int, int, int]:
    a, b = (68, 1, 84), (253, 231, 37)
    return tuple(round(a[k] + (b[k] - a[k]) * x) for k in range(3))


def heatmap(weights, cmap, frame: bool = True, cell: int = 110) -> bytes:
    """matplotlib imshow-like: cells with their values, tick labels, a colour bar; the axes' frame or none."""
    rows, cols = len(weights), len(weights[0])
    left, top = 90, 40
    im = Image.new("RGB", (left + cols * cell + 110, top + rows * cell + 70), "white")
    d = ImageDraw.Draw(im)
    for r in range(rows):
        for c in range(cols):
            x0, y0 = left + c * cell, top + r * cell
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=cmap(weights[r][c]))
            d.text((x0 + cell // 2 - 12, y0 + cell // 2 - 5), f"{weights[r][c]:.2f}",
                   fill="black" if weights[r][c] < 0.5 else "white")
        d.text((20, top + r * cell + cell // 2 - 5), f"query {r}", fill="black")
    for c in range(cols):
        d.text((left + c * cell + cell // 2 - 15, top + rows * cell + 10), f"key {c}", fill="black")
    for y in range(rows * cell):
        d.line([left + cols * cell + 30, top + y, left + cols * cell + 50, top + y], fill=cmap(1 - y / (rows * cell)))
    if frame:
        d.rectangle([left - 1, top - 1, left + cols * cell, top + rows * cell], outline="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


MASKED = {
    "last key masked": [[0.3, 0.7, 0.0], [0.45, 0.55, 0.0]],
    "middle key masked": [[0.3, 0.0, 0.7], [0.45, 0.0, 0.55]],
    "first key masked": [[0.0, 0.3, 0.7], [0.0, 0.45, 0.55]],
    "one cell each": [[0.0, 0.3, 0.7], [0.45, 0.55, 0.0]],
}


# (pure white cells, Greys' 0, without a frame are the page itself: left open)
@pytest.mark.parametrize("cmap, frame", [(_blues, True), (_blues, False), (_greys, True)],
                         ids=["Blues-frame", "Blues-no frame", "Greys-frame"])
@pytest.mark.parametrize("name", list(MASKED))
def test_a_masked_cell_as_light_as_the_page_is_a_cell_of_the_grid(name, cmap, frame):
    """Before: "a 2×2 grid" or not a heatmap; after: the lab's 2×3 grid."""
    r = analyse_figure(heatmap(MASKED[name], cmap, frame))
    assert (r.kind, r.rows, r.cols) == ("grid", 2, 3), (r.kind, r.rows, r.cols, r.reason)


@pytest.mark.parametrize("cmap", [_blues, _greys, _viridis_end], ids=["Blues", "Greys", "viridis"])
def test_an_unmasked_heatmap_is_read_as_before(cmap):
    r = analyse_figure(heatmap([[0.21, 0.58, 0.21], [0.09, 0.24, 0.67]], cmap))
    assert (r.kind, r.rows, r.cols, r.cells) == ("grid", 2, 3, 6)


def test_a_white_column_in_the_frame_of_a_viridis_heatmap_is_read_as_its_masked_keys():
    """Masked keys plotted as NaN are left white by matplotlib, whatever the colour map: before 2×2, now 2×3."""
    im = Image.open(io.BytesIO(heatmap([[0.3, 0.7, 0.5], [0.45, 0.55, 0.5]], _viridis_end)))
    ImageDraw.Draw(im).rectangle([90 + 220, 40, 90 + 329, 40 + 219], fill=(255, 255, 255))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    r = analyse_figure(buf.getvalue())
    assert (r.kind, r.rows, r.cols) == ("grid", 2, 3)


def test_tiles_of_unrelated_hues_with_a_white_one_are_still_no_heatmap():
    tiles = [[(230, 25, 75), (60, 180, 75), (255, 255, 255)], [(0, 130, 200), (245, 130, 48), (145, 30, 180)]]
    im = Image.new("RGB", (520, 330), "white")
    d = ImageDraw.Draw(im)
    for r, row in enumerate(tiles):
        for c, colour in enumerate(row):
            d.rectangle([90 + c * 110, 40 + r * 110, 90 + c * 110 + 109, 40 + r * 110 + 109], fill=colour)
    d.rectangle([89, 39, 90 + 330, 40 + 220], outline="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    assert analyse_figure(buf.getvalue()).kind == "not_heatmap"
