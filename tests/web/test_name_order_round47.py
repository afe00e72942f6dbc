"""Round 47: the instructor's lists put students in code point order (张 U+5F20 before 李 U+674E before
王 U+738B) or by email: nothing like a Chinese class list, read by pinyin (李 li, 王 wang, 张 zhang). Every
list an instructor sees (dashboard, flagged review queue, exports, roster, sign-in links) now reads Chinese
names by pinyin (a surname by its surname reading: 曾 zeng), other names casefolded, ties by tone, then the
name, then the email."""

from __future__ import annotations

import csv
import io
import re

import pytest

from app.names import by_name, name_key

# In class-list order; the emails are in another order, so a list by email or by code point fails.
CLASS = [("a2@example.edu", "阿强"), ("z1@example.edu", "alice Chen"), ("y1@example.edu", "Bob Zhang"),
         ("x1@example.edu", "李雷"), ("w1@example.edu", "李磊"), ("v1@example.edu", "欧阳娜娜"),
         ("u1@example.edu", "王小明"), ("t1@example.edu", "曾小贤"), ("s1@example.edu", "张伟")]


def test_names_sort_by_pinyin_then_tone_then_email():
    shuffled = [CLASS[i] for i in (8, 3, 0, 6, 1, 7, 4, 2, 5)]
    assert by_name(shuffled, lambda p: (p[1], p[0])) == CLASS
    same = [("b@example.edu", "李雷"), ("a@example.edu", "李雷")]
    assert by_name(same, lambda p: (p[1], p[0])) == same[::-1]


def test_a_surname_is_read_as_a_surname():
    assert name_key("曾小贤")[0][0] == "zeng" and name_key("单田芳")[0][0] == "shan"
    assert name_key("不曾")[0] == ("bu", "ceng")  # only a name's first character is a surname


def test_english_names_compare_casefolded():
    assert by_name([("b@x", "bob"), ("a@x", "Alice"), ("c@x", "ALAN")], lambda p: (p[1], p[0])) == [
        ("c@x", "ALAN"), ("a@x", "Alice"), ("b@x", "bob")]


@pytest.fixture
def chinese_class(web, factory, course):
    from app.extensions import db
    from app.models import User

    for u in (course["alice"], course["bob"]):  # the course's two students out of the way
        db.session.delete(db.session.get(User, u.id))
    db.session.commit()
    for email, name in CLASS:
        factory.student(email=email, name=name)
    return course


def _emails(text: str) -> list[str]:
    return [e for e in dict.fromkeys(re.findall(r"[a-z]\d@example\.edu", text))]


def test_the_dashboard_the_exports_and_the_roster_list_the_class_by_pinyin(client, web, chinese_class):
    web.login(client, chinese_class["teacher"])
    want = [e for e, _ in CLASS]
    assert _emails(client.get("/instructor/").get_data(as_text=True)) == want
    assert _emails(client.get("/instructor/?sort=name&dir=desc").get_data(as_text=True)) == want[::-1]
    assert _emails(client.get("/instructor/roster").get_data(as_text=True)) == want
    for fmt in ("csv", "canvas", "moodle"):
        body = client.get("/instructor/gradebook.csv", query_string={"format": fmt}).data.decode("utf-8-sig")
        assert _emails(body) == want, fmt
    from app.models import User

    ids = [str(u.id) for u in User.query.filter(User.email.in_(want)).order_by(User.email)]
    links = client.post("/instructor/roster/links", data={"user_id": ids}).data.decode("utf-8-sig")
    assert [r[0] for r in list(csv.reader(io.StringIO(links)))[1:]] == want


def test_a_regrade_batchs_table_lists_the_class_by_pinyin(client, web, chinese_class):
    from app.models import User
    from tests.web.helpers import realistic_result

    want = [e for e, _ in CLASS]
    for email in sorted(want):  # graded in email order: the queue's order is not the class list's
        student = User.query.filter_by(email=email).one()
        web.grade(web.submit(student, audit=False, figure=False), realistic_result())
    web.login(client, chinese_class["teacher"])
    page = client.get("/instructor/regrade?scope=counting").get_data(as_text=True)
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    batch = client.post("/instructor/regrade", data=form, follow_redirects=True).get_data(as_text=True)
    assert _emails(batch) == want


def test_the_class_order_reads_pypinyins_character_table_without_its_phrase_table():
    """Importing pypinyin loads its phrase table (55 MiB, a second) in each web worker; names need the characters'."""
    import subprocess
    import sys

    code = ("import sys; from app.names import name_key; assert name_key('吕布')[:2] == (('lv', 'bu'), ('3', '4')); "
            "print(sorted(m for m in sys.modules if m.startswith('pypinyin')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
