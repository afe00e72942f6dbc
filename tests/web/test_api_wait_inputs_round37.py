"""Round 37: a wait for a change of the answer (`?wait=S` with If-None-Match) ends for every input of the answer.

Between rebuilds the wait reads one small version of the answer (app/api.py `_answer_version`). It left out the
assignment's suite, the suite's rubric file and the names the answer shows: an instructor who moved the assignment
to another suite, edited the rubric (its audit category decides whether a review counts) or a roster import that
renamed a reviewer changed the answer, and a client waiting with the old tag was answered 304 after its seconds
instead of the new answer. Each input below changes the answer; the wait must end with it. A regrade and a late
penalty's edit were covered before (tests/web/test_api_wait_change_round36.py) and stay pinned here too."""

from __future__ import annotations

import shutil
import threading
import time

import pytest

import app.api as api
import rubric.loader
from app.extensions import db
from app.models import Assignment, AuditReview, ScoreOverride, Submission, User
from tests.web.test_api import bearer

# seconds each: the fast lane stays under 10 minutes (stop 41)
pytestmark = pytest.mark.slow


def _rename(user_id: int, name: str) -> None:
    db.session.get(User, user_id).name = name
    db.session.commit()


def _edit_rubric(suite: str) -> None:
    path = rubric.loader.rubric_path(suite)
    text = path.read_text(encoding="utf-8")
    assert "\n  audit:\n    max: 15" in text
    # The audit category renamed: the review now fills a category the stored run does not have.
    path.write_text(text.replace("\n  audit:\n    max: 15", "\n  written_audit:\n    max: 15"), encoding="utf-8")


def _move_suite(assignment_id: int) -> None:
    db.session.get(Assignment, assignment_id).suite = "attention_numpy"  # no audit category: the review no longer counts
    db.session.commit()


def _penalty(assignment_id: int) -> None:
    db.session.get(Assignment, assignment_id).late_penalty_per_day = 0.5
    db.session.commit()


CHANGES = {
    "suite_moved": lambda ctx: _move_suite(ctx["assignment"]),
    "rubric_file_edited": lambda ctx: _edit_rubric("attention"),
    "reviewer_renamed": lambda ctx: _rename(ctx["teacher"], "Teacher Li (renamed)"),
    "override_author_renamed": lambda ctx: _rename(ctx["helper"], "Helper Chen (renamed)"),
    "student_renamed_in_the_staff_view": lambda ctx: _rename(ctx["student"], "Alice Wang (renamed)"),
    "late_penalty_edited": lambda ctx: _penalty(ctx["assignment"]),
}


@pytest.fixture
def rubric_copy(tmp_path, monkeypatch):
    """The rubric files in a copy the test may edit."""
    root = tmp_path / "rubric"
    shutil.copytree(rubric.loader.RUBRIC_ROOT, root)
    monkeypatch.setattr(rubric.loader, "RUBRIC_ROOT", root)
    return root


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_wait_with_the_current_tag_ends_when_an_input_of_the_answer_changes(app, web, course, factory, rubric_copy,
                                                                              monkeypatch, change):
    monkeypatch.setattr(api, "final_listener", lambda engine: None)  # the version read is all that can wake it
    alice, teacher = course["alice"], course["teacher"]
    helper = factory.instructor(email="helper@example.edu", name="Helper Chen")
    sub = web.submit(alice, course["assignment"])
    web.grade(sub)
    sub.late_days = 1
    db.session.add(AuditReview(submission_id=sub.id, reviewer_id=teacher.id, score=2, comment=""))
    db.session.add(ScoreOverride(submission_id=sub.id, kind="category", target="implementation", points=10,
                                 comment="", author_id=helper.id))
    db.session.commit()
    # The staff's view shows the student's name; the student's own view shows the rest.
    token = factory.token(teacher if change == "student_renamed_in_the_staff_view" else alice)
    url = f"/api/v1/submissions/{sub.id}"
    first = app.test_client().get(url, headers=bearer(token))
    assert first.status_code == 200
    tag = first.headers["ETag"]
    out: dict = {}

    def poll() -> None:
        t0 = time.monotonic()
        res = app.test_client().get(f"{url}?wait=8", headers={**bearer(token), "If-None-Match": tag})
        out.update(status=res.status_code, body=res.get_json(silent=True), took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(1.2)
    assert thread.is_alive(), "the wait ended before anything changed"
    CHANGES[change]({"assignment": course["assignment"].id, "teacher": teacher.id, "helper": helper.id,
                     "student": alice.id})
    thread.join(10)
    assert out["status"] == 200, f"the wait was not ended by the change ({out})"
    assert out["took"] < 5
    assert out["body"] != first.get_json()
    db.session.expire_all()
    assert db.session.get(Submission, sub.id).status == "graded"


def test_the_rubric_stamp_changes_with_the_file_and_is_empty_for_a_missing_or_invalid_suite(rubric_copy):
    from app.coursework import rubric_stamp

    before = rubric_stamp("attention")
    assert before != ""
    _edit_rubric("attention")
    assert rubric_stamp("attention") != before
    assert rubric_stamp("no_such_suite") == ""
    assert rubric_stamp("../etc") == ""
