"""Round 29: a roster file is imported line by line whatever its bytes; nothing in it is a server error.

Found by posting hostile rosters: a file saved with CR line ends (Excel for Mac's "CSV (Macintosh)") and a
cell past the csv module's 128 KiB field limit were 500s; a NUL in a name or an email failed the whole
import as a database error ("something is malformed", no line named); an ESC sequence, a BEL or a line
break in a name was stored and went into every page, export and the sign-in links file."""

from __future__ import annotations

import csv
import html
import io
import re
import zipfile

from sqlalchemy import select

from app.models import User


def import_page(client, body: bytes, lang: str = "en") -> tuple[int, str]:
    client.get(f"/lang/{lang}")
    resp = client.post("/instructor/roster", data={"csv": (io.BytesIO(body), "roster.csv")},
                       content_type="multipart/form-data")
    return resp.status_code, resp.get_data(as_text=True)


def skipped(page: str) -> str:
    return html.unescape(" ".join(re.findall(r'<table id="skipped">(.*?)</table>', page, re.S)))


def names() -> dict[str, str]:
    return {u.email: u.name for u in User.query.session.scalars(select(User))}


def test_a_roster_saved_with_cr_line_ends_is_read_line_by_line(client, web, course):
    web.login(client, course["teacher"])
    status, _page = import_page(client, b"email,name\rmac1@example.edu,Mac One\rmac2@example.edu,Mac Two\r")
    assert status == 200
    assert names()["mac1@example.edu"] == "Mac One" and names()["mac2@example.edu"] == "Mac Two"


REASONS = {"en": "a cell of this line is longer than 131072 characters: it and the lines after it were not read",
           "zh": "这一行有一个单元格超过 131072 个字符：这一行及之后的各行都没有读取"}


def test_a_cell_past_the_csv_field_limit_is_a_skipped_line_and_the_lines_before_it_are_imported(client, web, course):
    web.login(client, course["teacher"])
    body = b"email,name\nfirst@example.edu,First\nhuge@example.edu," + b"x" * 140_000 + b"\nlast@example.edu,Last\n"
    for lang, reason in REASONS.items():
        status, page = import_page(client, body, lang)
        assert status == 200 and reason in skipped(page)
    assert "first@example.edu" in names() and "huge@example.edu" not in names()


def test_control_characters_never_reach_a_stored_name_and_a_nul_email_is_one_skipped_line(client, web, course):
    web.login(client, course["teacher"])
    body = (b'email,name\nnul@example.edu,Li\x00Wei\nesc@example.edu,Li\x1b[31mWei\x07\n'
            b'cr@example.edu,"Li\r\nWei"\nn\x00ul@example.edu,Bad\nok@example.edu,Ok\n')
    status, page = import_page(client, body)
    assert status == 200
    stored = names()
    assert stored["nul@example.edu"] == "LiWei" and stored["esc@example.edu"] == "Li[31mWei"
    assert stored["cr@example.edu"] == "Li Wei" and stored["ok@example.edu"] == "Ok"
    assert not any(e.startswith("n\x00") for e in stored) and "invalid email" in skipped(page)


def test_another_csv_refusal_is_reported_without_naming_a_cause_it_did_not_check():
    from app.roster import RosterReport, _records

    class Refusing:
        line_num = 7

        def __iter__(self):
            return self

        def __next__(self):
            raise csv.Error("something else")

    report = RosterReport()
    assert list(_records(Refusing(), report)) == []
    assert [(r["line"], str(r["reason"])) for r in report.skipped] == [
        (1, "this line could not be read as CSV: it and the lines after it were not read")]


def workbook() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/worksheets/sheet1.xml", "<sheetData>" + "<c>alice@example.edu</c>" * 40 + "</sheetData>")
    return buf.getvalue()


NOT_TEXT = [
    # round 33: a workbook says what was found in it (here a sheet part that is no worksheet)
    (workbook(), "en", "The file is an Excel workbook (.xlsx), but its rows could not be read: a part that should "
                       "be a worksheet is <sheetData>. Nothing was imported."),
    (workbook(), "zh", "该文件是 Excel 工作簿（.xlsx），但无法读出其中的行：本应是工作表的部件却是 <sheetData>。"
                       "没有导入任何内容。"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00\xff" * 300, "en", "The file is an Office or WPS document"),
    (b"\xff\x00\xfe\x81\x00" * 200, "en", "The file is not text in UTF-8, UTF-16 or GB18030: nothing was imported."),
    (b"\xff\x00\xfe\x81\x00" * 200, "zh", "该文件不是 UTF-8、UTF-16 或 GB18030 编码的文本：没有导入任何内容。"),
]


def test_a_roster_that_is_not_text_is_named_for_what_it_is_in_the_readers_language(client, web, course):
    web.login(client, course["teacher"])
    for body, lang, said in NOT_TEXT:
        status, page = import_page(client, body, lang)
        assert status == 200 and said in html.unescape(page), (lang, said)
