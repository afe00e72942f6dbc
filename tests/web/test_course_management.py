"""Issue 12, the instructor's course: settings and extensions, overrides, regrades that fix the
grades that count, drill-down, roster with drops and sign-in links, LMS exports, similarity, and
the same through the API. Real PostgreSQL; the worker is played by `web.grade` (its own steps)."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import (
    CourseLog,
    DroppedStudent,
    Extension,
    GradingRun,
    RegradeBatch,
    SignInLink,
    SimilarityReport,
    Submission,
    User,
    utcnow,
)
from tests.web.helpers import realistic_result
from tests.web.test_instructor import confirm_regrade


def forget_cached_user() -> None:
    """The test keeps one app context for every request, and Flask-Login caches the signed-in user
    on `g`: after another client signs in, drop that cache so each client is itself again."""
    from flask import g

    g.pop("_login_user", None)


def switch(client, web, user) -> None:
    """Sign out whoever is signed in, then sign in as `user`."""
    client.post("/logout")
    web.login(client, user)


# --- settings and extensions ---------------------------------------------------------------------


def settings_form(**changes: object) -> dict:
    form = {"deadline": "", "late_penalty_percent": "10", "late_days_allowed": "3", "cooldown_seconds": "0",
            "published": "1"}
    form.update({k: str(v) for k, v in changes.items()})
    return form


def test_settings_take_effect_at_once_are_logged_and_show_on_the_student_page(client, web, course):
    a = course["assignment"]
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post("/instructor/settings", data=settings_form(deadline="2026-12-25T07:59",
                                                                  late_penalty_percent="20", cooldown_seconds="60"))
    assert resp.status_code == 302
    db.session.expire_all()
    assert a.deadline.isoformat() == "2026-12-24T23:59:00" and a.late_penalty_per_day == 0.2
    assert a.cooldown_seconds == 60
    logged = {e.subject: e for e in db.session.query(CourseLog).filter_by(kind="setting")}
    assert set(logged) == {"deadline", "late_penalty_per_day", "cooldown_seconds"}
    assert logged["late_penalty_per_day"].before == 0.1 and logged["late_penalty_per_day"].after == 0.2
    assert logged["deadline"].actor_id == course["teacher"].id
    assert "2026-12-24 23:59" in client.get("/instructor/log").get_data(as_text=True)
    switch(client, web, course["alice"])
    page = client.get("/").get_data(as_text=True)
    assert "2026-12-24 23:59:00 UTC" in page and "Each started day late takes 20% of the attempt" in page


def test_bad_settings_are_refused_with_a_clear_message_and_change_nothing(client, web, course):
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post("/instructor/settings", data=settings_form(late_penalty_percent="150"),
                       follow_redirects=True)
    assert "The late penalty must be a percentage from 0 to 100." in resp.get_data(as_text=True)
    resp = client.post("/instructor/settings", data=settings_form(deadline="next friday"), follow_redirects=True)
    assert "is not a date and time" in resp.get_data(as_text=True)
    client.get("/lang/zh")
    resp = client.post("/instructor/settings", data=settings_form(late_penalty_percent="-1"), follow_redirects=True)
    assert "迟交扣分必须是 0 到 100 之间的百分比" in resp.get_data(as_text=True)
    db.session.expire_all()
    assert course["assignment"].late_penalty_per_day == 0.1
    assert db.session.query(CourseLog).count() == 0


def test_unpublishing_hides_the_assignment_from_students(client, web, course):
    switch(client, web, course["teacher"])
    client.post("/instructor/settings", data={**settings_form(), "published": ""})
    switch(client, web, course["alice"])
    assert client.get("/assignments/attention").status_code == 404


def test_an_extension_changes_the_late_days_and_the_effective_score(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow() - timedelta(days=1, hours=12)         # alice submits 2 started days late
    db.session.commit()
    sub = web.submit(course["alice"])
    web.grade(sub)                                              # raw 96
    assert sub.late_days == 2
    switch(client, web, course["teacher"])
    before = client.get(f"/submissions/{sub.id}/status").json["total"]
    assert before == pytest.approx(96 * 0.8)
    resp = client.post("/instructor/extensions", data={"student": "alice@example.edu", "extra_days": "1",
                                                       "reason": "illness, note from the clinic"})
    assert resp.status_code == 302
    db.session.expire_all()
    assert sub.late_days == 1
    assert client.get(f"/submissions/{sub.id}/status").json["total"] == pytest.approx(96 * 0.9)
    new_deadline = (utcnow() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    client.post("/instructor/extensions", data={"student": "alice@example.edu", "deadline": new_deadline})
    db.session.expire_all()
    assert sub.late_days == 0 and db.session.query(Extension).count() == 1
    assert client.get(f"/submissions/{sub.id}/status").json["total"] == 96
    rows = list(csv.reader(io.StringIO(client.get("/instructor/gradebook.csv").data.decode("utf-8-sig"))))
    assert next(r for r in rows if r[0] == "alice@example.edu")[2] == "96"
    entries = db.session.query(CourseLog).filter_by(kind="extension").order_by(CourseLog.id).all()
    assert len(entries) == 2 and entries[0].comment == "illness, note from the clinic"
    assert entries[1].before == {"deadline": None, "extra_days": 1}
    # Bob, without an extension, is still late; removing Alice's makes her late again.
    client.post(f"/instructor/extensions/{course['alice'].id}/revoke")
    db.session.expire_all()
    assert sub.late_days == 2


def test_an_extension_lets_a_student_submit_after_the_late_period(client, web, course):
    from app.submitting import SubmissionRefused

    a = course["assignment"]
    a.deadline, a.late_days_allowed = utcnow() - timedelta(days=5), 1
    db.session.commit()
    with pytest.raises(SubmissionRefused):
        web.submit(course["bob"])
    db.session.rollback()
    switch(client, web, course["teacher"])
    client.post("/instructor/extensions", data={"student": "bob@example.edu", "extra_days": "6"})
    sub = web.submit(course["bob"])
    assert sub.late_days == 0
    switch(client, web, course["bob"])
    client.get("/lang/en")
    assert "your extension" in client.get("/").get_data(as_text=True)


def test_extension_for_an_unknown_student_is_refused_in_both_languages(client, web, course):
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post("/instructor/extensions", data={"student": "nobody@example.edu", "extra_days": "2"},
                       follow_redirects=True)
    assert "No student with the email" in resp.get_data(as_text=True)
    resp = client.post("/instructor/extensions", data={"student": "alice@example.edu"}, follow_redirects=True)
    assert "Give a new deadline or a number of extra days." in resp.get_data(as_text=True)
    assert db.session.query(Extension).count() == 0


# --- overrides -----------------------------------------------------------------------------------


def test_test_and_category_overrides_need_a_comment_survive_regrades_and_show_to_the_student(client, web,
                                                                                              course):
    from app.regrading import request_regrade

    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))      # 92: the mask test got 0 of 4
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    url = f"/instructor/submissions/{sub.id}/override"
    no_comment = client.post(url, data={"target": "test:test_blocked_key_gets_zero_weight", "points": "4"},
                             follow_redirects=True)
    assert "Say why in a comment" in no_comment.get_data(as_text=True)
    too_many = client.post(url, data={"target": "test:test_blocked_key_gets_zero_weight", "points": "5",
                                      "comment": "x"}, follow_redirects=True)
    assert "Points must be from 0 to 4." in too_many.get_data(as_text=True)
    client.post(url, data={"target": "test:test_blocked_key_gets_zero_weight", "points": "4",
                           "comment": "The test used an outdated mask convention."})
    assert client.get(f"/submissions/{sub.id}/status").json["total"] == 96
    client.post(url, data={"target": "category:implementation", "points": "20", "comment": "Copied softmax."})
    assert client.get(f"/submissions/{sub.id}/status").json["total"] == 86
    # a regrade with the same faulty test keeps both overrides
    run2 = request_regrade(sub)
    web.grade(sub, realistic_result(fail_mask=True, grader_version="v2"), run=run2)
    assert client.get(f"/submissions/{sub.id}/status").json["total"] == 86
    # the student sees who changed what, when and why
    switch(client, web, course["alice"])
    client.get("/lang/en")
    page = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert "Your instructor changed these points:" in page
    assert "test_blocked_key_gets_zero_weight</code>: 0 → <strong>4</strong>" in page
    assert "by Teacher Li on" in page and "The test used an outdated mask convention." in page
    token_body = client.get(f"/api/v1/submissions/{sub.id}", headers=_bearer(web, course["alice"])).json
    assert [o["target"] for o in token_body["score"]["overrides"]] == ["test_blocked_key_gets_zero_weight",
                                                                       "implementation"]
    # clearing is logged too
    switch(client, web, course["teacher"])
    client.post(url, data={"target": "category:implementation", "clear": "1"})
    assert client.get(f"/submissions/{sub.id}/status").json["total"] == 96
    log = [(e.subject, e.before, e.after) for e in db.session.query(CourseLog).filter_by(kind="override")
           .order_by(CourseLog.id)]
    assert log == [("test:test_blocked_key_gets_zero_weight", None, 4.0), ("category:implementation", None, 20.0),
                   ("category:implementation", 20.0, None)]


def _bearer(web, user) -> dict:
    return {"Authorization": f"Bearer {web.f.token(user)}"}


def test_override_of_an_unknown_target_is_refused(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    resp = client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "test:test_does_not_exist", "points": "1", "comment": "x"},
                       follow_redirects=True)
    assert "No test &#39;test_does_not_exist&#39; in this result." in resp.get_data(as_text=True)
    assert db.session.query(CourseLog).count() == 0


# --- regrades ------------------------------------------------------------------------------------


def test_regrading_the_attempts_that_count_reruns_the_best_attempt(client, web, course):
    best = web.submit(course["alice"])
    web.grade(best)                                            # 96: counts
    latest = web.submit(course["alice"])
    web.grade(latest, realistic_result(fail_mask=True))        # 92, newer
    bob = web.submit(course["bob"])
    web.grade(bob)
    switch(client, web, course["teacher"])
    assert confirm_regrade(client, scope="counting") == 2
    db.session.expire_all()
    batch = db.session.query(RegradeBatch).one()
    rerun = {r.submission_id for r in db.session.query(GradingRun).filter_by(trigger=batch.trigger)}
    assert rerun == {best.id, bob.id}
    assert batch.scope == "counting" and batch.before == {str(best.id): 96, str(bob.id): 96}
    # the fixed grader now finds the mask bug in the best attempt: Alice's counted score follows
    run = next(r for r in best.runs if r.trigger == batch.trigger)
    web.grade(best, realistic_result(fail_mask=True, grader_version="fixed"), run=run)
    rows = list(csv.reader(io.StringIO(client.get("/instructor/gradebook.csv").data.decode("utf-8-sig"))))
    assert next(r for r in rows if r[0] == "alice@example.edu")[2] == "92"


def test_the_batch_report_shows_effective_scores_after_overrides_and_late_penalty(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow() - timedelta(hours=3)
    db.session.commit()
    sub = web.submit(course["alice"])                          # 1 day late: −10 %
    web.grade(sub)                                              # raw 96 → 86.4
    switch(client, web, course["teacher"])
    confirm_regrade(client, scope="submission", submission_id=sub.id)
    batch = db.session.query(RegradeBatch).one()
    run = db.session.query(GradingRun).filter_by(trigger=batch.trigger).one()
    web.grade(sub, realistic_result(fail_mask=True), run=run)  # raw 92 → 82.8
    progress = client.get(f"/instructor/regrades/{batch.id}/progress").json
    assert progress["runs"][0]["old"] == pytest.approx(86.4) and progress["runs"][0]["new"] == pytest.approx(82.8)
    assert progress["runs"][0]["delta"] == pytest.approx(-3.6)


# --- drill-down and dashboard --------------------------------------------------------------------


def test_clicking_a_test_lists_the_students_who_fail_it_with_their_feedback(client, web, course, factory):
    s1 = web.submit(course["alice"])
    web.grade(s1, realistic_result(fail_mask=True))
    s2 = web.submit(course["bob"])
    web.grade(s2)
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    dash = client.get("/instructor/").get_data(as_text=True)
    assert 'href="/instructor/tests/test_blocked_key_gets_zero_weight?a=attention"' in dash
    page = client.get("/instructor/tests/test_blocked_key_gets_zero_weight").get_data(as_text=True)
    assert "1 of 2 students fail this test on their counted attempt." in page
    assert "Alice Wang" in page and "Bob Zhang" not in page
    assert "key 2 still gets weight 0.31 from query 0" in page


def test_dashboard_category_columns_come_from_the_attempt_that_counts(client, web, course):
    best = web.submit(course["alice"])
    web.grade(best)                                            # mask_parity 30
    worse = web.submit(course["alice"])
    web.grade(worse, realistic_result(fail_mask=True))         # mask_parity 26, latest
    switch(client, web, course["teacher"])
    html = client.get("/instructor/").get_data(as_text=True)
    alice = course["alice"].id
    row = re.search(rf"<tr>\s*<td><a href=\"/instructor/students/{alice}[^>]*>.*?</tr>", html, re.S)
    cells = re.findall(r'<td class="num small">([^<]*)</td>', row.group(0))
    assert cells == ["25", "30", "30", "11"]                    # the best attempt's categories


def test_the_student_page_has_one_collapsed_section_per_attempt(client, web, course):
    for _ in range(3):
        web.grade(web.submit(course["alice"]))
    switch(client, web, course["teacher"])
    html = client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True)
    sections = re.findall(r'<details class="card attempt[^"]*" id="attempt-(\d)"( open)?>', html)
    assert [n for n, _ in sections] == ["3", "2", "1"] and all(not o for _, o in sections)


# --- roster --------------------------------------------------------------------------------------


def test_roster_lists_searches_drops_and_restores_keeping_submissions(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    listing = client.get("/instructor/roster").get_data(as_text=True)
    assert "alice@example.edu" in listing and "bob@example.edu" in listing
    search = client.get("/instructor/roster?q=bob").get_data(as_text=True)
    assert 'data-email="bob@example.edu"' in search and 'data-email="alice@example.edu"' not in search
    client.post(f"/instructor/roster/{course['alice'].id}/drop")
    assert db.session.get(DroppedStudent, course["alice"].id) is not None
    assert "alice@example.edu" not in client.get("/instructor/").get_data(as_text=True)
    assert b"alice@example.edu" not in client.get("/instructor/gradebook.csv").data
    assert 'data-email="alice@example.edu"' in client.get("/instructor/roster?show=dropped").get_data(as_text=True)
    assert db.session.get(Submission, sub.id) is not None     # kept
    client.post(f"/instructor/roster/{course['alice'].id}/restore")
    assert "alice@example.edu" in client.get("/instructor/").get_data(as_text=True)
    assert [e.kind for e in db.session.query(CourseLog).order_by(CourseLog.id)] == ["drop", "restore"]
    assert client.post(f"/instructor/roster/{course['teacher'].id}/drop").status_code == 404


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_a_dropped_student_keeps_their_grades_but_cannot_submit_until_restored(client, web, course, factory):
    from tests.web.test_api import upload as api_upload
    from tests.web.test_student_pages import form_upload

    graded = web.submit(course["alice"])
    web.grade(graded)
    token = factory.token(course["alice"])
    switch(client, web, course["teacher"])
    client.post(f"/instructor/roster/{course['alice'].id}/drop")
    switch(client, web, course["alice"])
    before = db.session.query(Submission).count()
    for lang, says in (("en", "no longer enrolled"), ("zh", "不在本课程的名单中")):
        client.get(f"/lang/{lang}")
        page = client.get("/assignments/attention").get_data(as_text=True)
        assert 'id="not-enrolled"' in page and says in page
        assert "/assignments/attention/submit" not in page               # no upload form
        assert f"/submissions/{graded.id}" in page                       # the attempt is still listed
        refused = form_upload(client)
        assert refused.status_code == 403 and says in refused.get_data(as_text=True)
    api = api_upload(client, token)
    assert api.status_code == 403 and api.json["code"] == "not_enrolled"
    assert client.get(f"/submissions/{graded.id}").status_code == 200   # their result stays readable
    assert db.session.query(Submission).count() == before                # nothing stored or queued
    switch(client, web, course["teacher"])
    client.post(f"/instructor/roster/{course['alice'].id}/restore")
    switch(client, web, course["alice"])
    assert form_upload(client).status_code == 302                        # back in: accepted again


def test_roster_import_reports_every_ignored_line_and_extra_column(client, web, course):
    switch(client, web, course["teacher"])
    client.get("/lang/en")
    body = ("email,name,role,student_no,section\n"
            "# a comment line\n"
            "new@example.edu,新同学,student,2026001,A\n"
            "bad-email,X\n").encode()
    resp = client.post("/instructor/roster", data={"csv": (io.BytesIO(body), "r.csv")},
                       content_type="multipart/form-data")
    html = resp.get_data(as_text=True)
    ignored = re.search(r'<table id="ignored">(.*?)</table>', html, re.S).group(1)
    assert "line 1" in ignored and "columns not imported: student_no, section" in ignored
    assert "line 2" in ignored and "comment line" in ignored
    assert "line 3" in ignored and "2 extra cell(s) not imported: 2026001, A" in ignored
    assert "line 4" in re.search(r'<table id="skipped">(.*?)</table>', html, re.S).group(1)


def test_sign_in_links_are_one_time_expiring_and_downloaded_as_csv(client, app, web, course):
    switch(client, web, course["teacher"])
    resp = client.post("/instructor/roster/links", data={"user_id": [course["alice"].id, course["bob"].id]})
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    assert "no-store" in resp.headers["Cache-Control"]
    rows = list(csv.DictReader(io.StringIO(resp.data.decode("utf-8-sig"))))
    assert [r["email"] for r in rows] == ["alice@example.edu", "bob@example.edu"]
    alice_url = rows[0]["sign_in_link"]
    token = alice_url.rsplit("/", 1)[1]
    assert db.session.query(SignInLink).filter(SignInLink.token_hash.contains(token)).count() == 0  # hashed only
    visitor = app.test_client()
    assert visitor.get(f"/signin/{token}").status_code == 200      # a mail scanner's GET uses nothing
    assert visitor.get(f"/signin/{token}").status_code == 200
    resp = visitor.post(f"/signin/{token}")
    assert resp.status_code == 302 and resp.headers["Location"] == "/"
    assert visitor.get("/").status_code == 200 and "Alice" in visitor.get("/assignments/attention").get_data(True)
    assert app.test_client().post(f"/signin/{token}").status_code == 410   # second use
    forget_cached_user()
    # a new link ends the old unused one; an expired link is refused
    bob_token = rows[1]["sign_in_link"].rsplit("/", 1)[1]
    again = client.post("/instructor/roster/links", data={"user_id": [course["bob"].id]})
    assert again.status_code == 200, again.headers
    assert app.test_client().post(f"/signin/{bob_token}").status_code == 410
    fresh = client.post("/instructor/roster/links", data={"user_id": [course["bob"].id]})
    fresh_token = list(csv.DictReader(io.StringIO(fresh.data.decode("utf-8-sig"))))[0]["sign_in_link"].rsplit("/", 1)[1]
    db.session.query(SignInLink).filter(SignInLink.used_at.is_(None)).update({"expires_at": utcnow()})
    db.session.commit()
    assert app.test_client().post(f"/signin/{fresh_token}").status_code == 410
    assert db.session.query(CourseLog).filter_by(kind="sign_in_links").count() == 3


def test_links_for_every_student_without_a_password(client, web, course):
    switch(client, web, course["teacher"])
    client.post("/instructor/roster", data={"csv": (io.BytesIO(b"new1@example.edu,N1\nnew2@example.edu,N2\n"),
                                                    "r.csv")}, content_type="multipart/form-data")
    resp = client.post("/instructor/roster/links", data={"who": "no_password"})
    emails = [r["email"] for r in csv.DictReader(io.StringIO(resp.data.decode("utf-8-sig")))]
    assert emails == ["new1@example.edu", "new2@example.edu"]


# --- LMS exports ---------------------------------------------------------------------------------


@pytest.fixture
def graded_class(web, course, factory):
    web.grade(web.submit(course["alice"]))                                  # 96
    web.grade(web.submit(course["bob"]), realistic_result(fail_mask=True))  # 92
    factory.student(email="wang@example.edu", name="王小明")                 # no attempt
    return course


def test_canvas_export_follows_canvas_gradebook_import_layout(client, web, graded_class):
    """Canvas: header Student, ID, SIS User ID, SIS Login ID, Section, then the assignment; a
    'Points Possible' row; one row per student identified by SIS Login ID; blank = unchanged."""
    switch(client, web, graded_class["teacher"])
    resp = client.get("/instructor/gradebook.csv?format=canvas")
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    # A byte-order mark for Excel; Canvas's importer matches the header with /Student/ (unanchored)
    # and takes back its own exports, which carry one (include_byte_order_mark_in_gradebook_exports).
    assert resp.data.startswith(b"\xef\xbb\xbfStudent,")
    rows = list(csv.reader(io.StringIO(resp.data.decode("utf-8-sig"))))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention"]
    assert rows[1] == ["Points Possible", "", "", "", "", "100"]
    by_login = {r[3]: r for r in rows[2:]}
    assert set(by_login) == {"alice@example.edu", "bob@example.edu", "wang@example.edu"}
    assert by_login["alice@example.edu"][5] == "96" and by_login["bob@example.edu"][5] == "92"
    assert by_login["wang@example.edu"][0] == "王小明" and by_login["wang@example.edu"][5] == ""
    assert all(len(r) == 6 for r in rows)


def test_moodle_export_follows_moodle_csv_grade_import_layout(client, web, graded_class):
    """Moodle: one header row and one row per student, no other rows; the email column maps to
    useremail; the grade column is numeric; the maximum is in the column's name."""
    switch(client, web, graded_class["teacher"])
    rows = list(csv.reader(io.StringIO(client.get("/instructor/gradebook.csv?format=moodle").data.decode("utf-8-sig"))))
    assert rows[0] == ["First name", "Last name", "Email address", "Attention (out of 100)"]
    assert len(rows) == 1 + 3
    for r in rows[1:]:
        assert re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", r[2])
        assert r[3] == "" or 0 <= float(r[3]) <= 100
    by_email = {r[2]: r for r in rows[1:]}
    assert by_email["alice@example.edu"][:2] == ["Alice", "Wang"] and by_email["alice@example.edu"][3] == "96"
    assert by_email["wang@example.edu"][:2] == ["王小明", ""]


def test_api_gradebook_formats(client, web, graded_class):
    headers = _bearer(web, graded_class["teacher"])
    canvas = client.get("/api/v1/gradebook?format=canvas", headers=headers)
    assert canvas.status_code == 200 and canvas.data.startswith(b"\xef\xbb\xbfStudent,ID,SIS User ID")
    assert client.get("/api/v1/gradebook?format=moodle", headers=headers).data.startswith(b"\xef\xbb\xbfFirst name,")
    assert client.get("/api/v1/gradebook?format=csv", headers=headers).data.startswith(b"\xef\xbb\xbfemail,")
    assert client.get("/api/v1/gradebook?format=xls", headers=headers).status_code == 400
    assert client.get("/instructor/gradebook.csv?format=xls").status_code in (302, 400)


# --- API for scripts -----------------------------------------------------------------------------


def test_api_regrade_answers_202_with_the_batch_and_the_number_of_runs(client, web, course):
    s1 = web.submit(course["alice"])
    web.grade(s1)
    web.grade(web.submit(course["alice"]), realistic_result(fail_mask=True))
    headers = _bearer(web, course["teacher"])
    resp = client.post("/api/v1/regrades", json={"assignment": "attention", "scope": "counting"}, headers=headers)
    assert resp.status_code == 202 and resp.json["runs_queued"] == 1
    batch = db.session.get(RegradeBatch, resp.json["batch"])
    assert [r.submission_id for r in db.session.query(GradingRun).filter_by(trigger=batch.trigger)] == [s1.id]
    resp = client.post("/api/v1/regrades", json={"scope": "student", "student": "alice@example.edu"},
                       headers=headers)
    assert resp.status_code == 202 and resp.json["runs_queued"] == 2
    resp = client.post("/api/v1/regrades", json={"scope": "submission", "submission": s1.id}, headers=headers)
    assert resp.status_code == 202 and resp.json["runs_queued"] == 1
    assert client.post("/api/v1/regrades", json={"scope": "everything"}, headers=headers).status_code == 400
    assert client.post("/api/v1/regrades", json={"scope": "student"}, headers=headers).status_code == 400
    missing = client.post("/api/v1/regrades", json={"scope": "student", "student": "x@example.edu"},
                          headers=headers)
    assert missing.status_code == 404 and missing.json["message"]["zh"]
    student = client.post("/api/v1/regrades", json={"scope": "all"}, headers=_bearer(web, course["alice"]))
    assert student.status_code == 403


def test_api_extension_sets_the_deadline_in_force(client, web, course):
    headers = _bearer(web, course["teacher"])
    resp = client.post("/api/v1/extensions", json={"assignment": "attention", "student": "bob@example.edu",
                                                    "deadline": "2026-12-31T12:00:00+08:00"}, headers=headers)
    assert resp.status_code == 201 and resp.json["deadline"] == "2026-12-31T04:00:00Z"
    bad = client.post("/api/v1/extensions", json={"student": "bob@example.edu", "deadline": "soon"}, headers=headers)
    assert bad.status_code == 422 and "ISO 8601" in bad.json["message"]["en"]
    assert client.post("/api/v1/extensions", json={"student": "bob@example.edu", "deadline": "2026-12-31"},
                       headers=_bearer(web, course["bob"])).status_code == 403


def test_openapi_describes_the_instructor_endpoints(client):
    paths = client.get("/api/v1/openapi.json").json["paths"]
    assert {"/regrades", "/extensions", "/similarity", "/gradebook"} <= set(paths)
    assert paths["/gradebook"]["get"]["parameters"][0]["schema"]["enum"] == ["json", "csv", "xlsx", "canvas", "moodle"]
    assert "202" in paths["/regrades"]["post"]["responses"]


# --- permissions and CSRF ------------------------------------------------------------------------


def instructor_routes(course, sub_id: int) -> tuple[list[str], list[tuple[str, dict]]]:
    gets = ["/instructor/settings", "/instructor/log", "/instructor/regrades", "/instructor/regrade?scope=counting",
            "/instructor/tests/test_sdpa_interface", "/instructor/similarity", "/instructor/similarity/status",
            "/instructor/gradebook.csv?format=canvas", "/instructor/gradebook.csv?format=moodle"]
    posts = [
        ("/instructor/settings", settings_form(late_penalty_percent="50")),
        ("/instructor/extensions", {"student": "alice@example.edu", "extra_days": "3"}),
        (f"/instructor/extensions/{course['alice'].id}/revoke", {}),
        (f"/instructor/submissions/{sub_id}/override", {"target": "category:audit", "points": "1", "comment": "x"}),
        (f"/instructor/submissions/{sub_id}/review", {"score": "1"}),
        ("/instructor/regrade", {"scope": "all", "confirm": "1"}),
        (f"/instructor/roster/{course['alice'].id}/drop", {}),
        (f"/instructor/roster/{course['alice'].id}/restore", {}),
        ("/instructor/roster/links", {"user_id": str(course["alice"].id)}),
        ("/instructor/similarity", {}),
    ]
    return gets, posts


def nothing_changed(sub_id: int) -> bool:
    db.session.expire_all()
    return (db.session.query(CourseLog).count() == 0 and db.session.query(Extension).count() == 0
            and db.session.query(RegradeBatch).count() == 0 and db.session.query(SignInLink).count() == 0
            and db.session.query(SimilarityReport).count() == 0 and db.session.query(DroppedStudent).count() == 0
            and len(db.session.get(Submission, sub_id).runs) == 1)


def test_only_instructors_reach_the_new_pages_and_forms(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    gets, posts = instructor_routes(course, sub.id)
    for url in gets:
        resp = client.get(url)
        assert resp.status_code == 302 and "/login" in resp.headers["Location"], url
    switch(client, web, course["alice"])
    for url in gets:
        assert client.get(url).status_code == 403, url
    for url, data in posts:
        assert client.post(url, data=data).status_code == 403, url
    assert nothing_changed(sub.id)
    switch(client, web, course["teacher"])
    for url in gets:
        assert client.get(url).status_code == 200, url


def test_every_new_instructor_form_needs_a_csrf_token(client, app, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    switch(client, web, course["teacher"])
    app.config["WTF_CSRF_ENABLED"] = True
    _, posts = instructor_routes(course, sub.id)
    for url, data in posts:
        assert client.post(url, data=data).status_code == 400, url
    assert client.post(f"/signin/{'x' * 43}").status_code == 400
    assert nothing_changed(sub.id)
    # the pages themselves carry the token in every form
    for page in ("/instructor/settings", f"/instructor/students/{course['alice'].id}", "/instructor/roster",
                 "/instructor/similarity", "/instructor/regrade?scope=counting"):
        html = client.get(page).get_data(as_text=True)
        assert html.count('method="post"') == html.count('name="csrf_token"'), page


def test_the_new_pages_escape_student_text(client, web, course, factory):
    evil = factory.student(email="evil@example.edu", name="<script>alert(1)</script>")
    sub = web.submit(evil)
    web.grade(sub, realistic_result(fail_mask=True))
    switch(client, web, course["teacher"])
    client.post("/instructor/extensions", data={"student": "evil@example.edu", "extra_days": "1",
                                                "reason": "<img src=x onerror=alert(2)>"})
    for url in ("/instructor/roster", "/instructor/settings", "/instructor/log",
                "/instructor/tests/test_blocked_key_gets_zero_weight"):
        html = client.get(url).get_data(as_text=True)
        assert "<script>alert(1)" not in html and "<img src=x" not in html, url


def test_dropped_students_do_not_count_in_regrades(client, web, course):
    web.grade(web.submit(course["alice"]))
    web.grade(web.submit(course["bob"]))
    switch(client, web, course["teacher"])
    client.post(f"/instructor/roster/{course['bob'].id}/drop")
    assert confirm_regrade(client, scope="counting") == 1
    assert db.session.query(User).filter_by(email="bob@example.edu").one() is not None


def test_the_new_pages_are_in_chinese_for_a_chinese_instructor(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    switch(client, web, course["teacher"])
    client.get("/lang/zh")
    expected = {
        "/instructor/settings": "截止时间、迟交规则、冷却时间与发布",
        "/instructor/regrade?scope=counting": "将排队 1 次评分。",
        "/instructor/roster": "一次性且会过期的链接",
        "/instructor/similarity": "绝不是处罚依据",
        f"/instructor/students/{course['alice'].id}": "分数覆盖属于这次提交",
        "/instructor/tests/test_sdpa_interface": "没有人未通过此测试。",
    }
    for url, text in expected.items():
        assert text in client.get(url).get_data(as_text=True), url


def test_sign_in_links_are_for_students_only(client, web, course, factory):
    other = factory.instructor(email="ta@example.edu")
    switch(client, web, course["teacher"])
    resp = client.post("/instructor/roster/links", data={"user_id": [other.id]}, follow_redirects=True)
    assert resp.mimetype == "text/html" and db.session.query(SignInLink).count() == 0


def test_drill_down_shows_bilingual_feedback_in_the_readers_language(client, web, course):
    from worker import runs

    sub = web.submit(course["alice"])
    result = realistic_result(fail_mask=True)
    mask = next(t for t in result["tests"] if t["id"] == "test_blocked_key_gets_zero_weight")
    mask["feedback"] = {"en": "key 2 still gets weight 0.31", "zh": "key 2 的权重仍为 0.31"}
    run = sub.latest_run
    from app.storage import BlobStore

    assert runs.claim(run.id, "w", BlobStore(web.app.config["UPLOAD_DIR"])) is not None
    assert runs.store_result(run.id, "w", result)        # the worker's own store (JSON text for a dict)
    switch(client, web, course["teacher"])
    client.get("/lang/zh")
    assert "key 2 的权重仍为 0.31" in client.get("/instructor/tests/test_blocked_key_gets_zero_weight").get_data(True)
    client.get("/lang/en")
    page = client.get("/instructor/tests/test_blocked_key_gets_zero_weight").get_data(True)
    assert "key 2 still gets weight 0.31" in page and "&#34;zh&#34;" not in page and '{"en"' not in page


def test_saving_untouched_settings_logs_nothing(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow().replace(microsecond=123456)        # seconds the form does not show
    db.session.commit()
    switch(client, web, course["teacher"])
    page = client.get("/instructor/settings").get_data(as_text=True)
    shown = re.search(r'name="deadline" value="([^"]+)"', page).group(1)
    client.post("/instructor/settings", data=settings_form(deadline=shown))
    assert db.session.query(CourseLog).count() == 0
