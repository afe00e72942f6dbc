"""Round 34: a roster whose header line names its columns is read by the header, in any order.

Only `email,name[,role]` in that order was read: a Canvas gradebook export (Student, ID, SIS User ID,
SIS Login ID, Section, ...), the same re-saved by Excel (GB18030 without a BOM and CRLF on a Chinese
Windows, semicolons where the decimal mark is a comma, UTF-16 "Unicode text"), a registrar's
`学号,姓名,邮箱` or Moodle's `First name, Last name, Email address` had every line skipped as
"invalid email", header included: 0 people imported. Canvas's "Points Possible" row is not a person.
"""

from __future__ import annotations

import csv
import html
import io
import re

import pytest

from app.extensions import db
from app.models import User
from tests.web.test_course_management import switch

CANVAS_ROWS = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention lab (123)"],
               ["    Points Possible", "", "", "", "", "100.00"],
               ["Zhang, Wei", "4501", "2023001", "zw@example.edu", "Section 1", "85.00"],
               ["王小明", "4502", "2023002", "wxm@example.edu", "Section 1", ""]]


def canvas(delimiter: str = ",", newline: str = "\r\n") -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=newline).writerows(CANVAS_ROWS)
    return out.getvalue()


CANVAS = canvas()


def _import(client, web, course, body: bytes, lang: str = "en", name: str = "roster.csv") -> dict[str, str]:
    switch(client, web, course["teacher"])
    client.get(f"/lang/{lang}")
    resp = client.post("/instructor/roster", data={"csv": (io.BytesIO(body), name)}, content_type="multipart/form-data")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    return {kind: html.unescape(m.group(1)) if (m := re.search(rf'<table id="{kind}">(.*?)</table>', page, re.S)) else ""
            for kind in ("skipped", "ignored")}


def _names() -> dict[str, str]:
    db.session.expire_all()
    return {u.email: u.name for u in db.session.query(User)}


@pytest.mark.parametrize("body", [
    CANVAS.encode("gb18030"),                          # Excel, Chinese Windows: CSV (逗号分隔), CRLF, no BOM
    canvas(";").encode("utf-8-sig"),                   # Excel, decimal-comma locale
    canvas("\t").encode("utf-16"),                     # Excel: Unicode text
    canvas(newline="\n").encode("utf-8-sig"),          # as Canvas writes it
], ids=["gb18030-crlf", "semicolons-bom", "utf16-tabs", "canvas-as-written"])
def test_a_canvas_export_resaved_by_excel_is_read_by_its_header(client, web, course, body):
    report = _import(client, web, course, body)
    names = _names()
    assert names.get("zw@example.edu") == "Zhang, Wei" and names.get("wxm@example.edu") == "王小明", report
    assert report["skipped"] == "", report["skipped"]
    assert "the Points Possible row of a Canvas export" in report["ignored"]
    assert "columns not imported: ID, SIS User ID, Section, Attention lab (123)" in report["ignored"]


@pytest.mark.parametrize("body, encoding, expected", [
    ("学号,姓名,邮箱,角色\r\n2023001,张伟,zw@example.edu,学生\r\n2023002,李老师,li@example.edu,教师\r\n", "gb18030",
     {"zw@example.edu": ("张伟", "student"), "li@example.edu": ("李老师", "instructor")}),
    ("Name,Email\r\nZhang Wei,zw@example.edu\r\n", "utf-8", {"zw@example.edu": ("Zhang Wei", "student")}),
    ("First name,Last name,Email address\n小明,王,wxm@example.edu\nWei,Zhang,zw@example.edu\n", "utf-8-sig",
     {"wxm@example.edu": ("王小明", "student"), "zw@example.edu": ("Wei Zhang", "student")}),
    ("Student,SIS Login ID,Email\nZhang Wei,zwei,zw@example.edu\n", "utf-8", {"zw@example.edu": ("Zhang Wei", "student")}),
    ("2026 秋 深度学习 名单\n姓名，电子邮箱\n张伟，zw@example.edu\n", "utf-8", {"zw@example.edu": ("张伟", "student")}),
], ids=["registrar", "name-first", "moodle", "email-before-login", "title-row"])
def test_columns_are_read_as_the_header_names_them(client, web, course, body, encoding, expected):
    report = _import(client, web, course, body.encode(encoding))
    db.session.expire_all()
    for email, (name, role) in expected.items():
        user = db.session.query(User).filter_by(email=email).one_or_none()
        assert user is not None and (user.name, user.role) == (name, role), report


def test_the_points_possible_row_is_named_in_chinese(client, web, course):
    report = _import(client, web, course, CANVAS.encode("gb18030"), lang="zh")
    assert "Canvas 导出文件中的 Points Possible（满分）行" in report["ignored"]
    assert "未导入的列：ID、SIS User ID、Section、Attention lab (123)" in report["ignored"] or \
        "未导入的列：ID, SIS User ID" in report["ignored"], report["ignored"]


def test_a_roster_without_a_header_is_still_read_by_position(client, web, course):
    report = _import(client, web, course, b"zw@example.edu,Zhang Wei,instructor,2023001\n")
    assert _names()["zw@example.edu"] == "Zhang Wei" and "1 extra cell(s) not imported: 2023001" in report["ignored"]
