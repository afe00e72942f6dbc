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
from collections.abc import Iterator
from xml.etree import ElementTree

MAX_PART_BYTES = 16 * 1024 * 1024
MAX_SHARED = 1_000_000
MAX_COLUMNS = 64
MAX_CHILDREN = 256
MAX_DEPTH = 12
# 5000 rows (app.roster.MAX_ROWS) of 16 cells with inline text are ~250,000 elements; past this the
# instructor is asked to save the sheet as CSV, which reads its first 5000 rows at any width.
MAX_ELEMENTS = 300_000   # a roster has three; a reference far to the right is not a reason to build a huge row

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CELL_REF = re.compile(r"([A-Z]{1,3})(\d+)$")


class _NotAWorkbook(Exception):
    pass


def _bytes(z: zipfile.ZipFile, name: str) -> bytes | None:
    try:
        with z.open(name) as f:
            data = f.read(MAX_PART_BYTES + 1)
    except KeyError:
        return None
    if len(data) > MAX_PART_BYTES or b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise _NotAWorkbook(name)
    return data


def _part(z: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    data = _bytes(z, name)
    return None if data is None else ElementTree.fromstring(data)


def _each(data: bytes, root: str, tag: str, limit: int) -> Iterator[ElementTree.Element]:
    """The `tag` elements of a part whose root is `root`, one at a time, each dropped once used. No
    element keeps more than MAX_CHILDREN children or nests deeper than MAX_DEPTH, and a part has at most
    MAX_ELEMENTS: a tree is ~300 bytes an element, and a million `<c/>` in one row (1 MB zipped) held
    200 MB and took 17 s to read; an element is ~20 µs of reading here."""
    events = ElementTree.iterparse(io.BytesIO(data), events=("start", "end"))
    _event, first = next(events)
    if first.tag != root:
        raise _NotAWorkbook(first.tag)   # a ZIP with "xl/" names in it, not a workbook's part
    stack, seen = [first], 0
    for event, node in events:
        if event == "start":
            seen += 1
            if seen > MAX_ELEMENTS:
                raise _NotAWorkbook("too many elements")
            stack.append(node)
            if len(stack) > MAX_DEPTH:
                raise _NotAWorkbook("nested too deep")
            continue
        stack.pop()
        parent = stack[-1] if stack else None
        if node.tag == tag:
            if limit <= 0:
                return
            limit -= 1
            yield node
            if parent is not None:
                del parent[-1]        # used (at its end it is its parent's last child)
        elif parent is not None and len(parent) > MAX_CHILDREN:
            del parent[-1]            # nothing a roster reads has this many


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


def xlsx_rows(data: bytes, max_rows: int = 100_000) -> list[tuple[int, list[str]]] | None:
    """[(row number as Excel shows it, cells)] of the workbook's first sheet (its first `max_rows` rows),
    or None when `data` is not a workbook this reads (damaged, encrypted, no sheet, a DTD, a part over
    MAX_PART_BYTES)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            shared_xml = _bytes(z, "xl/sharedStrings.xml") or f'<sst xmlns="{_MAIN[1:-1]}"/>'.encode()
            sheet = _bytes(z, _first_sheet(z))
        if sheet is None:
            return None
        shared = [_text(si) for si in _each(shared_xml, f"{_MAIN}sst", f"{_MAIN}si", MAX_SHARED)]
        return list(_rows(sheet, shared, max_rows))
    except (zipfile.BadZipFile, ElementTree.ParseError, _NotAWorkbook, RuntimeError, OSError, EOFError,
            NotImplementedError, ValueError, StopIteration):
        return None   # RuntimeError: an encrypted member; NotImplementedError: a compression zipfile lacks


def _rows(sheet: bytes, shared: list[str], max_rows: int) -> Iterator[tuple[int, list[str]]]:
    last = 0
    for row in _each(sheet, f"{_MAIN}worksheet", f"{_MAIN}row", max_rows):
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
            yield number, [cells.get(i, "") for i in range(max(cells) + 1)]
