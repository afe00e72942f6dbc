"""Round 35: two students of one name (a 300-student class has several 王伟). The instructor's lists that named
a student by name alone made them one person: a similarity pair of two 王伟 read as one student's own two
attempts, and the course log and a regrade batch could not say which 王伟 a line was about. Each now shows
the email beside the name."""

from __future__ import annotations

from app.extensions import db
from app.models import SimilarityReport
from tests.web.test_similarity import SOURCES, _submit_code


def test_a_similarity_pair_of_two_students_of_one_name_shows_both_emails(client, web, course, factory):
    from worker.similarity import run_report

    one = factory.student(name="王伟", email="wang.wei.1@example.edu")
    two = factory.student(name="王伟", email="wang.wei.2@example.edu")
    _submit_code(web, one, SOURCES["alice"])
    _submit_code(web, two, SOURCES["dave"])          # alice's code, renamed
    _submit_code(web, course["bob"], SOURCES["bob"])
    token = web.f.token(course["teacher"])
    resp = client.post("/api/v1/similarity", json={"assignment": "attention"},
                       headers={"Authorization": f"Bearer {token}"})
    assert run_report(resp.json["id"]) == "done"
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    page = client.get("/instructor/similarity").get_data(as_text=True)
    row = page[page.index('<table id="pairs">'):]
    assert "wang.wei.1@example.edu" in row and "wang.wei.2@example.edu" in row
    report = db.session.query(SimilarityReport).one()
    pair = client.get(f"/instructor/similarity/{report.id}/pairs/0").get_data(as_text=True)
    assert "wang.wei.1@example.edu" in pair and "wang.wei.2@example.edu" in pair


def test_a_student_without_a_name_is_shown_by_email_once(client, web, course, factory):
    from worker.similarity import run_report

    one = factory.student(name="", email="no.name@example.edu")
    two = factory.student(name="李雷", email="li.lei@example.edu")
    _submit_code(web, one, SOURCES["alice"])
    _submit_code(web, two, SOURCES["dave"])
    token = web.f.token(course["teacher"])
    resp = client.post("/api/v1/similarity", json={"assignment": "attention"},
                       headers={"Authorization": f"Bearer {token}"})
    assert run_report(resp.json["id"]) == "done"
    web.login(client, course["teacher"])
    page = client.get("/instructor/similarity").get_data(as_text=True)
    row = page[page.index('<table id="pairs">'):]
    assert row.count("no.name@example.edu") == 1 and "李雷" in row and "li.lei@example.edu" in row


def test_a_regrade_batch_lists_each_changed_student_once_and_tells_two_of_one_name_apart():
    """The batch's "students whose score changed" was a set of names: two 王伟 whose scores both changed read as
    one."""
    from types import SimpleNamespace

    from app.regrading import _changed_names

    def row(uid: int, name: str, email: str, delta: float | None):
        return SimpleNamespace(sub=SimpleNamespace(student=SimpleNamespace(
            id=uid, name=name, email=email, display_name=name or email)), delta=delta)

    rows = [row(1, "王伟", "wang.1@example.edu", 5), row(2, "王伟", "wang.2@example.edu", -3),
            row(1, "王伟", "wang.1@example.edu", 2), row(3, "محمد", "m@example.edu", 1), row(4, "李雷", "l@example.edu", 0)]
    # in class-list order since round 47: 王伟 by pinyin (wang), the Arabic name after the Latin letters
    assert _changed_names(rows) == ["王伟 (wang.1@example.edu)", "王伟 (wang.2@example.edu)", "محمد"]


def test_a_flash_naming_a_student_isolates_the_name(client, web, course, factory):
    student = factory.student(name="محمد علي", email="ali@example.edu")
    web.login(client, course["teacher"])
    client.get("/lang/en")
    resp = client.post(f"/instructor/roster/{student.id}/drop", data={"q": ""}, follow_redirects=True)
    page = resp.get_data(as_text=True)
    assert "\u2068محمد علي\u2069 was dropped" in page, page[:2000]
