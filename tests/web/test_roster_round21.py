"""Round 21: the roster import report is in the reader's language.

Every skipped or ignored line of a roster CSV had its reason in English only ("invalid email",
"comment line", "duplicate email in this file", ...) on the instructor's Chinese page, while the
rest of the page was translated.
"""

from __future__ import annotations

import html
import io
import re

import pytest

BODY = ("email,name,role,student_no\n"
        "# 注释\n"
        "new@example.edu,新同学,student,2026001\n"
        "bad-email,X\n"
        "onlyemail@example.edu\n"
        "x@example.edu,Someone,admin\n"
        "new@example.edu,新同学\n"
        "teacher@example.edu,Teacher Li,student\n").encode("gb18030")  # Excel's CSV on a Chinese Windows


@pytest.mark.parametrize("lang, reasons", [
    ("zh", ["未导入的列：student_no", "注释行", "1 个多余的单元格未导入：2026001", "邮箱无效",
            # under a header line, its own columns (round 35)
            "这一行只有 1 个单元格，'name' 下没有单元格：表头（第 1 行）的列为 'email'、'name'、'role'、'student_no'",

            "未知角色 'admin'", "文件中邮箱重复", "不能更改你自己的角色"]),
    ("en", ["columns not imported: student_no", "comment line", "1 extra cell(s) not imported: 2026001",
            "invalid email",
            "this line has 1 cell(s) and none under 'name': the header (line 1) names the columns 'email', 'name', "
            "'role', 'student_no'", "unknown role 'admin'", "duplicate email in this file",
            "you cannot change your own role"]),
])
def test_every_reason_of_the_import_report_is_in_the_readers_language(client, web, course, lang, reasons):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.post("/instructor/roster", data={"csv": (io.BytesIO(BODY), "名单.csv")},
                       content_type="multipart/form-data").get_data(as_text=True)
    report = html.unescape(" ".join(re.findall(r'<table id="(?:skipped|ignored)">(.*?)</table>', page, re.S)))
    for reason in reasons:
        assert reason in report, reason
