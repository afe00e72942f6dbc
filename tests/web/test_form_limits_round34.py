"""Round 34: a form within the size limit that werkzeug refuses (413 ``form_too_complex``) is told the
limit it hit, as seen where werkzeug raised it, in zh and en.

Before, every such form got one message naming two causes, "more parts than the server reads (1000 at
most) or a text field or file name longer than 488 KiB", whichever it was: a student whose file name was
too long was sent to count parts, a script with 2,000 parts to shorten names. Werkzeug raises the same
bare RequestEntityTooLarge for each limit; app.errors._form_limit_hit reads which from the frame that
raised it. A body whose boundary never appears, and junk after the closing boundary, hit the same
limit and were said to have too many parts or too long a name.
"""

from __future__ import annotations

import io

import pytest
from werkzeug.datastructures import MultiDict

from app.extensions import db
from app.models import Submission
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer

BOUNDARY = "round34boundary"
PARTS_EN, PARTS_ZH = "more parts than the server reads (1000 at most)", "最多 1000 个"
EITHER_EN, EITHER_ZH = " or a text field or file name", "或某个文字字段或文件名"


def _post(client, token: str, body: bytes | MultiDict | dict, boundary: str | None = BOUNDARY):
    if isinstance(body, bytes):
        return client.post("/api/v1/submissions", data=body, headers=bearer(token),
                           content_type=f"multipart/form-data; boundary={boundary}")
    return client.post("/api/v1/submissions", data=body, headers=bearer(token), content_type="multipart/form-data")


def _code_part() -> bytes:
    return (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="code"; filename="attention.py"\r\n'
            "Content-Type: text/x-python\r\n\r\n").encode() + GOOD_CODE + b"\r\n"


def _refused(resp) -> dict:
    assert resp.status_code == 413, (resp.status_code, resp.get_data(as_text=True)[:300])
    body = resp.json
    assert body["code"] == "form_too_complex", body
    message = body["message"]
    assert "within the 8 MiB limit" in message["en"] and "没有超过 8 MiB" in message["zh"]
    # one cause, the one seen: never the two-cause guess
    assert EITHER_EN not in message["en"] and EITHER_ZH not in message["zh"], message
    assert db.session.query(Submission).count() == 0
    return message


def test_thousands_of_parts_are_named_as_parts_only(client, factory, course):
    token = factory.token(course["alice"])
    data = MultiDict([("code", (io.BytesIO(GOOD_CODE), "attention.py"))]
                     + [(f"extra{i}", (io.BytesIO(b"x"), f"x{i}.py")) for i in range(1500)])
    message = _refused(_post(client, token, data))
    assert PARTS_EN in message["en"] and PARTS_ZH in message["zh"]
    assert "488 KiB" not in message["en"] and "488 KiB" not in message["zh"]


@pytest.mark.parametrize("field", ["assignment", "备注"])
def test_a_long_text_field_is_named_by_its_name(client, factory, course, field):
    token = factory.token(course["alice"])
    body = _code_part() + (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"\r\n\r\n'.encode()
                           + b"a" * 600_000 + f"\r\n--{BOUNDARY}--\r\n".encode())
    message = _refused(_post(client, token, body))
    assert f"text field '{field}' is longer than the 488 KiB" in message["en"]
    assert f"文字字段「{field}」超过" in message["zh"] and "488 KiB" in message["zh"]
    assert "parts" not in message["en"] and "部分数" not in message["zh"]


def test_a_file_name_past_the_limit_is_named_as_the_file_name(client, factory, course):
    token = factory.token(course["alice"])
    data = {"code": (io.BytesIO(GOOD_CODE), "注" * 200_000 + ".py")}
    message = _refused(_post(client, token, data))
    assert "where a file's name is sent" in message["en"] and "shorter name" in message["en"]
    assert "文件名" in message["zh"] and "较短的名字" in message["zh"]
    assert "more parts" not in message["en"] and "部分数" not in message["zh"]


def test_a_body_whose_boundary_never_appears_is_said_so(client, factory, course):
    token = factory.token(course["alice"])
    body = _code_part().replace(BOUNDARY.encode(), b"someotherboundary") + b"x" * 600_000
    message = _refused(_post(client, token, body))
    assert "boundary the Content-Type header names does not appear" in message["en"]
    assert "boundary（分隔符）没有出现在请求体中" in message["zh"]


def test_junk_after_the_closing_boundary_is_said_so(client, factory, course):
    token = factory.token(course["alice"])
    body = _code_part() + f"--{BOUNDARY}--\r\n".encode() + b"y" * 600_000
    message = _refused(_post(client, token, body))
    assert "after the form's closing boundary" in message["en"] and "结束分隔符之后" in message["zh"]


def test_the_upload_page_names_the_same_cause_in_the_readers_language(client, web, course):
    web.login(client, course["bob"])
    data = MultiDict([("code", (io.BytesIO(GOOD_CODE), "attention.py"))]
                     + [(f"extra{i}", (io.BytesIO(b"x"), f"x{i}.py")) for i in range(1500)])
    page = client.post("/assignments/attention/submit", data=data, content_type="multipart/form-data")
    text = page.get_data(as_text=True)
    assert page.status_code == 413 and "最多 1000 个" in text and "或某个文字字段或文件名" not in text
