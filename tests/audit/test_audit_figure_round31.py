"""Figure reader, round 31.

1. A heatmap without a frame whose first or last key (or query) is masked and left undrawn shows the page there: the
   blank column was taken for margin and the grid read a column short (a 3×3 with a white last column was "a 3×2
   grid", the lab's 2×3 with a masked first key "a 2×2 grid"). Now a blank edge column or row counts when the figure
   says it is one: a tick label centred on it as on the drawn ones, or a colour bar that spans it. Margin with nothing
   to say where cells would be stays margin.
2. A JPEG saved at a low quality (5 to 20) of an honest heatmap was "not a heatmap": each value label flattened into a
   block of one colour read as a cell of its own, the ringing at the cells' edges ate their rims unevenly (the edges
   fell off the lattice), and the quantised colours left the colour scale. Now a region inside another cell is no
   cell, a JPEG's cells are regrown and placed by their centres, and the tolerances widen with the JPEG's own
   quantiser step (nothing changes at quality 50 and better). Quality 5 of
   the lab's heatmap and of its magma version now pass.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from rubric.audit import grade_audit
from rubric.audit.figure import analyse_figure
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    _viridis,
    items,
    kinds,
    make_cmap_heatmap,
    make_gridded_heatmap,
    make_heatmap,
    make_pie,
)


def seaborn_masked(weights, ticks: bool = True, bar: bool = False, cell: int = 110) -> bytes:
    """seaborn's heatmap(w, mask=w == 0): masked cells not drawn, no frame; tick labels centred on the cells (or none),
    a colour bar as high as the axes (or none)."""
    rows, cols = len(weights), len(weights[0])
    left, top = 90, 40
    im = Image.new("RGB", (left + cols * cell + 110, top + rows * cell + 70), "white")
    d = ImageDraw.Draw(im)
    for r, row in enumerate(weights):
        for c, v in enumerate(row):
            if v:
                d.rectangle([left + c * cell, top + r * cell, left + (c + 1) * cell - 1, top + (r + 1) * cell - 1],
                            fill=_viridis(v))
        if ticks:
            d.text((20, top + r * cell + cell // 2 - 5), f"q{r}", fill="black")
    if ticks:
        for c in range(cols):
            d.text((left + c * cell + cell // 2 - 5, top + rows * cell + 10), f"k{c}", fill="black")
    if bar:
        x = left + cols * cell + 30
        for y in range(rows * cell):
            d.line([x, top + y, x + 20, top + y], fill=_viridis(1 - y / (rows * cell)))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


MASKED_EDGES = {
    "3x3, last key": [[0.3, 0.7, 0.0], [0.6, 0.4, 0.0], [0.2, 0.8, 0.0]],
    "2x3, last key": [[0.27, 0.73, 0.0], [0.73, 0.27, 0.0]],
    "2x3, first key": [[0.0, 0.73, 0.27], [0.0, 0.27, 0.73]],
    "2x4, last two keys": [[0.27, 0.73, 0.0, 0.0], [0.73, 0.27, 0.0, 0.0]],
    "3x3, first query": [[0.0, 0.0, 0.0], [0.3, 0.7, 0.5], [0.45, 0.2, 0.9]],
    "3x3, last query": [[0.3, 0.7, 0.5], [0.45, 0.2, 0.9], [0.0, 0.0, 0.0]],
}


@pytest.mark.parametrize("name", list(MASKED_EDGES))
def test_a_blank_edge_column_or_row_with_its_tick_label_is_a_column_or_row_of_the_grid(name):
    """Before: a column (row) short, e.g. "3×2"; after: the grid the weights have."""
    w = MASKED_EDGES[name]
    r = analyse_figure(seaborn_masked(w))
    assert (r.kind, r.rows, r.cols) == ("grid", len(w), len(w[0])), (r.kind, r.rows, r.cols)


@pytest.mark.parametrize("name", ["3x3, first query", "3x3, last query"])
def test_a_colour_bar_as_high_as_the_axes_counts_a_blank_edge_row_without_tick_labels(name):
    w = MASKED_EDGES[name]
    r = analyse_figure(seaborn_masked(w, ticks=False, bar=True))
    assert (r.kind, r.rows, r.cols) == ("grid", 3, 3), (r.kind, r.rows, r.cols)


@pytest.mark.parametrize("name", ["3x3, last key", "2x3, first key", "3x3, first query"])
@pytest.mark.parametrize("bar", [False, True], ids=["nothing", "bar beside the drawn rows only"])
def test_margin_with_no_label_or_bar_beyond_it_is_not_made_into_cells(name, bar):
    """No tick labels: nothing says the page beside the grid was a column of it (a colour bar beside a grid says
    nothing of its columns), so the grid is what is drawn."""
    w = MASKED_EDGES[name]
    drawn = [row for row in w if any(row)]
    r = analyse_figure(seaborn_masked(w, ticks=False, bar=bar and name != "3x3, first query"))
    assert r.kind == "grid" and (r.rows, r.cols) == (len(drawn), sum(1 for c in zip(*drawn, strict=True) if any(c)))


def test_tick_labels_at_cell_edges_are_not_read_as_blank_cells():
    """imshow's default ticks (0, 0.5, 1...) fall on cell edges too: they are no column labels, nothing is added."""
    w = [[0.3, 0.7], [0.6, 0.4]]
    im = Image.open(io.BytesIO(seaborn_masked(w, ticks=False)))
    d = ImageDraw.Draw(im)
    for k in range(7):                                   # a label every half cell, from the grid's left edge on
        d.text((90 + k * 55 - 6, 40 + 2 * 110 + 10), f"{k / 2:.1f}", fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    r = analyse_figure(buf.getvalue())
    assert (r.kind, r.rows, r.cols) == ("grid", 2, 2)


@pytest.mark.parametrize("name, key", [("2x3, last key", 2), ("2x3, first key", 0)])
def test_the_labs_heatmap_with_an_edge_key_masked_and_blank_is_graded_as_the_labs_figure(name, key, checklist):
    """Before: "a 2×2 grid, not the lab's 2×3 example" (figure 0, flagged); after: the figure counts and its blank key
    reads white."""
    w = MASKED_EDGES[name]
    text = f"My heatmap: rows q0, q1, columns k0-k2. The masked key k{key} is white in both rows: its weight is 0.\n"
    r = grade_audit(text, seaborn_masked(w), MEASURED_OK, checklist, weights=w)
    assert items(r)["figure"]["points"] == 2 and "figure" not in kinds(r), items(r)["figure"]["feedback"]["en"]
    assert items(r)["figure_reading"]["points"] > 0, items(r)["figure_reading"]["feedback"]["en"]


# ------------------------------------------------------------------ 2. low-quality JPEG

def jpeg(figure: bytes, quality: int) -> bytes:
    buf = io.BytesIO()
    Image.open(io.BytesIO(figure)).convert("RGB").save(buf, "JPEG", quality=quality)
    return buf.getvalue()


LOW_QUALITY = {
    "the lab's heatmap, quality 5": (make_heatmap, 5),
    "magma, quality 5": (lambda: make_cmap_heatmap(EXAMPLE_WEIGHTS, "magma"), 5),
    "magma, quality 10": (lambda: make_cmap_heatmap(EXAMPLE_WEIGHTS, "magma"), 10),
    "Blues, quality 10": (lambda: make_cmap_heatmap(EXAMPLE_WEIGHTS, "Blues"), 10),
    "gridded, quality 10": (lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS), 10),
    "gridded, quality 20": (lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS), 20),
    "last key blank, quality 20": (lambda: seaborn_masked(MASKED_EDGES["2x3, last key"]), 20),
}


@pytest.mark.parametrize("name", list(LOW_QUALITY))
def test_a_low_quality_jpeg_of_a_heatmap_is_read_as_its_grid(name):
    """Before: "not a heatmap" (or a 2×2 grid); after: the lab's 2×3 grid."""
    make, quality = LOW_QUALITY[name]
    r = analyse_figure(jpeg(make(), quality))
    assert (r.kind, r.rows, r.cols) == ("grid", 2, 3), (r.kind, r.rows, r.cols, r.reason)


def test_an_honest_audit_with_its_heatmap_saved_at_quality_5_earns_the_figure(checklist):
    text = "My heatmap: rows are queries q0, q1 and columns are keys k0-k2; q1 puts most of its weight on k2 (0.67).\n"
    r = grade_audit(text, jpeg(make_heatmap(), 5), MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert items(r)["figure"]["points"] == 2 and "figure" not in kinds(r), items(r)["figure"]["feedback"]["en"]


@pytest.mark.parametrize("quality", [5, 10, 20])
def test_a_low_quality_jpeg_of_a_pie_chart_is_still_no_grid(quality):
    assert analyse_figure(jpeg(make_pie(), quality)).kind != "grid"


@pytest.mark.parametrize("quality", [50, 20, 15, 10, 8, 5])
def test_a_blank_edge_key_with_its_tick_label_survives_a_low_quality_jpeg(quality):
    """Before: "a 2×2 grid" at quality 15, 8 and 5 (the lattice was taken from the ringing-eaten cells, and the ringing
    under the grid's edge was read as the first line of tick labels); after: 2×3 from quality 1 to 95."""
    r = analyse_figure(jpeg(seaborn_masked(MASKED_EDGES["2x3, last key"]), quality))
    assert (r.kind, r.rows, r.cols) == ("grid", 2, 3), (r.kind, r.rows, r.cols)


@pytest.mark.parametrize("quality", [20, 5])
def test_margin_is_not_made_into_cells_in_a_low_quality_jpeg_either(quality):
    r = analyse_figure(jpeg(seaborn_masked(MASKED_EDGES["3x3, last key"], ticks=False, bar=True), quality))
    assert (r.kind, r.rows, r.cols) == ("grid", 3, 2), (r.kind, r.rows, r.cols)


def gridlined(weights, cell: int = 110) -> bytes:
    """Masked cells left blank, every cell bordered by black gridlines (ax.grid on the cell edges): the borders
    enclose the blank cells too."""
    rows, cols = len(weights), len(weights[0])
    im = Image.open(io.BytesIO(seaborn_masked(weights, ticks=False, cell=cell)))
    d = ImageDraw.Draw(im)
    for c in range(cols + 1):
        d.line([90 + c * cell, 40, 90 + c * cell, 40 + rows * cell], fill="black", width=2)
    for r in range(rows + 1):
        d.line([90, 40 + r * cell, 90 + cols * cell, 40 + r * cell], fill="black", width=2)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("name", ["3x3, first query", "3x3, last query", "2x3, first key"])
def test_blank_cells_enclosed_by_cell_borders_are_cells_whatever_the_colour_scale(name):
    """Before: a blank row under viridis cells was left out ("2×3" of 3×3: white is no viridis colour); after: the
    borders say where its cells are, and a blank cell is no colour of the scale."""
    w = MASKED_EDGES[name]
    r = analyse_figure(gridlined(w))
    assert (r.kind, r.rows, r.cols) == ("grid", len(w), len(w[0])), (r.kind, r.rows, r.cols)
