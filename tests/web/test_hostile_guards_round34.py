"""Round 34: odd but readable multipart bodies, file names and JSON bodies a hostile or clumsy client
sends, each answered with its code and a zh/en message (or accepted and stored as a label), nothing
stored on a refusal. All were answered well already; kept as a guard, in the slow lane (a database
fixture per case: ~0.4 s each). The cases that found faults are in test_hostile_input_round34.py.
"""

from __future__ import annotations

import json

import pytest

from app.extensions import db
from app.models import Extension, RegradeBatch, Submission
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer, upload
from tests.web.test_hostile_input_round34 import CODE_DISP, END, EXTEND, REGRADE, B, _part, _refusal

pytestmark = pytest.mark.slow

@pytest.mark.parametrize("body, code", [
    (b"", "code_missing"),                                     # an empty body under a boundary
    (END, "code_missing"),                                     # the closing delimiter alone
    (_part("code", GOOD_CODE, CODE_DISP, b"nocolon\r\n") + END, None),   # a header line without a colon: read
    (_part("code", GOOD_CODE, b"Content-Disposition: form-data; name=\"code\"; filename*=UTF-8''%E6%B3%A8.py") + END,
     None),                                                   # RFC 2231 file name
    (_part("code", GOOD_CODE, CODE_DISP) + _part("remove_audit", b"1", headers=b"Content-Type: text/plain; "
                                                  b"charset=nonexistent\r\n") + END, None),  # unknown charset
], ids=["empty", "only-close", "header-no-colon", "rfc2231-name", "unknown-charset"])
def test_odd_but_readable_multipart_bodies(client, factory, course, body, code):
    token = factory.token(course["alice"])
    resp = client.post("/api/v1/submissions", data=body, headers=bearer(token),
                       content_type=f"multipart/form-data; boundary={B}")
    if code is None:
        assert resp.status_code == 202, resp.json
    else:
        _refusal(resp, 400, code)


# --- file names -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, stored", [
    ("attention\u202etxt.py", "attentiontxt.py"),        # RTL override: stored without it
    ("a" * 297 + ".py", "a" * 117 + ".py"),              # 300 characters: cut, extension kept
    ("../../etc/attention.py", "attention.py"),          # folders of the client's disk dropped
    ("atte\u0301ntion.py", "atténtion.py"),              # NFD: stored as NFC
    (".py", ".py"),
])
def test_odd_file_names_are_stored_as_labels(client, factory, course, name, stored):
    token = factory.token(course["alice"])
    resp = upload(client, token, filename=name)
    assert resp.status_code == 202, resp.json
    assert db.session.get(Submission, resp.json["id"]).code_filename == stored


@pytest.mark.parametrize("name, shown", [
    ("attention\u202eyp.txt", "attentionyp.txt: "), ("attention.py\x00.png", "attention.py.png: "),
    ("...", "...: "), (" ", "upload: "), ("\u200b", "upload: "),
])
def test_odd_file_names_of_the_wrong_type_are_refused_naming_the_name_kept(client, factory, course, name, shown):
    token = factory.token(course["alice"])
    message = _refusal(upload(client, token, filename=name), 415, "code_bad_type")
    assert message["en"].startswith(shown) and "\u202e" not in message["en"] + message["zh"]
    assert db.session.query(Submission).count() == 0


# --- JSON bodies --------------------------------------------------------------------------------------------

JSON_CASES = {
    "huge_int": (REGRADE, '{"assignment":"attention","scope":"submission","submission":' + "9" * 30 + "}", 400,
                 "bad_field"),
    "huge_float": (REGRADE, '{"assignment":"attention","scope":"submission","submission":1e400}', 400, "bad_field"),
    "nan_days": (EXTEND, '{"assignment":"attention","student":"alice@example.edu","extra_days":NaN}', 400, "bad_field"),
    "inf_days": (EXTEND, '{"assignment":"attention","student":"alice@example.edu","extra_days":-Infinity}', 400,
                 "bad_field"),
    "big_days": (EXTEND, '{"assignment":"attention","student":"alice@example.edu","extra_days":' + "9" * 20 + "}", 422,
                 "bad_days"),
    "5000_digits": (REGRADE, '{"assignment":"attention","scope":"submission","submission":' + "9" * 5000 + "}", 400,
                    "bad_json"),
    "nested_100k": (REGRADE, '{"assignment":' + "[" * 5000 + "]" * 5000 + "}", 400, "bad_json"),
    "duplicate_key": (REGRADE, '{"scope":"counting","scope":"all","assignment":"attention"}', 400, "duplicate_field"),
    "year_99999": (EXTEND, '{"assignment":"attention","student":"alice@example.edu","deadline":"99999-01-01T00:00"}',
                   422, "bad_deadline"),
}




@pytest.mark.parametrize("kind", list(JSON_CASES))
def test_hostile_json_is_refused_with_its_code_and_nothing_is_done(client, factory, course, kind):
    path, body, status, code = JSON_CASES[kind]
    token = factory.token(course["teacher"])
    resp = client.post(path, data=body.encode("utf-8", "surrogatepass"),
                       headers={**bearer(token), "Content-Type": "application/json"})
    _refusal(resp, status, code)
    assert db.session.query(RegradeBatch).count() == 0 and db.session.query(Extension).count() == 0


def test_a_json_body_starting_with_a_bom_is_read(client, factory, course):
    token = factory.token(course["teacher"])
    resp = client.post(REGRADE, data=("\ufeff" + json.dumps({"assignment": "attention", "scope": "counting"})).encode(),
                       headers={**bearer(token), "Content-Type": "application/json"})
    # read: its scope was taken (no attempt in it: round 38 refuses an empty batch), not a bad_json 400
    assert resp.status_code == 409 and resp.json["code"] == "nothing_to_regrade", resp.json
