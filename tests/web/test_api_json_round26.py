"""Round 26: a JSON body the API cannot read is refused in the client's terms, not Python's.

Before, the refusal carried Python's own text: "'utf-16-le' codec can't decode byte 0x7b in position 2:
truncated data" for a body saved as UTF-16, "Exceeds the limit (4300 digits) for integer string conversion
... use sys.set_int_max_str_digits()" (advice for the server) for a long number, and "not a list" / "not a
str" / "not a NoneType" for a body that is an array, a string or null."""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.models import RegradeBatch
from tests.web.test_api import bearer

PYTHON_WORDS = ("codec", "sys.", "int_max_str_digits", "NoneType", "Exceeds")
PYTHON_TYPES = re.compile(r"\b(list|str|int|float|dict|bool)\b")


def refused_json(client, factory, course, raw: bytes) -> dict:
    headers = bearer(factory.token(course["teacher"])) | {"Content-Type": "application/json"}
    resp = client.post("/api/v1/regrades", data=raw, headers=headers)
    assert resp.status_code == 400 and resp.json["code"] == "bad_json", resp.json
    message = resp.json["message"]
    for word in PYTHON_WORDS:
        assert word not in message["en"] and word not in message["zh"], (word, message)
    assert not PYTHON_TYPES.search(message["en"]) and not PYTHON_TYPES.search(message["zh"]), message
    assert any("\u4e00" <= ch <= "\u9fff" for ch in message["zh"])
    assert db.session.query(RegradeBatch).count() == 0
    return message


@pytest.mark.parametrize("raw", [b"\xff\xfe{", b"\xfe\xff\x00{\x00", b"{\x00\"\x00a"])
def test_a_body_in_broken_utf16_is_refused_saying_to_send_utf8(client, factory, course, raw):
    # json.loads reads a UTF-16/32 body by its BOM or NUL bytes (and accepts it when it decodes)
    message = refused_json(client, factory, course, raw)
    assert "UTF-8" in message["en"] and "UTF-8" in message["zh"]


def test_a_body_in_latin1_is_refused_naming_the_byte_that_is_not_utf8(client, factory, course):
    message = refused_json(client, factory, course, '{"assignment": "café"}'.encode("latin-1"))
    assert "UTF-8" in message["en"] and "0xe9" in message["en"] and "0xe9" in message["zh"]


def test_a_number_of_thousands_of_digits_is_refused_as_such(client, factory, course):
    message = refused_json(client, factory, course, b'{"submission": ' + b"7" * 5000 + b"}")
    assert "more than 4300 digits" in message["en"] and "4300" in message["zh"]


@pytest.mark.parametrize("raw, named", [(b'["all"]', "an array"), (b'"all"', "a string"), (b"42", "a number"),
                                        (b"4.5", "a number"), (b"null", "null"), (b"true", "true")])
def test_a_body_that_is_not_an_object_is_named_in_json_words(client, factory, course, raw, named):
    message = refused_json(client, factory, course, raw)
    assert f"not {named}." in message["en"]
    assert {"an array": "数组", "a string": "字符串", "a number": "数字"}.get(named, named) in message["zh"]


def test_a_syntax_error_still_says_where_it_is(client, factory, course):
    message = refused_json(client, factory, course, b'{"scope": "all",}')
    assert "line 1, column 17" in message["en"] and "line 1, column 17" in message["zh"]
