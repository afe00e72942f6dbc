"""Helpers of the audit tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

import functools
import io
import re
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from rubric.audit import grade_audit, load_checklist

AUDITS = Path(__file__).resolve().parents[1] / "fixtures" / "audits"

# The lab's 2x3 example (B=H=1, Nq=2, Nk=3): rows are queries, columns keys, rows sum to 1.
EXAMPLE_WEIGHTS = [[0.21, 0.58, 0.21], [0.09, 0.24, 0.67]]

def items(result: dict) -> dict[str, dict]:
    """An audit result's items by id."""
    return {it["id"]: it for it in result["items"]}


def kinds(result: dict) -> list[str]:
    """The kinds of an audit result's flags, in order."""
    return [f["kind"] for f in result["flags"]]


# What the grader measured on code consistent with the fixture audits' reported numbers.
MEASURED_OK = {"max_abs_error": 2.6e-7, "row_sum_error": 1.1e-7}

# A one-line reading that opens the audits of a single sentence under test (rounds 39-40), en and zh.
OPENER_EN = "Rows are queries, columns are keys.\n"
OPENER_ZH = "行是 query，列是 key。\n"


@functools.cache
def _example_figure_and_checklist() -> tuple[bytes, object]:
    return make_heatmap(), load_checklist()


def grade_example(text: str) -> dict:
    """``text`` graded as an audit of the lab's example: its heatmap, its weights and the grader's measurement."""
    figure, checklist = _example_figure_and_checklist()
    return grade_audit(text, figure, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)

# (checklist item, concept label) pairs the phrasing tests ask about
MASKED = ("figure_reading", "masked / padding keys get weight 0")
IMPORTANCE = ("limits", "not feature importance")
CAUSAL = ("limits", "not a causal effect")


def concept_credited(sentence: str, item: str, concept_label: str, checklist) -> bool:
    """Whether the sentence alone credits the concept in full (its label is not among the item's "Not credited" nor,
    since round 26, its "Partly credited")."""
    from rubric.audit import grade_audit

    it = items(grade_audit(sentence, None, {}, checklist))[item]
    # The feedback lists what is not credited as "label: reason." or, where labels share a reason,
    # "label; label: reason." (round 25).
    listed = re.search(rf"(?:(?:Not|Partly) credited: |[.;] ){re.escape(concept_label)}[;:]", it["feedback"]["en"])
    return it["points"] > 0 and listed is None


# The opening line of the cell-reading tests: it names the example figure's rows and columns.
CELL_OPENER = "My heatmap has rows q0, q1 and columns k0-k2.\n"


def misreads_a_cell(sentence: str, checklist, figure: bytes) -> bool:
    """Whether the sentence, after CELL_OPENER, is flagged as reading a cell the example weights do not show."""
    from rubric.audit import grade_audit

    r = grade_audit(CELL_OPENER + sentence + "\n", figure, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


def _viridis(x: float) -> tuple[int, int, int]:
    stops = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
    x = min(max(x, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    t = x - i
    a, b = stops[i], stops[i + 1]
    return tuple(round(a[k] + (b[k] - a[k]) * t) for k in range(3))


def make_heatmap(weights=EXAMPLE_WEIGHTS, cell: int = 110, fmt: str = "PNG", colour=None) -> bytes:
    """A matplotlib-like figure: white margins, coloured cells with their values, axis labels, colourbar. ``colour``
    maps a weight to its cell's colour (a 5-stop approximation of viridis unless given)."""
    colour = colour or _viridis
    rows, cols = len(weights), len(weights[0])
    left, top = 90, 40
    width, height = left + cols * cell + 110, top + rows * cell + 70
    im = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(im)
    for r in range(rows):
        for c in range(cols):
            x0, y0 = left + c * cell, top + r * cell
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=colour(weights[r][c]))
            d.text((x0 + cell // 2 - 12, y0 + cell // 2 - 5), f"{weights[r][c]:.2f}", fill="white")
        d.text((20, top + r * cell + cell // 2 - 5), f"query {r}", fill="black")
    for c in range(cols):
        d.text((left + c * cell + cell // 2 - 15, top + rows * cell + 10), f"key {c}", fill="black")
    bar_x = left + cols * cell + 30
    for y in range(rows * cell):
        d.line([bar_x, top + y, bar_x + 20, top + y], fill=colour(1 - y / (rows * cell)))
    d.rectangle([left - 1, top - 1, left + cols * cell, top + rows * cell], outline="black")
    buf = io.BytesIO()
    im.save(buf, fmt, **({"quality": 92} if fmt == "JPEG" else {}))
    return buf.getvalue()


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def make_png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG that *declares* width x height (8-bit RGB) with a few bytes of image data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
            + png_chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + png_chunk(b"IEND", b""))


def make_pdf(lines: list[str] | None, drawing_only: bool = False) -> bytes:
    """A minimal valid one-page PDF written by hand: a Helvetica text content stream, or only a filled
    rectangle (what a scanned page without OCR looks like to a text extractor)."""
    if drawing_only:
        content = b"0.2 0.4 0.8 rg 72 500 300 200 re f"
    else:
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        for line in lines or []:
            esc = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({esc}) Tj T*")
        ops.append("ET")
        content = "\n".join(ops).encode("latin-1")
    return one_page_pdf(b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream")


def one_page_pdf(contents: bytes) -> bytes:
    """A one-page PDF around the content stream object `contents` (a Helvetica font, xref, trailer)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        contents,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    return pdf_of(objects, header=b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")


def pdf_of(objects: list[bytes], header: bytes = b"%PDF-1.4\n", trailer: bytes = b"") -> bytes:
    """A PDF whose objects 1..n are ``objects`` (object 1 the catalog), with its xref and trailer
    (``trailer``: more entries of the trailer dictionary, e.g. /Encrypt)."""
    out = bytearray(header)
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R ".encode() + trailer
    out += f">>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _png(im: Image.Image, fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **({"quality": 85} if fmt == "JPEG" else {}))
    return buf.getvalue()


def make_gridded_heatmap(weights, cell: int = 90, line: int = 3, fmt: str = "PNG") -> bytes:
    """seaborn-style: white gridlines between cells, tick labels, a colour bar."""
    rows, cols = len(weights), len(weights[0])
    left, top = 80, 30
    im = Image.new("RGB", (left + cols * cell + 100, top + rows * cell + 60), "white")
    d = ImageDraw.Draw(im)
    for r in range(rows):
        for c in range(cols):
            x0, y0 = left + c * cell, top + r * cell
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=_viridis(weights[r][c]))
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], outline="white", width=line)
            d.text((x0 + cell // 2 - 12, y0 + cell // 2 - 5), f"{weights[r][c]:.2f}", fill="black")
        d.text((10, top + r * cell + cell // 2), f"q{r}", fill="black")
    for c in range(cols):
        d.text((left + c * cell + cell // 2, top + rows * cell + 8), f"k{c}", fill="black")
    bar_x = left + cols * cell + 25
    for y in range(rows * cell):
        d.line([bar_x, top + y, bar_x + 18, top + y], fill=_viridis(1 - y / (rows * cell)))
    return _png(im, fmt)


def make_two_heatmaps(fmt: str = "PNG") -> bytes:
    """Two 2x3 heatmaps side by side (without and with the mask), as students often submit."""
    a = Image.open(io.BytesIO(make_heatmap()))
    b = Image.open(io.BytesIO(make_heatmap([[0.27, 0.73, 0.0], [0.27, 0.73, 0.0]])))
    im = Image.new("RGB", (a.width + b.width, a.height), "white")
    im.paste(a, (0, 0))
    im.paste(b, (a.width, 0))
    return _png(im, fmt)


def make_pie(fmt: str = "PNG") -> bytes:
    im = Image.new("RGB", (480, 360), "white")
    d = ImageDraw.Draw(im)
    start = 0.0
    for share, colour in ((0.21, (31, 119, 180)), (0.58, (255, 127, 14)), (0.21, (44, 160, 44))):
        d.pieslice([90, 30, 390, 330], start, start + 360 * share, fill=colour)
        start += 360 * share
    d.text((20, 10), "attention of q0", fill="black")
    return _png(im, fmt)


def make_bar_chart(fmt: str = "PNG") -> bytes:
    """A wide bar chart: six adjacent bars of different heights on axes."""
    im = Image.new("RGB", (800, 300), "white")
    d = ImageDraw.Draw(im)
    d.line([40, 270, 780, 270], fill="black", width=2)
    d.line([40, 20, 40, 270], fill="black", width=2)
    for i, v in enumerate((0.21, 0.58, 0.21, 0.09, 0.24, 0.67)):
        x0 = 50 + i * 120
        d.rectangle([x0, 270 - int(240 * v), x0 + 110, 269], fill=(31, 119, 180))
        d.text((x0 + 40, 278), f"k{i % 3}", fill="black")
    return _png(im, fmt)


def make_landscape(fmt: str = "PNG") -> bytes:
    """A cartoon landscape: gradient sky, sun, mountains, flat grass."""
    w, h = 640, 400
    y = np.linspace(0, 1, h)[:, None, None]
    sky = (np.array([70, 130, 220]) * (1 - y) + np.array([200, 225, 255]) * y)
    arr = np.broadcast_to(sky, (h, w, 3)).astype(np.uint8).copy()
    im = Image.fromarray(arr)
    d = ImageDraw.Draw(im)
    d.ellipse([480, 40, 560, 120], fill=(255, 220, 60))
    d.polygon([(0, 300), (160, 120), (320, 300)], fill=(110, 110, 120))
    d.polygon([(220, 300), (420, 90), (640, 300)], fill=(90, 95, 110))
    d.rectangle([0, 300, w, h], fill=(70, 160, 60))
    return _png(im, fmt)


def make_noise_photo(fmt: str = "JPEG") -> bytes:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 256, (60, 80, 3)).astype(np.uint8)
    im = Image.fromarray(base).resize((640, 480), Image.Resampling.BICUBIC)
    noise = rng.integers(-40, 40, (480, 640, 3))
    arr = np.clip(np.asarray(im).astype(int) + noise, 0, 255).astype(np.uint8)
    return _png(Image.fromarray(arr), fmt)


def make_blank(fmt: str = "PNG") -> bytes:
    return _png(Image.new("RGB", (640, 480), "white"), fmt)


def colormap(name: str, reverse: bool = False) -> Callable[[float], tuple[int, int, int]]:
    """A colour function on [0, 1] along one of the colormaps the figure analysis knows (rubric/audit/figure.py), as
    matplotlib interpolates its stops."""
    from rubric.audit.figure import _COLORMAPS_HEX

    stops = [tuple(int(h[k:k + 2], 16) for k in (0, 2, 4)) for h in _COLORMAPS_HEX[name].split()]
    if reverse:
        stops = stops[::-1]

    def colour(x: float) -> tuple[int, int, int]:
        x = min(max(x, 0.0), 1.0) * (len(stops) - 1)
        i = min(int(x), len(stops) - 2)
        t = x - i
        return tuple(round(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * t) for k in range(3))
    return colour


def make_cmap_heatmap(weights, name: str, reverse: bool = False, fmt: str = "PNG", cell: int = 110) -> bytes:
    """The lab's heatmap drawn as plt.imshow(weights, cmap=name) does: colours normalised from the smallest weight to
    the largest (round 26)."""
    cmap = colormap(name, reverse)
    flat = [float(x) for row in weights for x in row]
    lo, hi = min(flat), max(flat)
    return make_heatmap(weights, cell, fmt, colour=lambda v: cmap((v - lo) / (hi - lo) if hi > lo else 0.5))
