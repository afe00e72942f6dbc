"""Fixtures for the written-audit checker: the shipped checklist, fixture audits, images and PDFs built
in memory (nothing binary is committed)."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from rubric.audit import load_checklist

AUDITS = Path(__file__).resolve().parents[1] / "fixtures" / "audits"

# The lab's 2x3 example (B=H=1, Nq=2, Nk=3): rows are queries, columns keys, rows sum to 1.
EXAMPLE_WEIGHTS = [[0.21, 0.58, 0.21], [0.09, 0.24, 0.67]]

# What the grader measured on code consistent with the fixture audits' reported numbers.
MEASURED_OK = {"max_abs_error": 2.6e-7, "row_sum_error": 1.1e-7}


def _viridis(x: float) -> tuple[int, int, int]:
    stops = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
    x = min(max(x, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    t = x - i
    a, b = stops[i], stops[i + 1]
    return tuple(round(a[k] + (b[k] - a[k]) * t) for k in range(3))


def make_heatmap(weights=EXAMPLE_WEIGHTS, cell: int = 110, fmt: str = "PNG") -> bytes:
    """A matplotlib-like figure: white margins, coloured cells with their values, axis labels, colourbar."""
    rows, cols = len(weights), len(weights[0])
    left, top = 90, 40
    width, height = left + cols * cell + 110, top + rows * cell + 70
    im = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(im)
    for r in range(rows):
        for c in range(cols):
            x0, y0 = left + c * cell, top + r * cell
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=_viridis(weights[r][c]))
            d.text((x0 + cell // 2 - 12, y0 + cell // 2 - 5), f"{weights[r][c]:.2f}", fill="white")
        d.text((20, top + r * cell + cell // 2 - 5), f"query {r}", fill="black")
    for c in range(cols):
        d.text((left + c * cell + cell // 2 - 15, top + rows * cell + 10), f"key {c}", fill="black")
    bar_x = left + cols * cell + 30
    for y in range(rows * cell):
        d.line([bar_x, top + y, bar_x + 20, top + y], fill=_viridis(1 - y / (rows * cell)))
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
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@pytest.fixture(scope="session")
def checklist():
    return load_checklist()


@pytest.fixture(scope="session")
def audit_text():
    def read(name: str) -> str:
        return (AUDITS / name).read_text(encoding="utf-8")
    return read


@pytest.fixture(scope="session")
def heatmap_png() -> bytes:
    return make_heatmap()


@pytest.fixture(scope="session")
def heatmap_info(heatmap_png):
    from worker.inputs import validate_figure
    return validate_figure("attention_2x3.png", heatmap_png)
