"""Rosters and emails as people really make them: an email pasted with an invisible character (a
zero-width space from a chat, a byte order mark or a direction mark from Excel) or typed full-width
by a Chinese input method is the address it means; a name cannot carry bidi overrides that reorder
the pages around it; Excel's "Unicode text" (UTF-16, tabs), semicolon and full-width-comma files and
Chinese role words are read. Before, the first made accounts nobody could sign in to."""

from __future__ import annotations

import io

import pytest

from app.extensions import db
from app.models import Extension, User
from tests.factories import PASSWORD
from tests.web.test_course_management import switch


def _import(client, web, course, body: bytes, name: str = "roster.csv") -> str:
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post("/instructor/roster", data={"csv": (io.BytesIO(body), name)},
                       content_type="multipart/form-data")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _user(email: str) -> User | None:
    db.session.expire_all()
    return db.session.query(User).filter_by(email=email).one_or_none()


@pytest.mark.parametrize("cell", [
    "zw@example.edu\u200b",            # zero-width space (copied from a chat or a web page)
    "\ufeffzw@example.edu",            # a byte order mark inside the file (two files joined)
    "zw@example.edu\u200e",            # left-to-right mark (Excel, Outlook)
    "zw\u2060@example.edu",            # word joiner
    "ｚｗ＠ｅｘａｍｐｌｅ．ｅｄｕ",        # typed full-width with a Chinese input method
    "zw@example。edu",                 # ideographic full stop for the dot
])
def test_an_imported_email_is_the_address_it_means(client, web, course, cell):
    page = _import(client, web, course, f"email,name\n{cell},Zhou Wei\n".encode())
    assert _user("zw@example.edu") is not None, page
    assert db.session.query(User).filter(User.email.like("%zw%")).count() == 1


def test_a_name_cannot_carry_bidi_overrides_but_keeps_its_joiners(client, web, course):
    body = "email,name\nrlo@example.edu,Ali\u202egnp.exe\nemoji@example.edu,Lin \U0001F469\u200d\U0001F4BB\n"
    _import(client, web, course, body.encode())
    assert _user("rlo@example.edu").name == "Alignp.exe"
    assert _user("emoji@example.edu").name == "Lin \U0001F469\u200d\U0001F4BB"


@pytest.mark.parametrize("body, encoding", [
    ("email\tname\trole\nu16@example.edu\t张三\tstudent\n", "utf-16"),      # Excel: Unicode text
    ("email;name\nu16@example.edu;张三\n", "utf-8-sig"),                      # Excel, decimal-comma locale
    ("邮箱，姓名\nu16@example.edu，张三\n", "utf-8"),                          # typed with Chinese commas
    ("u16@example.edu,张三,学生\n", "gb18030"),                                # role in Chinese
])
def test_excel_and_chinese_roster_files_are_read(client, web, course, body, encoding):
    page = _import(client, web, course, body.encode(encoding), "名单.txt")
    user = _user("u16@example.edu")
    assert user is not None, page
    assert (user.name, user.role) == ("张三", "student")


def test_chinese_role_words_name_the_roles(client, web, course):
    _import(client, web, course, "email,name,role\nt2@example.edu,王老师,教师\n".encode())
    assert _user("t2@example.edu").role == "instructor"


@pytest.mark.parametrize("typed", ["alice@example.edu\u200b", "ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｅｄｕ", " Alice@Example。edu "])
def test_a_student_signs_in_with_the_email_as_their_keyboard_types_it(client, web, course, typed):
    resp = client.post("/login", data={"email": typed, "password": PASSWORD})
    assert resp.status_code == 302 and "/login" not in resp.headers["Location"]


def test_failed_sign_ins_count_against_one_account_however_the_email_is_spelled(app):
    from app.auth import account_key

    keys = set()
    for typed in ("alice@example.edu", "alice@example.edu\u200b", "ＡＬＩＣＥ＠example.edu", "alice\u2060@example.edu"):
        with app.test_request_context("/login", method="POST", data={"email": typed, "password": "x"}):
            keys.add(account_key())
    assert len(keys) == 1


def test_an_extension_for_an_email_pasted_with_an_invisible_character_is_granted(client, web, course):
    switch(client, web, course["teacher"])
    resp = client.post("/instructor/extensions", data={"student": "\u200bbob@example.edu\u200b", "extra_days": "2"})
    assert resp.status_code == 302
    assert db.session.query(Extension).filter_by(student_id=course["bob"].id).count() == 1
