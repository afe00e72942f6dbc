"""Round 34b: a workbook whose first worksheet is empty (the roster typed on "Sheet2") answered
"0 created" with no reason. The first worksheet with a cell of text is read; a workbook with no text on
any worksheet is refused as empty, in both languages."""

from __future__ import annotations

import html
import io
import zipfile

from app.roster_xlsx import xlsx_rows
from tests.web.test_roster_round29 import import_page, names
from tests.web.test_roster_xlsx_round33 import EXPECTED, STRICT, TRANSITIONAL, book


def emptied(data: bytes, *parts: str, blank_cells: bool = False) -> bytes:
    """`data` with the worksheets `parts` holding no text: no rows, or (blank_cells) rows of empty cells,
    as a sheet whose cells were only formatted."""
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for item in src.infolist():
            body = src.read(item)
            if item.filename in parts:
                main = (STRICT if STRICT[0].encode() in body else TRANSITIONAL)[0]
                rows = '<row r="1"><c r="A1" s="1"/><c r="B1" t="inlineStr"><is><t> </t></is></c></row>' \
                    if blank_cells else ""
                body = f'<worksheet xmlns="{main}"><sheetData>{rows}</sheetData></worksheet>'.encode()
            dst.writestr(item, body)
    return buf.getvalue()


def test_an_empty_first_sheet_is_passed_over_for_the_next_with_data():
    for blank_cells in (False, True):
        for ns in (TRANSITIONAL, STRICT):
            data = emptied(book([("Sheet1", "worksheet", ""), ("Roster", "worksheet", "")], ns),
                           "xl/worksheets/sheet1.xml", blank_cells=blank_cells)
            assert xlsx_rows(data) == EXPECTED


def test_the_first_sheet_with_data_is_still_read_first():
    data = book([("A", "worksheet", ""), ("B", "worksheet", "")])
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.read("xl/worksheets/sheet1.xml") == z.read("xl/worksheets/sheet2.xml")
    assert xlsx_rows(data) == EXPECTED
    # a visible empty sheet and a hidden one with data: the hidden one is read, rather than nothing
    data = emptied(book([("Empty", "worksheet", ""), ("Hidden", "worksheet", "hidden")]), "xl/worksheets/sheet1.xml")
    assert xlsx_rows(data) == EXPECTED


def test_an_empty_first_sheet_workbook_is_imported_from_the_page(client, web, course):
    web.login(client, course["teacher"])
    data = emptied(book([("Sheet1", "worksheet", ""), ("Sheet2", "worksheet", "")]), "xl/worksheets/sheet1.xml")
    status, _page = import_page(client, data)
    assert status == 200
    assert names()["sx1@example.edu"] == "李雷"


def test_a_workbook_with_no_text_on_any_sheet_says_so_in_both_languages(client, web, course):
    data = emptied(book([("Sheet1", "worksheet", ""), ("Sheet2", "worksheet", "")]),
                   "xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml", blank_cells=True)
    assert xlsx_rows(data) == [(1, ["", " "])]    # the first sheet's rows, none with text
    web.login(client, course["teacher"])
    status, page = import_page(client, data, "en")
    assert status == 200
    assert ("The workbook roster.csv has no cell with text on any of its worksheets: nothing was imported."
            in html.unescape(page))
    status, page = import_page(client, data, "zh")
    assert "工作簿 roster.csv 的所有工作表中都没有含文字的单元格：没有导入任何内容。" in html.unescape(page)


def test_at_most_max_sheets_blank_sheets_are_parsed_for_one_with_text():
    """Second review of round 34: every sheet was unpacked and parsed in the request looking for text."""
    from app.roster_xlsx import MAX_SHEETS

    sheets = [(f"S{i}", "worksheet", "") for i in range(MAX_SHEETS + 1)]
    paths = [f"xl/worksheets/sheet{i + 1}.xml" for i in range(MAX_SHEETS)]
    data = emptied(book(sheets), *paths)          # the data only on the sheet past the bound
    assert not any(cells for _n, cells in xlsx_rows(data) or [] if any(c.strip() for c in cells))
    assert xlsx_rows(emptied(book(sheets), *paths[:-1])) == EXPECTED
