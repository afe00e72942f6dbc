"""The first sheet of an Excel workbook (.xlsx) as roster records, with the row numbers Excel shows.

An instructor's roster is usually a workbook, and uploading it was refused ("save it as CSV"). The
sheet's XML leaves empty rows and cells out, so its rows are numbered by their `r` attribute (row 5 is
row 5 however many rows above it are empty), never by counting them, and a cell goes to the column
its reference names. Only the standard library reads it: a workbook is a ZIP of XML parts.

What a hostile file could do is bounded: each part read is at most MAX_PART_BYTES unpacked (read that
far, whatever the ZIP's directory claims), and a part with a DTD (which no workbook has: entity
expansion) is not parsed. A workbook (it has xl/workbook.xml) that does not read raises
WorkbookUnreadable naming what was found; anything else gives None, and the caller says what the
file is instead (app.instructor._roster_unreadable).

Round 33: a workbook saved as "Strict Open XML Spreadsheet" (other namespaces, the same parts) and one
whose first sheet is a chart (a chart sheet before the data) were refused with "save it as CSV"; the
roster is now read from the first visible worksheet in either form.

Round 34: a workbook whose first sheet is empty (the roster on the second) answered "0 created" with no
reason; the first worksheet with a cell of text is read, and a workbook with none is refused as empty.
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

# Transitional (what Excel saves by default) and Strict ("Strict Open XML Spreadsheet", ISO 29500
# strict): the same parts and names in other namespaces. The package's own relationships are the same.
_MAINS = ("{http://schemas.openxmlformats.org/spreadsheetml/2006/main}", "{http://purl.oclc.org/ooxml/spreadsheetml/main}")
_RELS = ("{http://schemas.openxmlformats.org/officeDocument/2006/relationships}",
         "{http://purl.oclc.org/ooxml/officeDocument/relationships}")
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CELL_REF = re.compile(r"([A-Z]{1,3})(\d+)$")
# The kinds of sheet a workbook lists besides worksheets (its relationship's Type ends with the name),
# and how a refusal names them.
_NOT_WORKSHEETS = {"chartsheet": ("a chart sheet", "图表工作表"), "dialogsheet": ("a dialog sheet", "对话框工作表"),
                   "xlMacrosheet": ("a macro sheet", "宏工作表"), "xlIntlMacrosheet": ("a macro sheet", "宏工作表")}


# The parts _each reads, as a refusal names them.
_PART_NAMES = {"worksheet": ("a worksheet", "工作表"), "sst": ("the shared strings", "共享字符串表")}


class WorkbookUnreadable(ValueError):
    """A workbook whose roster rows are not read, with what was found in it (en, zh)."""

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.en, self.zh = en, zh


class _NotAWorkbook(Exception):
    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.en, self.zh = en, zh


def _bytes(z: zipfile.ZipFile, name: str) -> bytes | None:
    try:
        with z.open(name) as f:
            data = f.read(MAX_PART_BYTES + 1)
    except KeyError:
        return None
    if len(data) > MAX_PART_BYTES:
        raise _NotAWorkbook(f"its part {name} is larger than {MAX_PART_BYTES // 2**20} MiB unpacked",
                            f"其中的部件 {name} 解压后超过 {MAX_PART_BYTES // 2**20} MiB")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise _NotAWorkbook(f"its part {name} declares a DTD, which no spreadsheet program writes",
                            f"其中的部件 {name} 声明了 DTD，电子表格软件不会写入这种内容")
    return data


def _part(z: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    data = _bytes(z, name)
    return None if data is None else ElementTree.fromstring(data)


def _ns(node: ElementTree.Element) -> str:
    """The namespace of an element's tag, braces included ("" for none)."""
    return node.tag[:node.tag.index("}") + 1] if node.tag.startswith("{") else ""


def _each(data: bytes, root: str, tag: str, limit: int) -> Iterator[ElementTree.Element]:
    """The `tag` elements of a part whose root is `root` (names without their namespace, which is
    either of _MAINS), one at a time, each dropped once used. No
    element keeps more than MAX_CHILDREN children or nests deeper than MAX_DEPTH, and a part has at most
    MAX_ELEMENTS: a tree is ~300 bytes an element, and a million `<c/>` in one row (1 MB zipped) held
    200 MB and took 17 s to read; an element is ~20 µs of reading here."""
    events = ElementTree.iterparse(io.BytesIO(data), events=("start", "end"))
    _event, first = next(events)
    ns = _ns(first)
    name_en, name_zh = _PART_NAMES[root]
    if ns not in _MAINS or first.tag != ns + root:
        # a ZIP with "xl/" names in it, not a workbook's part
        found = first.tag.rpartition("}")[2][:40]
        raise _NotAWorkbook(f"a part that should be {name_en} is <{found}>", f"本应是{name_zh}的部件却是 <{found}>")
    tag = ns + tag
    stack, seen = [first], 0
    for event, node in events:
        if event == "start":
            seen += 1
            if seen > MAX_ELEMENTS:
                raise _NotAWorkbook(f"{name_en} has more than {MAX_ELEMENTS:,} XML elements",
                                    f"{name_zh}超过 {MAX_ELEMENTS:,} 个 XML 元素")
            stack.append(node)
            if len(stack) > MAX_DEPTH:
                raise _NotAWorkbook(f"{name_en} nests XML elements more than {MAX_DEPTH} deep",
                                    f"{name_zh}的 XML 元素嵌套超过 {MAX_DEPTH} 层")
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
    ns = _ns(node)
    direct = node.find(f"{ns}t")
    if direct is not None:
        return direct.text or ""
    return "".join(t.text or "" for r in node.findall(f"{ns}r") for t in r.findall(f"{ns}t"))


# How many worksheets are tried for one with text (a workbook of many blank sheets is parsed in the request).
MAX_SHEETS = 8


def _worksheets(z: zipfile.ZipFile) -> list[str]:
    """The parts of the workbook's worksheets in the order they are read: the visible ones as listed,
    then the hidden ones, at most MAX_SHEETS. A chart sheet (or a dialog or macro sheet) is passed over. Raises
    _NotAWorkbook naming the sheets found when none is a worksheet."""
    book, rels = _part(z, "xl/workbook.xml"), _part(z, "xl/_rels/workbook.xml.rels")
    ns = _ns(book) if book is not None else ""
    sheets = book.findall(f"{ns}sheets/{ns}sheet") if book is not None and ns in _MAINS else []
    if not sheets or rels is None:
        return ["xl/worksheets/sheet1.xml"]
    targets = {rel.get("Id"): rel for rel in rels.findall(f"{_PKG_REL}Relationship") if rel.get("Target")}
    visible, hidden, others = [], [], []
    for sheet in sheets:
        rel = next((targets[rid] for r in _RELS if (rid := sheet.get(f"{r}id")) in targets), None)
        if rel is None:
            continue
        kind = (rel.get("Type") or "").rpartition("/")[2]
        target = rel.get("Target", "")
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
        if kind in _NOT_WORKSHEETS or posixpath.basename(posixpath.dirname(path)) in (
                "chartsheets", "dialogsheets", "macrosheets"):
            others.append((kind if kind in _NOT_WORKSHEETS else "chartsheet", sheet.get("name") or ""))
        elif sheet.get("state") in ("hidden", "veryHidden"):
            hidden.append(path)
        else:
            visible.append(path)
    # at most MAX_SHEETS read: each is unpacked and parsed in the request
    if visible or hidden:
        return (visible + hidden)[:MAX_SHEETS]
    if others:
        found_en = ", ".join(f"{_NOT_WORKSHEETS[k][0]} '{name[:31]}'" for k, name in others[:5])
        found_zh = "、".join(f"{_NOT_WORKSHEETS[k][1]}「{name[:31]}」" for k, name in others[:5])
        raise _NotAWorkbook(f"it has no worksheet with rows, only {found_en}",
                            f"其中没有含数据行的工作表，只有{found_zh}")
    return ["xl/worksheets/sheet1.xml"]


def _column(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - ord("A") + 1
    return n - 1


def xlsx_rows(data: bytes, max_rows: int = 100_000) -> list[tuple[int, list[str]]] | None:
    """[(row number as Excel shows it, cells)] of the workbook's first worksheet with data (its first
    `max_rows` rows), or None when `data` is not a workbook this reads (read_workbook says why)."""
    try:
        return read_workbook(data, max_rows)
    except WorkbookUnreadable:
        return None


def read_workbook(data: bytes, max_rows: int = 100_000) -> list[tuple[int, list[str]]] | None:
    """As xlsx_rows, but a file that has a workbook's xl/workbook.xml and still does not read
    (damaged, encrypted parts, only chart sheets, a DTD, a part over MAX_PART_BYTES) raises
    WorkbookUnreadable with what was found; None: no workbook at all (another ZIP).

    The first worksheet with a cell of text is read (visible ones first, as listed): a workbook whose
    first sheet was left empty, the roster on "Sheet2", answered "0 created" with no reason. When no
    worksheet has text, the first one's rows (the caller says the workbook is empty: has_text)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            is_book = "xl/workbook.xml" in z.namelist()
            shared_xml = _bytes(z, "xl/sharedStrings.xml") or f'<sst xmlns="{_MAINS[0][1:-1]}"/>'.encode()
            shared: list[str] | None = None
            first: list[tuple[int, list[str]]] | None = None
            for sheet_path in _worksheets(z):
                sheet = _bytes(z, sheet_path)
                if sheet is None:
                    if is_book:
                        raise _NotAWorkbook(f"its sheet's part {sheet_path} is missing",
                                            f"其工作表的部件 {sheet_path} 缺失")
                    return None
                if shared is None:
                    shared = [_text(si) for si in _each(shared_xml, "sst", "si", MAX_SHARED)]
                rows = list(_rows(sheet, shared, max_rows))
                if has_text(rows):
                    return rows
                first = rows if first is None else first
        return first or []
    except _NotAWorkbook as exc:
        raise WorkbookUnreadable(exc.en, exc.zh) from None
    except zipfile.BadZipFile:
        raise WorkbookUnreadable("its ZIP structure is damaged or cut short", "其 ZIP 结构已损坏或不完整") from None
    except RuntimeError:   # an encrypted member
        raise WorkbookUnreadable("its parts are encrypted", "其中的部件已加密") from None
    except NotImplementedError:
        raise WorkbookUnreadable("its parts are compressed in a way ZIP readers rarely support",
                                 "其中的部件使用了少见的 ZIP 压缩方式") from None
    except (ElementTree.ParseError, OSError, EOFError, ValueError, StopIteration):
        raise WorkbookUnreadable("a part of it is not well-formed XML", "其中某个部件不是格式正确的 XML") from None


def has_text(rows: list[tuple[int, list[str]]]) -> bool:
    """Whether a cell of `rows` holds more than white space."""
    return any(cell.strip() for _number, cells in rows for cell in cells)


def _rows(sheet: bytes, shared: list[str], max_rows: int) -> Iterator[tuple[int, list[str]]]:
    last = 0
    for row in _each(sheet, "worksheet", "row", max_rows):
        ns = _ns(row)
        number = int(row.get("r")) if (row.get("r") or "").isdigit() else last + 1   # `r` may be left out
        last = number
        cells: dict[int, str] = {}
        for i, c in enumerate(row.findall(f"{ns}c")):
            ref = _CELL_REF.match(c.get("r") or "")
            col = _column(ref.group(1)) if ref else (max(cells) + 1 if cells else i)
            if col >= MAX_COLUMNS:
                continue
            kind, value = c.get("t"), c.find(f"{ns}v")
            if kind == "inlineStr":
                inline = c.find(f"{ns}is")
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
