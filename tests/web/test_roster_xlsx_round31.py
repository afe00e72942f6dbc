"""Round 31: an Excel workbook is read as a roster, with each row numbered as Excel shows it.

Uploading the roster workbook itself (the usual file) was refused ("save it as CSV"). A sheet's XML leaves
empty rows out, so its rows are numbered by their own reference (row 6 stays row 6 below empty rows), not
by counting them; a damaged workbook, an XML bomb or an oversized part is still refused with what it is."""

from __future__ import annotations

import io
import zipfile

from app.roster_xlsx import MAX_PART_BYTES, xlsx_rows
from tests.web.test_roster_round29 import import_page, names

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
RNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def workbook(rows: str, shared: list[str] = (), sheet_path: str = "worksheets/data.xml", **extra: bytes) -> bytes:
    """A workbook as Excel writes one: its sheet found through workbook.xml and its relationships."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", f'<workbook {NS} {RNS}><sheets><sheet name="Roster" sheetId="1" r:id="rId7"/>'
                                      "</sheets></workbook>")
        z.writestr("xl/_rels/workbook.xml.rels",
                   '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   f'<Relationship Id="rId7" Target="{sheet_path}"/></Relationships>')
        parts = {"xl/sharedStrings.xml": f"<sst {NS}>" + "".join(f"<si><t>{s}</t></si>" for s in shared) + "</sst>",
                 f"xl/{sheet_path}": f"<worksheet {NS}><sheetData>{rows}</sheetData></worksheet>"}
        parts.update({name.replace("__", "/"): data for name, data in extra.items()})   # a part replaced
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


# Row 1 header (shared strings), row 2 a student (inline strings, rich text), rows 3-5 empty (left out of
# the XML), row 6 a bad email, row 7 a student whose name is in column B with column C empty and an extra D.
ROSTER = workbook(
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
    '<row r="2"><c r="A2" t="inlineStr"><is><t>wb1@example.edu</t></is></c>'
    '<c r="B2" t="inlineStr"><is><r><t>Wang </t></r><r><t>Fang</t></r></is></c></row>'
    '<row r="6"><c r="A6" t="inlineStr"><is><t>not-an-email</t></is></c><c r="B6" t="s"><v>2</v></c></row>'
    '<row r="7"><c r="A7" t="s"><v>3</v></c><c r="B7" t="s"><v>4</v></c><c r="D7"><v>2026001</v></c></row>',
    shared=["email", "name", "Nobody", "wb2@example.edu", "李雷"])


def test_a_workbooks_rows_are_numbered_as_excel_shows_them():
    assert xlsx_rows(ROSTER) == [(1, ["email", "name"]), (2, ["wb1@example.edu", "Wang Fang"]),
                                 (6, ["not-an-email", "Nobody"]), (7, ["wb2@example.edu", "李雷", "", "2026001"])]


def test_a_workbook_roster_is_imported_and_its_refusals_name_the_excel_row(client, web, course):
    web.login(client, course["teacher"])
    status, page = import_page(client, ROSTER, "en")
    assert status == 200 and "<td>line 6</td><td>invalid email</td>" in page
    assert names()["wb1@example.edu"] == "Wang Fang" and names()["wb2@example.edu"] == "李雷"
    assert "1 extra cell(s) not imported: 2026001" in page
    status, page = import_page(client, ROSTER, "zh")
    assert status == 200 and "<td>第 6 行</td><td>邮箱无效</td>" in page


def test_a_workbook_this_cannot_read_is_still_refused_for_what_it_is(client, web, course):
    bomb = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
            f'<worksheet {NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&lol2;</t></is></c></row>'
            '</sheetData></worksheet>')
    huge = workbook("", **{"xl__sharedStrings.xml": b"<sst>" + b" " * (MAX_PART_BYTES + 1) + b"</sst>"})
    damaged = ROSTER[: len(ROSTER) // 2]
    for data in (workbook("", sheet_path="worksheets/data.xml", **{"xl__worksheets__data.xml": bomb.encode()}),
                 huge, damaged):
        assert xlsx_rows(data) is None
    web.login(client, course["teacher"])
    status, page = import_page(client, damaged, "en")
    # round 33: with what was found in it
    assert status == 200 and "The file is an Excel workbook (.xlsx), but its rows could not be read: its ZIP " \
        "structure is damaged or cut short. Nothing was imported." in page


def test_a_zip_with_excel_names_that_is_no_workbook_and_a_sheet_past_the_row_cap_are_bounded():
    from tests.web.test_roster_round29 import workbook as named_like_a_workbook

    assert xlsx_rows(named_like_a_workbook()) is None      # "xl/" names, but no worksheet part
    many = workbook("".join(f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>s{n}@example.edu</t></is></c></row>'
                            for n in range(1, 51)))
    assert [n for n, _cells in xlsx_rows(many, max_rows=3)] == [1, 2, 3]


def test_a_sheet_of_more_elements_than_a_roster_has_is_refused_before_it_is_read(monkeypatch):
    import app.roster_xlsx as reader

    monkeypatch.setattr(reader, "MAX_ELEMENTS", 1000)
    assert xlsx_rows(workbook('<row r="1">' + "<c/>" * 2000 + "</row>")) is None   # a million: 17 s, 200 MB
    assert xlsx_rows(workbook('<row r="1">' + "<c/>" * 500 + "</row>")) == [(1, [""] * 64)]
