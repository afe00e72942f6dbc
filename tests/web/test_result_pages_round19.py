"""Round 19: what a student reads when the grading of an attempt failed.

A grader error stores the engine's own message ("grader configuration error: FileNotFoundError(
'/srv/.../hidden/...')", "sandbox unavailable: ...") and a run given up stores the worker's reason;
both are for the staff. The student's page, its live status and the API showed them raw: English
on a Chinese page, and the grader's internals (paths, exception reprs) to the student. Now the
student reads what was seen, in their language; the instructor still sees the reason.
"""

from __future__ import annotations

import html

import pytest

from app.extensions import db
from app.models import GradingRun, Status
from tests.web.test_api import bearer

INTERNAL = "grader configuration error: FileNotFoundError('/srv/autograder/grader_tests/attention/hidden_x.py')"


def grader_error(web, sub, monkeypatch) -> None:
    """A grader error as the runner builds it (its version string pinned: hashing the suite costs 2 s)."""
    from grading import runner
    from rubric.loader import load_rubric

    monkeypatch.setattr(runner, "grader_version", lambda _assignment: "attn-test")
    web.grade(sub, runner._error_result("attention", INTERNAL, ["Traceback ..."], 0.0, load_rubric("attention")))


def given_up(sub, reason: str = "submission files unreadable: [Errno 5] /data/blobs/ab/abcdef") -> None:
    run = sub.latest_run
    run.status, run.status_reason, run.tries = Status.ERROR.value, f"{reason} (gave up after 3 tries)", 3
    sub.status = Status.ERROR.value
    db.session.commit()


SAID = {
    "en": ("The grader failed on the server's side", "did not complete"),
    "zh": ("评分程序在服务器端出错", "没有完成"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("how", ["grader_error", "given_up"])
def test_a_failed_grading_tells_the_student_what_was_seen_in_their_language_and_no_internals(
        client, web, course, lang, how, monkeypatch):
    sub = web.submit(course["alice"])
    if how == "grader_error":
        grader_error(web, sub, monkeypatch)
    else:
        given_up(sub)
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    page = html.unescape(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    said = SAID[lang][0 if how == "grader_error" else 1]
    assert said in page
    for internal in ("FileNotFoundError", "/srv/autograder", "Errno", "/data/blobs", "gave up after"):
        assert internal not in page, internal
    status = client.get(f"/submissions/{sub.id}/status").json
    assert said in (status.get("reason") or "") and "Errno" not in str(status)
    token = web.f.token(course["alice"])
    api = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}", headers=bearer(token)).json
    assert "FileNotFoundError" not in str(api) and "Errno" not in str(api)


def test_the_instructor_still_sees_the_reason(client, web, course):
    sub = web.submit(course["alice"])
    given_up(sub)
    web.login(client, course["teacher"])
    page = client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True)
    assert "submission files unreadable" in page
    assert db.session.get(GradingRun, sub.latest_run.id).status_reason.startswith("submission files")
