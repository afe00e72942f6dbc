"""Round 35: a line with too few cells under a header line is skipped naming that header's own columns.

A roster whose header reorders the columns (`学号,姓名,邮箱`) had a short line (`2023003,王五`, the email
missing) skipped as "expected email,name[,role]": names and an order this file does not use. The reason now
says how many cells the line has, which of the header's columns it has no cell under, and the header itself.
"""

from __future__ import annotations

import pytest

from tests.web.test_roster_headers_round34 import _import

ROSTER = "学号,姓名,邮箱\r\n2023001,张伟,zw@example.edu\r\n2023003,王五\r\n"


@pytest.mark.parametrize("lang, expected", [
    ("en", "this line has 2 cell(s) and none under '邮箱': the header (line 1) names the columns '学号', '姓名', '邮箱'"),
    ("zh", "这一行只有 2 个单元格，'邮箱' 下没有单元格：表头（第 1 行）的列为 '学号'、'姓名'、'邮箱'"),
])
def test_a_short_line_under_a_reordered_header_names_the_files_own_columns(client, web, course, lang, expected):
    report = _import(client, web, course, ROSTER.encode("gb18030"), lang=lang)
    assert expected in report["skipped"], report["skipped"]
    assert "email,name" not in report["skipped"]


def test_a_line_missing_the_name_cell_names_the_name_column(client, web, course):
    report = _import(client, web, course, b"Email,Role,Full name\nzw@example.edu\n", lang="en")
    assert "none under 'Full name': the header (line 1) names the columns 'Email', 'Role', 'Full name'" in \
        report["skipped"], report["skipped"]


def test_a_short_line_of_a_roster_without_a_header_still_says_email_name_role(client, web, course):
    report = _import(client, web, course, b"zw@example.edu\n", lang="en")
    assert "expected email,name[,role]" in report["skipped"]
