"""Round 34: a hostile or clumsy client's input through the API (here the cases that found faults; the
guards are in test_hostile_guards_round34.py), each answered with a code and
a zh/en message, storing nothing unless accepted.

Found and fixed:
- a JSON string holding half a surrogate pair (`"\\ud800"`, as a buggy client escapes half an emoji) was a
  500 (psycopg: "surrogates not allowed"), and a NUL (`"\\u0000"`) a 400 saying "reload the page": the
  form's and query's check (app.errors.storable) never saw a JSON body. Both are now 400
  `bad_characters`, as in a form.
- a multipart body werkzeug stopped reading was "no field or file could be read ... let curl build the
  body", whatever stopped it: a file name sent in GBK (not UTF-8), a part without Content-Disposition,
  a body that ends before its closing boundary. The message now says which (app.api_input.AppRequest
  keeps werkzeug's reason).
The other cases were already answered well and are kept as a guard.
"""

from __future__ import annotations

import io

import pytest

from app.extensions import db
from app.models import Extension, RegradeBatch, Submission
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer, upload

B = "round34"


def _part(name: str, body: bytes, disposition: bytes | None = None, headers: bytes = b"") -> bytes:
    disp = disposition if disposition is not None else f'Content-Disposition: form-data; name="{name}"'.encode()
    return f"--{B}\r\n".encode() + disp + b"\r\n" + headers + b"\r\n" + body + b"\r\n"


CODE_DISP = b'Content-Disposition: form-data; name="code"; filename="attention.py"'
END = f"--{B}--\r\n".encode()


def _refusal(resp, status: int, code: str) -> dict:
    assert resp.status_code == status and resp.is_json, (resp.status_code, resp.get_data(as_text=True)[:300])
    body = resp.json
    assert body["code"] == code, body
    assert body["message"]["en"] and any("\u4e00" <= ch <= "\u9fff" for ch in body["message"]["zh"])
    return body["message"]


# --- multipart bodies werkzeug cannot read --------------------------------------------------------------

UNREADABLE = {
    "gbk_file_name": (_part("code", GOOD_CODE, b'Content-Disposition: form-data; name="code"; filename="'
                            + "注意力.py".encode("gbk") + b'"') + END,
                      "the file name in a part's header is not UTF-8 text", "注意力.py", "文件名不是 UTF-8 文本"),
    "gbk_other_header": (_part("code", GOOD_CODE, CODE_DISP, "X-Note: 说明\r\n".encode("gbk")) + END,
                         "a header line of a part is not UTF-8 text", None, "某个部分的头部不是 UTF-8 文本"),
    "no_disposition": (_part("code", GOOD_CODE, b"Content-Type: text/x-python") + END,
                       "no Content-Disposition header", None, "没有 Content-Disposition 头部"),
    "cut_short": (_part("code", GOOD_CODE, CODE_DISP)[:-2], "ends before the form's closing boundary", None,
                  "结束分隔符（--boundary--）之前就结束了"),
}


@pytest.mark.parametrize("kind", list(UNREADABLE))
def test_an_unreadable_multipart_body_is_told_what_stopped_it(client, factory, course, kind):
    body, en, shown, zh = UNREADABLE[kind]
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", data=body, headers=bearer(token),
                       content_type=f"multipart/form-data; boundary={B}")
    message = _refusal(resp, 400, "unreadable_multipart")
    assert en in message["en"] and zh in message["zh"], message
    assert shown is None or (f"'{shown}'" in message["en"] and f"“{shown}”" in message["zh"])
    assert "Let curl -F" not in message["en"]   # not the guess about the boundary
    assert db.session.query(Submission).count() == 0


# --- JSON bodies --------------------------------------------------------------------------------------------

REGRADE, EXTEND = "/api/v1/regrades", "/api/v1/extensions"
BAD_CHARACTERS = {
    "half_surrogate": (REGRADE, '{"assignment":"\\ud800","scope":"counting"}', 400, "bad_characters"),
    "half_surrogate_email": (EXTEND, '{"assignment":"attention","student":"\\udc00@x.edu","extra_days":1}', 400,
                             "bad_characters"),
    "half_surrogate_key": (REGRADE, '{"\\ud83d":"x","assignment":"attention"}', 400, "bad_characters"),
    "nul": (EXTEND, '{"assignment":"attention","student":"a\\u0000b@example.edu","extra_days":1}', 400,
            "bad_characters"),
}


@pytest.mark.parametrize("kind", list(BAD_CHARACTERS))
def test_hostile_json_is_refused_with_its_code_and_nothing_is_done(client, factory, course, kind):
    path, body, status, code = BAD_CHARACTERS[kind]
    token = factory.token(course["teacher"])
    resp = client.post(path, data=body.encode("utf-8", "surrogatepass"),
                       headers={**bearer(token), "Content-Type": "application/json"})
    _refusal(resp, status, code)
    assert db.session.query(RegradeBatch).count() == 0 and db.session.query(Extension).count() == 0


# --- file names sent with invisible characters ----------------------------------------------------------------

@pytest.mark.parametrize("sent, read, char", [
    ("attention\u202eyp.txt", "attentionyp.txt", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),   # shown as attentiontxt.py
    ("audit\u2067dm.pdf\u2069", "auditdm.pdf", "U+2067 (RIGHT-TO-LEFT ISOLATE)"),
])
def test_a_refused_file_name_sent_with_a_bidi_control_says_so(client, factory, course, sent, read, char):
    token = factory.token(course["alice"])
    field = "code" if "attention" in sent else "audit"
    extra = {} if field == "code" else {"audit": (io.BytesIO(b"%PDF-1.4 not really"), sent)}
    resp = upload(client, token, filename=sent if field == "code" else "attention.py", **extra)
    assert resp.status_code in (415, 422), resp.json
    message = resp.json["message"]
    assert message["en"].startswith(f"{read}: ") and message["zh"].startswith(f"{read}：")
    code_point = char.split(" ")[0]
    assert char in message["en"] and code_point in message["zh"]
    assert char.split(" ", 1)[1] not in message["zh"]          # Unicode's English name: en only
    assert "in another order" in message["en"] and "改变其后字母的显示顺序" in message["zh"]
    assert db.session.query(Submission).count() == 0


def test_a_zero_width_space_in_a_refused_name_is_named_without_the_bidi_note(client, factory, course):
    token = factory.token(course["alice"])
    resp = upload(client, token, filename="attention\u200b.txt")
    assert resp.status_code == 415, resp.json
    message = resp.json["message"]
    assert "U+200B (ZERO WIDTH SPACE)" in message["en"] and "in another order" not in message["en"]
    assert "不可见字符 U+200B" in message["zh"] and message["zh"].endswith("。）")


def test_invisible_characters_in_the_folders_of_a_sent_path_are_not_blamed_on_the_name(client, factory, course):
    token = factory.token(course["alice"])
    resp = upload(client, token, filename="C:\\Users\\x\u200b\\attention.txt")
    assert resp.status_code == 415, resp.json
    assert "U+200B" not in resp.json["message"]["en"] + resp.json["message"]["zh"], resp.json


def test_an_accepted_name_with_a_bidi_control_is_stored_without_it(client, factory, course):
    token = factory.token(course["alice"])
    resp = upload(client, token, filename="attention\u202etxt.py")
    assert resp.status_code == 202 and db.session.get(Submission, resp.json["id"]).code_filename == "attentiontxt.py"


@pytest.mark.parametrize("depth", [300, 600, 800])
def test_json_nested_as_deep_as_the_parser_takes_is_answered_not_a_server_error(client, app, factory, course, depth):
    """json.loads takes a few hundred levels; the check for NUL and half surrogates walked them by
    recursion, two frames a level, and its RecursionError was a 500 (review of round 34)."""
    app.config["PROPAGATE_EXCEPTIONS"] = False     # a 500 is answered as a real server would
    token = factory.token(course["teacher"])
    body = '{"assignment": ' + "[" * depth + '"x"' + "]" * depth + "}"
    resp = client.post("/api/v1/regrades", data=body,
                       headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    assert resp.status_code == 400, resp.get_data(as_text=True)[:300]
    assert resp.get_json()["code"] == "bad_field", resp.get_json()      # read to the end, then told the type
