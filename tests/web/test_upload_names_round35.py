"""Round 35: every change an upload makes to a file's name is told, on the page and in the API's answer.

The page said "attention.py.txt was saved as attention.py" and nothing else; the API's 202 said nothing at all.
A Windows path (`C:\\work\\attention.py`), a name in decomposed letters (macOS), invisible characters,
spaces at the ends or a name past 120 characters were each kept under another name without a word. Now the
API's answer lists them in `renamed` (field, sent, kept, reasons, message in en and zh), and the page flashes
the same message.
"""

from __future__ import annotations

import html as html_lib
import unicodedata

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Submission
from app.openapi import spec
from tests.web.helpers import GOOD_CODE, png_bytes
from tests.web.test_api import bearer

CJK_PUNCT = "："


def _multipart(parts: list[tuple[str, str, bytes]]) -> bytes:
    """A multipart body with the file names written raw into their headers (backslashes as sent by a browser)."""
    out = b""
    for field, name, data in parts:
        out += (f'--B\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    return out + b"--B--\r\n"


def _api(client, factory, student, parts):
    return client.post("/api/v1/submissions", data=_multipart(parts), content_type="multipart/form-data; boundary=B",
                       headers=bearer(factory.token(student)))


NFD = unicodedata.normalize("NFD", "注意力_José.py")
CASES = [
    # (sent, kept, reasons)
    ("attention.py.txt", "attention.py", ["hidden_txt"]),
    (r"C:\work\attention.py", "attention.py", ["folders"]),
    (r"C:\work\attention.py.txt", "attention.py", ["folders", "hidden_txt"]),
    (NFD, unicodedata.normalize("NFC", NFD), ["composed"]),
    ("atten\u200btion.py", "attention.py", ["invisible"]),
    ("  attention.py", "attention.py", ["spaces"]),
    ("a" * 130 + ".py", "a" * 117 + ".py", ["shortened"]),
]


@pytest.mark.parametrize("sent, kept, reasons", CASES, ids=[c[2][-1] + str(i) for i, c in enumerate(CASES)])
def test_the_api_answer_names_each_change_made_to_a_code_file_name(client, factory, course, sent, kept, reasons):
    resp = _api(client, factory, course["alice"], [("code", sent, GOOD_CODE)])
    assert resp.status_code == 202, resp.json
    db.session.expire_all()
    assert db.session.get(Submission, resp.json["id"]).code_filename == kept
    (note,) = resp.json["renamed"]
    assert (note["field"], note["sent"], note["kept"], note["reasons"]) == ("code", sent, kept, reasons)
    en, zh = note["message"]["en"], note["message"]["zh"]
    assert kept in en and kept in zh and CJK_PUNCT in zh and "saved as" in en and "保存为" in zh
    if "hidden_txt" in reasons:
        assert "Windows hides the .txt extension" in en and "Windows 默认隐藏 .txt 扩展名" in zh
    if "folders" in reasons:
        assert "folders" in en and "文件夹" in zh and sent in en
    if "invisible" in reasons:
        assert "U+200B" in en and "U+200B" in zh


def test_an_unchanged_name_gets_an_empty_renamed_list(client, factory, course):
    resp = _api(client, factory, course["alice"], [("code", "attention.py", GOOD_CODE)])
    assert resp.status_code == 202 and resp.json["renamed"] == []


def test_an_audit_and_figure_renamed_are_listed_too(client, factory, course):
    resp = _api(client, factory, course["alice"], [
        ("code", "attention.py", GOOD_CODE),
        ("audit", r"D:\labs\审计.md", "# 审计\n\n热图显示了注意力权重。".encode()),
        ("figure", " heatmap.png", png_bytes())])
    assert resp.status_code == 202, resp.json
    got = {n["field"]: (n["kept"], n["reasons"]) for n in resp.json["renamed"]}
    assert got == {"audit": ("审计.md", ["folders"]), "figure": ("heatmap.png", ["spaces"])}


def test_the_renamed_field_is_documented_in_the_openapi_description():
    from app.upload_names import REASONS

    queued = spec()["components"]["schemas"]["Queued"]["properties"]
    reasons = queued["renamed"]["items"]["properties"]["reasons"]["items"]["enum"]
    assert reasons == list(REASONS)


@pytest.mark.parametrize("lang, expected", [
    ("en", "The file name C:\\work\\attention.py was saved as attention.py: the folders before the file's name are "
           "not kept."),
    ("zh", "文件名 C:\\work\\attention.py 已保存为 attention.py：文件名前面的文件夹路径不会保存。"),
])
def test_the_page_says_a_windows_path_was_dropped_from_the_name(client, web, course, lang, expected):
    student = course["alice"]
    web.login(client, student)
    client.get(f"/lang/{lang}")
    body = _multipart([("code", r"C:\work\attention.py", GOOD_CODE)])
    body = b'--B\r\nContent-Disposition: form-data; name="confirm_no_audit"\r\n\r\n1\r\n' + body
    resp = client.post("/assignments/attention/submit", data=body, content_type="multipart/form-data; boundary=B",
                       follow_redirects=True)
    assert resp.status_code == 200
    assert expected in html_lib.unescape(resp.get_data(as_text=True))
    db.session.expire_all()
    newest = db.session.scalars(select(Submission).where(Submission.student_id == student.id)
                                .order_by(Submission.id.desc())).first()
    assert newest.code_filename == "attention.py"


def test_a_decomposed_letter_in_a_folder_left_behind_is_not_told_as_a_change_of_the_kept_name():
    """Review of round 35: the NFC step was read off the whole path, so the kept name `attention.py` was said to be
    stored in composed form because a folder of the path held a decomposed letter."""
    from app.views_helpers import cleaned_filename

    assert cleaned_filename("C:\\Users\\Jose\u0301\\attention.py") == ("attention.py", ("folders",))
    assert cleaned_filename("Users/Jose\u0301/Jose\u0301.py") == ("Jos\u00e9.py", ("composed", "folders"))
    assert cleaned_filename("Jose\u0301.py") == ("Jos\u00e9.py", ("composed",))
