"""Round 34: the gradebook as an Excel workbook, and export file names dated in the course's zone.

The gradebook went out only as CSV, which Excel types by guessing: a name "1-2" or "3/4" opened as a date,
and scores were text to be converted. `format=xlsx` (dashboard button "Excel", API `format=xlsx`) writes
each cell's type (app.xlsx_write, XlsxWriter): names as text, never a formula or a date, scores as numbers. The
download's name was stamped with the server's clock (UTC): at 00:30 in Beijing it named the day before.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import UTC, datetime
from xml.etree import ElementTree

from app.roster_xlsx import read_workbook
from tests.web.helpers import realistic_result
from tests.web.test_api import bearer

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
NAMES = ["1-2", "=HYPERLINK(\"http://x\")", "王小明\x07", "3/4"]


def _cells(body: bytes) -> list[list[tuple[str | None, str]]]:
    """Each row's cells as (type, text) read from the sheet's XML, a shared string ("s") by its text."""
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        assert z.testzip() is None
        root = ElementTree.fromstring(z.read("xl/worksheets/sheet1.xml"))
        shared = ["".join(si.itertext()) for si in ElementTree.fromstring(
            z.read("xl/sharedStrings.xml")).iter(f"{MAIN}si")] if "xl/sharedStrings.xml" in z.namelist() else []
    return [[(c.get("t"), shared[int(c.findtext(f"{MAIN}v"))] if c.get("t") == "s" else "".join(c.itertext()))
             for c in row] for row in root.iter(f"{MAIN}row")]


def test_the_gradebook_downloads_as_a_workbook_with_typed_cells(client, web, course, factory):
    a = course["assignment"]
    for i, name in enumerate(NAMES):
        s = factory.student(email=f"s{i}@example.edu", name=name)
        web.grade(web.submit(s, a, audit=False, figure=False), realistic_result())
    web.login(client, course["teacher"])
    dashboard = client.get("/instructor/").get_data(as_text=True)
    assert "format=xlsx" in dashboard
    resp = client.get("/instructor/gradebook.csv", query_string={"a": a.slug, "format": "xlsx", "headers": "keys"})
    assert resp.status_code == 200
    assert resp.content_type == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert re.search(r'filename="gradebook-attention-\d{8}-\d{4}\.xlsx"', resp.headers["Content-Disposition"])
    rows = _cells(resp.data)
    assert [t for t, _ in rows[0]] == ["s"] * len(rows[0]) and rows[0][0][1] == "email"
    by_email = {r[0][1]: r for r in rows[1:]}
    for i, name in enumerate(NAMES):
        row = by_email[f"s{i}@example.edu"]
        assert row[1] == ("s", name.replace("\x07", ""))    # text as written, a control character left out
        assert row[2][0] is None and float(row[2][1]) > 0          # the score, a number
    # read back as a workbook (the roster's reader, standard library only)
    assert read_workbook(resp.data)[0][1][:2] == ["email", "name"]


def test_the_api_gives_the_workbook_too(client, factory, course):
    token = factory.token(course["teacher"])
    resp = client.get("/api/v1/gradebook", query_string={"format": "xlsx"}, headers=bearer(token))
    assert resp.status_code == 200 and resp.data.startswith(b"PK\x03\x04")
    assert resp.headers["Content-Disposition"].endswith('.xlsx"')


def test_an_export_is_named_by_the_courses_date(client, web, course, monkeypatch):
    # 2026-12-05 16:30 UTC is 2026-12-06 00:30 in Asia/Shanghai (the default COURSE_TIMEZONE).
    import app.instructor as instructor

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            moment = datetime(2026, 12, 5, 16, 30, tzinfo=UTC)
            return moment.astimezone(tz) if tz else moment.replace(tzinfo=None)

    monkeypatch.setattr(instructor, "datetime", Clock)
    web.login(client, course["teacher"])
    for fmt in ("csv", "canvas", "moodle", "xlsx"):
        resp = client.get("/instructor/gradebook.csv", query_string={"format": fmt})
        assert "-20261206-0030." in resp.headers["Content-Disposition"], (fmt, resp.headers["Content-Disposition"])


def test_a_score_that_is_not_a_number_is_written_as_text_not_a_failed_export():
    from app.xlsx_write import write_workbook

    rows = _cells(write_workbook([["email", "score"], ["a@x.edu", float("nan")], ["b@x.edu", float("inf")],
                                  ["c@x.edu", 85.0]]))
    assert [r[1] for r in rows[1:]] == [("s", "nan"), ("s", "inf"), (None, "85")]
