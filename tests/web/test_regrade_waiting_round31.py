"""Round 31: one rule for an attempt still waiting for its first grading, at every regrade entry
point. Round 30 stopped the page and the CLI from queueing a second run for it; the API's single
regrade (POST /api/v1/submissions/<id>/regrade) still added one, so the attempt was graded twice.
Each entry point here regrades a fresh upload (its run still queued) next to a graded attempt:
the graded one gets one new run, the waiting one none, and the answer says so."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun
from tests.web.test_api import bearer
from tests.web.test_instructor import confirm_regrade


def _runs_of(submission_id: int) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count(GradingRun.id)).where(GradingRun.submission_id == submission_id))


@pytest.fixture
def graded_and_waiting(web, course):
    graded = web.submit(course["alice"], audit=False, figure=False)
    web.grade(graded)
    waiting = web.submit(course["bob"], audit=False, figure=False)  # a moment before the regrade
    return graded, waiting


def test_the_api_single_regrade_answers_the_waiting_run_and_queues_none(client, web, course, graded_and_waiting):
    graded, waiting = graded_and_waiting
    headers = bearer(web.f.token(course["teacher"]))
    resp = client.post(f"/api/v1/submissions/{waiting.id}/regrade", headers=headers)
    assert resp.status_code == 202
    assert resp.json["already_waiting"] is True and resp.json["run_id"] == waiting.latest_run.id
    assert "first grading" in resp.json["message"]["en"] and "第一次评分" in resp.json["message"]["zh"]
    assert _runs_of(waiting.id) == 1
    # with a key too, and a retry with that key: still the one waiting run
    keyed = headers | {"Idempotency-Key": "waiting-1"}
    for _ in range(2):
        assert client.post(f"/api/v1/submissions/{waiting.id}/regrade", headers=keyed).json["run_id"] == \
            waiting.latest_run.id
    assert _runs_of(waiting.id) == 1
    # an attempt whose run ended is regraded as before
    again = client.post(f"/api/v1/submissions/{graded.id}/regrade", headers=headers)
    assert again.status_code == 202 and again.json["already_waiting"] is False and "message" not in again.json
    assert _runs_of(graded.id) == 2


def test_the_api_batch_says_how_many_attempts_were_left_to_their_first_grading(client, web, course,
                                                                             graded_and_waiting):
    graded, waiting = graded_and_waiting
    resp = client.post("/api/v1/regrades", json={"scope": "all"}, headers=bearer(web.f.token(course["teacher"])))
    assert resp.status_code == 202
    assert (resp.json["runs_queued"], resp.json["already_waiting"]) == (1, 1)
    assert (_runs_of(graded.id), _runs_of(waiting.id)) == (2, 1)


def test_the_page_regrade_of_one_waiting_attempt_queues_none(client, web, course, graded_and_waiting):
    graded, waiting = graded_and_waiting
    web.login(client, course["teacher"])
    assert confirm_regrade(client, scope="submission", submission_id=waiting.id) == 1
    assert _runs_of(waiting.id) == 1
    assert confirm_regrade(client, scope="submission", submission_id=graded.id) == 1
    assert _runs_of(graded.id) == 2


def test_the_cli_regrade_of_one_waiting_attempt_queues_none(app, monkeypatch, graded_and_waiting):
    from autograder import cli

    graded, waiting = graded_and_waiting
    monkeypatch.setattr(cli, "_app", lambda: app)
    out = CliRunner().invoke(cli.main, ["regrade", "--submission", str(waiting.id)])
    assert out.exit_code == 0, out.output
    assert "queued 0 run(s) (1 attempt(s) still waiting for their first grading" in out.output
    assert _runs_of(waiting.id) == 1
    out = CliRunner().invoke(cli.main, ["regrade", "--submission", str(graded.id)])
    assert "queued 1 run(s);" in out.output and _runs_of(graded.id) == 2


def test_the_regrade_list_says_how_many_attempts_a_batch_left_to_their_first_grading(client, web, course,
                                                                                    graded_and_waiting):
    graded, waiting = graded_and_waiting
    web.login(client, course["teacher"])
    assert confirm_regrade(client, scope="submission", submission_id=waiting.id) == 1
    for lang, text in {"en": "1 left to their first grading", "zh": "1 次提交留给第一次评分"}.items():
        client.get(f"/lang/{lang}")
        page = client.get("/instructor/regrades").get_data(as_text=True)
        assert f"<span data-already-waiting>{text}</span>" in page, lang
