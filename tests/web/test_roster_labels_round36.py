"""Round 36: the roster page's words on a zh page. Its two tables' "Email" header was written in the
template in English, the created accounts' role was the stored word ("student"), and an updated account
listed its stored field names ("name → 王小明", "role → instructor")."""

from __future__ import annotations

import io
import re

import pytest


def _import(client, body: str) -> str:
    return client.post("/instructor/roster", data={"csv": (io.BytesIO(body.encode()), "roster.csv")},
                       content_type="multipart/form-data").get_data(as_text=True)


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip()


@pytest.mark.parametrize(("lang", "email", "created", "updated"), [
    ("zh", "邮箱", "新同学 学生", "姓名 → 王小明 角色 → 教师"),
    ("en", "Email", "新同学 student", "Name → 王小明 Role → instructor"),
])
def test_the_roster_import_report_and_list_are_in_the_readers_language(client, web, course, lang, email, created,
                                                                       updated):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = _import(client, "new@example.edu,新同学\nalice@example.edu,王小明,instructor\n")
    assert created in _text(page) and updated in _text(page)
    headers = [_text(h) for h in re.findall(r"<th>(.*?)</th>", page)]
    assert headers.count(email) == 2
