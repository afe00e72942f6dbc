"""Round 33: a workbook saved as Strict Open XML, or whose first sheet is a chart, is read as a roster;
a workbook that still does not read is refused with what was found in it.

Both were refused with "The file is an Excel workbook (.xlsx), not CSV text: save it as CSV": Strict
Open XML (Excel's "Strict Open XML Spreadsheet", ISO 29500 strict) has the same parts in other XML
namespaces, and a chart sheet listed before the data was taken for the roster. The roster is now the
first visible worksheet, in either namespace; a workbook with no worksheet (chart sheets only), a
damaged or oversized one says what it holds instead of calling an .xlsx "not CSV text".
"""

from __future__ import annotations

import html
import io
import zipfile

import pytest

from app.roster_xlsx import xlsx_rows
from tests.web.test_roster_round29 import import_page, names

TRANSITIONAL = ("http://schemas.openxmlformats.org/spreadsheetml/2006/main",
                "http://schemas.openxmlformats.org/officeDocument/2006/relationships")
STRICT = ("http://purl.oclc.org/ooxml/spreadsheetml/main", "http://purl.oclc.org/ooxml/officeDocument/relationships")
ROWS = ('<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
        '<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3" t="inlineStr"><is><t>李雷</t></is></c></row>')
SHARED = ["email", "name", "sx1@example.edu"]
CHART = '<chartsheet xmlns="{main}"><sheetPr/><drawing r:id="rId1" xmlns:r="{rel}"/></chartsheet>'


def book(sheets: list[tuple[str, str, str]], ns: tuple[str, str] = TRANSITIONAL, typed: bool = True) -> bytes:
    """A workbook whose sheets are (name, kind: worksheet|chartsheet, state), in that order, as Excel
    writes one; `typed`: the relationships carry their Type (Excel's do)."""
    main, rel = ns
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        entries, rels = [], []
        for i, (name, kind, state) in enumerate(sheets, start=1):
            entries.append(f'<sheet name="{name}" sheetId="{i}" r:id="rId{i}"' + (f' state="{state}"' if state else "")
                           + "/>")
            folder = "worksheets" if kind == "worksheet" else "chartsheets"
            rel_type = f' Type="{rel}/{kind}"' if typed else ""
            rels.append(f'<Relationship Id="rId{i}"{rel_type} Target="{folder}/sheet{i}.xml"/>')
            part = (f'<worksheet xmlns="{main}"><sheetData>{ROWS}</sheetData></worksheet>' if kind == "worksheet"
                    else CHART.format(main=main, rel=rel))
            z.writestr(f"xl/{folder}/sheet{i}.xml", part)
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>{"".join(entries)}</sheets>'
                                      "</workbook>")
        z.writestr("xl/_rels/workbook.xml.rels",
                   '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   + "".join(rels) + "</Relationships>")
        z.writestr("xl/sharedStrings.xml", f'<sst xmlns="{main}">' + "".join(f"<si><t>{s}</t></si>" for s in SHARED)
                   + "</sst>")
    return buf.getvalue()


EXPECTED = [(1, ["email", "name"]), (3, ["sx1@example.edu", "李雷"])]


def test_a_strict_open_xml_workbook_is_read():
    assert xlsx_rows(book([("Roster", "worksheet", "")], STRICT)) == EXPECTED


@pytest.mark.parametrize("typed", [True, False])
@pytest.mark.parametrize("ns", [TRANSITIONAL, STRICT])
def test_a_chart_sheet_before_the_data_is_passed_over(ns, typed):
    assert xlsx_rows(book([("Chart1", "chartsheet", ""), ("Roster", "worksheet", "")], ns, typed)) == EXPECTED


def test_a_hidden_worksheet_before_the_roster_is_passed_over():
    data = book([("Lookup", "worksheet", "hidden"), ("Roster", "worksheet", "")])
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        hidden = z.read("xl/worksheets/sheet1.xml").replace(
            b'<c r="A3" t="s"><v>2</v></c>', b'<c r="A3" t="inlineStr"><is><t>hidden@example.edu</t></is></c>')
    assert b"hidden@" in hidden
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, hidden if item.filename == "xl/worksheets/sheet1.xml" else src.read(item))
    assert xlsx_rows(buf.getvalue()) == EXPECTED


def test_a_strict_chart_first_workbook_is_imported_from_the_page(client, web, course):
    web.login(client, course["teacher"])
    status, page = import_page(client, book([("Chart1", "chartsheet", ""), ("Roster", "worksheet", "")], STRICT))
    assert status == 200 and "not CSV text" not in page
    assert names()["sx1@example.edu"] == "李雷"


def test_a_workbook_of_chart_sheets_only_says_so_in_both_languages(client, web, course):
    from app.roster_xlsx import WorkbookUnreadable, read_workbook

    data = book([("Chart1", "chartsheet", ""), ("趋势", "chartsheet", "")])
    with pytest.raises(WorkbookUnreadable) as exc:
        read_workbook(data)
    assert "chart sheet 'Chart1'" in exc.value.en and "图表工作表「趋势」" in exc.value.zh
    web.login(client, course["teacher"])
    status, page = import_page(client, data, "en")
    page = html.unescape(page)
    assert status == 200 and "The file is an Excel workbook (.xlsx), but its rows could not be read: it has no " \
        "worksheet with rows, only a chart sheet 'Chart1', a chart sheet '趋势'. Nothing was imported." in page
    status, page = import_page(client, data, "zh")
    assert "该文件是 Excel 工作簿（.xlsx），但无法读出其中的行：其中没有含数据行的工作表，只有图表工作表「Chart1」、" \
        "图表工作表「趋势」。没有导入任何内容。" in html.unescape(page)


def test_a_damaged_workbook_says_what_is_wrong_with_it(client, web, course):
    data = book([("Roster", "worksheet", "")])
    damaged = data[: len(data) // 2]
    web.login(client, course["teacher"])
    status, page = import_page(client, damaged, "en")
    assert status == 200 and "but its rows could not be read: its ZIP structure is damaged or cut short" in page


def test_a_zip_that_is_no_workbook_is_still_named_for_what_it_is(client, web, course):
    from app.roster_xlsx import read_workbook

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", "<document/>")
    assert read_workbook(buf.getvalue()) is None
    web.login(client, course["teacher"])
    status, page = import_page(client, buf.getvalue(), "en")
    assert "The file is a Word document (.docx), not CSV text" in page
