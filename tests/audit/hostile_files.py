"""Hostile figures and PDFs, built in memory (shared by tests/audit and bench/hostile_inputs.py)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

from tests.audit.helpers import one_page_pdf


def _segments(data: bytes) -> list[tuple[int, int, int]]:
    """(marker, start, end) of each JPEG segment up to EOI; a scan's end includes its entropy data."""
    out, i = [], 2
    while i < len(data):
        assert data[i] == 0xFF
        marker = data[i + 1]
        if marker == 0xD9:
            out.append((marker, i, i + 2))
            break
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        end = i + 2 + length
        if marker == 0xDA:                      # entropy-coded data runs to the next real marker
            j = end
            while not (data[j] == 0xFF and data[j + 1] not in (0x00, *range(0xD0, 0xD8))):
                j += 1
            end = j
        out.append((marker, i, end))
        i = end
    return out


def progressive_jpeg_with_repeated_scan(side: int = 4096, repeats: int = 40_000) -> bytes:
    """A side×side progressive JPEG whose smallest refinement scan is repeated ``repeats`` times:
    about 1.4 MB at 40,000 repeats, and a decoder pays a pass over the whole image for each."""
    buf = io.BytesIO()
    Image.new("RGB", (side, side), (40, 90, 160)).save(buf, "JPEG", progressive=True, quality=50)
    data = buf.getvalue()
    segs = _segments(data)
    scans = [(s, e) for m, s, e in segs if m == 0xDA]
    s, e = min(scans[1:], key=lambda se: se[1] - se[0])   # the smallest scan after the DC one
    eoi = segs[-1][1]
    return data[:eoi] + data[s:e] * repeats + data[eoi:]


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_with_many_chunks(n: int = 200_000) -> bytes:
    """A 1×1 PNG whose image data is split over ``n`` one-byte IDAT chunks (about 13 bytes each)."""
    raw = zlib.compress(b"\x00\x00\x00\x00")
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    chunks = [_png_chunk(b"IDAT", raw[i:i + 1]) for i in range(len(raw))]
    chunks = [_png_chunk(b"IDAT", b"")] * max(0, n - len(chunks)) + chunks
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + b"".join(chunks) + _png_chunk(b"IEND", b"")


def pdf_with_costly_page(decoded_bytes: int = 1_900_000) -> bytes:
    """A one-page PDF of a few KB whose compressed content stream inflates to ``decoded_bytes`` of
    text operators: under the per-page content cap, yet seconds of text extraction within the page
    (about 6 s of CPU: ``'``, a line each, costs twice as much as ``Tj`` and ``Td`` did, ~3 s, at
    DECODE_CPU_S itself, so that a decoding child made cheaper (round 28) got it through)."""
    op = b"(ab)' "
    return deflated_pdf(b"BT /F1 1 Tf " + op * (decoded_bytes // len(op)) + b"ET")


def pdf_with_text(lines: list[str]) -> bytes:
    """An ordinary one-page PDF whose text layer holds ``lines`` (ASCII)."""
    ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td", *(f"({line}) Tj T*" for line in lines), "ET"]
    return deflated_pdf("\n".join(ops).encode("latin-1"))


def deflated_pdf(content: bytes) -> bytes:
    """A one-page PDF whose content stream is ``content``, deflated."""
    stream = zlib.compress(content, 9)
    return one_page_pdf(b"<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\nstream\n"
                        + stream + b"\nendstream")
