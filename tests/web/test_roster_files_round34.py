"""Round 34: roster files as they come from other tools.

An empty file (0 bytes, or a UTF-8 byte-order mark alone, as Excel saves an empty sheet) was answered
"0 created, 0 updated, 0 unchanged, 0 skipped", without a word of why; it is now said to hold no line
with text, naming the file. UTF-16 without its byte-order mark was read as GB18030: every line came out
as "e\\x00m\\x00a\\x00i\\x00l..." and was skipped as an invalid email; it is read as UTF-16.
"""

from __future__ import annotations

import io

import pytest

from app.extensions import db
from app.models import User
from tests.web.test_course_management import switch


def _post(client, web, course, body: bytes, lang: str) -> str:
    switch(client, web, course["teacher"])
    client.get(f"/lang/{lang}")
    resp = client.post("/instructor/roster", data={"csv": (io.BytesIO(body), "名单.csv")},
                       content_type="multipart/form-data")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


@pytest.mark.parametrize("body", [b"", b"\xef\xbb\xbf", b"\r\n\r\n", "\ufeff \u200b\n".encode("utf-16")],
                         ids=["0-bytes", "bom", "blank-lines", "utf16-blank"])
def test_an_empty_roster_file_is_said_to_be_empty(client, web, course, body):
    page = _post(client, web, course, body, "en")
    assert f"The file 名单.csv holds no line with text ({len(body)} bytes): nothing was imported." in page
    assert "Import result" not in page
    page = _post(client, web, course, body, "zh")
    assert f"文件 名单.csv 中没有任何含文字的行（{len(body)} 字节）：没有导入任何内容。" in page


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_its_byte_order_mark_is_read(client, web, course, encoding):
    _post(client, web, course, "email\tname\r\nzw@example.edu\t张伟\r\n".encode(encoding), "en")
    db.session.expire_all()
    assert db.session.query(User).filter_by(email="zw@example.edu").one().name == "张伟"
