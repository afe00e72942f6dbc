"""The first sheet of an Excel workbook (.xlsx) as roster records, with the row numbers Excel shows.

An instructor's roster is usually a workbook, and uploading it was refused ("save it as CSV"). The
sheet's XML leaves empty rows and cells out, so its rows are numbered by their `r` attribute (row 5 is
row 5 however many rows above it are empty), never by counting them, and a cell goes to the column
its reference names. Only the standard library reads it: a workbook is a ZIP of XML parts.

What a hostile file could do is bounded: each part read is at most MAX_PART_BYTES unpacked (read that
far, whatever the ZIP's directory claims), and a part with a DTD (which no workbook has: entity
expansion) is not parsed. Anything else that does not read as a workbook gives None, and the caller
says what the file is instead (app.instructor._roster_unreadable).
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from xml.etree import ElementTree

MAX_PART_BYTES = 16 * 1024 * 1024
MAX_COLUMNS = 64   # a roster has three; a reference far to the right is not a reason to build a huge row

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CELL_REF = re.compile(r"([A-Z]{1,3})(\d+)$")


class _NotAWorkbook(Exception):
    pass


def _part(z: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    try:
        with z.open(name) as f:
            data = f.read(MAX_PART_BYTES + 1)
    except KeyError:
        return None
    if len(data) > MAX_PART_BYTES or b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise _NotAWorkbook(name)
    return ElementTree.fromstring(data)


def _text(node: ElementTree.Element) -> str:
    """A string item's text: its <t>, or its rich-text runs' <t>s; phonetic guides (<rPh>) left out."""
    direct = node.find(f"{_MAIN}t")
    if direct is not None:
        return direct.text or ""
    return "".join(t.text or "" for r in node.findall(f"{_MAIN}r") for t in r.findall(f"{_MAIN}t"))


def _first_sheet(z: zipfile.ZipFile) -> str:
    book, rels = _part(z, "xl/workbook.xml"), _part(z, "xl/_rels/workbook.xml.rels")
    sheet = book.find(f"{_MAIN}sheets/{_MAIN}sheet") if book is not None else None
    if sheet is None or rels is None:
        return "xl/worksheets/sheet1.xml"
    rid = sheet.get(f"{_REL}id")
    for rel in rels.findall(f"{_PKG_REL}Relationship"):
        if rel.get("Id") == rid and rel.get("Target"):
            target = rel.get("Target", "")
            return target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
    return "xl/worksheets/sheet1.xml"


def _column(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - ord("A") + 1
    return n - 1


def xlsx_rows(data: bytes) -> list[tuple[int, list[str]]] | None:
    """[(row number as Excel shows it, cells)] of the workbook's first sheet, or None when `data` is not
    a workbook this reads (damaged, encrypted, no sheet, a DTD, a part over MAX_PART_BYTES)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            shared_root = _part(z, "xl/sharedStrings.xml")
            shared = [_text(si) for si in shared_root.findall(f"{_MAIN}si")] if shared_root is not None else []
            sheet = _part(z, _first_sheet(z))
    except (zipfile.BadZipFile, ElementTree.ParseError, _NotAWorkbook, RuntimeError, OSError, EOFError,
            NotImplementedError, ValueError):
        return None   # RuntimeError: an encrypted member; NotImplementedError: a compression zipfile lacks
    if sheet is None or sheet.find(f"{_MAIN}sheetData") is None:
        return None
    rows: list[tuple[int, list[str]]] = []
    last = 0
    for row in sheet.find(f"{_MAIN}sheetData").findall(f"{_MAIN}row"):
        number = int(row.get("r")) if (row.get("r") or "").isdigit() else last + 1   # `r` may be left out
        last = number
        cells: dict[int, str] = {}
        for i, c in enumerate(row.findall(f"{_MAIN}c")):
            ref = _CELL_REF.match(c.get("r") or "")
            col = _column(ref.group(1)) if ref else (max(cells) + 1 if cells else i)
            if col >= MAX_COLUMNS:
                continue
            kind, value = c.get("t"), c.find(f"{_MAIN}v")
            if kind == "inlineStr":
                inline = c.find(f"{_MAIN}is")
                text = _text(inline) if inline is not None else ""
            elif kind == "s":
                index = (value.text or "").strip() if value is not None else ""
                text = shared[int(index)] if index.isdigit() and int(index) < len(shared) else ""
            elif kind == "b":
                text = "TRUE" if value is not None and value.text == "1" else "FALSE"
            else:
                text = value.text or "" if value is not None else ""
            cells[col] = text
        if cells:
            rows.append((number, [cells.get(i, "") for i in range(max(cells) + 1)]))
    return rows
