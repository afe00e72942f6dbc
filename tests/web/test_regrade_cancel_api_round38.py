"""A queued regrade batch is cancelled through the API (DELETE /api/v1/regrades/<id>) and the CLI
(`autograder regrade --cancel BATCH`) as on its page: the same guarded DELETE, idempotent, and refusals
that say what was found, in both languages (round 38, brief F item 1)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from app import regrading
from app.extensions import db
from app.models import GradingRun, RegradeBatch, Status, Submission
from app.storage import BlobStore
from tests.web.helpers import realistic_result
from worker import runs as wruns


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def batch(web, course) -> RegradeBatch:
    """A batch of two runs, both still queued, over two graded attempts."""
    for who in ("alice", "bob"):
        web.grade(web.submit(course[who], audit=False, figure=False), realistic_result())
    a = course["assignment"]
    return regrading.start(a, regrading.plan(a, "all"), course["teacher"])


def _queued(b: RegradeBatch) -> int:
    return len(db.session.scalars(select(GradingRun).where(GradingRun.trigger == b.trigger,
                                                           GradingRun.status == Status.QUEUED.value)).all())


def test_the_api_cancels_a_queued_batch_once_and_a_retry_says_it_was_already_cancelled(client, factory, course,
                                                                                       batch):
    token = factory.token(course["teacher"])
    first = client.delete(f"/api/v1/regrades/{batch.id}", headers=bearer(token))
    assert first.status_code == 200, first.json
    assert (first.json["outcome"], first.json["cancelled"], first.json["cancelled_in_all"]) == ("cancelled", 2, 2)
    assert "2 run(s) cancelled" in first.json["message"]["en"] and first.json["message"]["zh"]
    assert _queued(batch) == 0
    assert {s.status for s in db.session.scalars(select(Submission))} == {Status.GRADED.value}
    again = client.delete(f"/api/v1/regrades/{batch.id}", headers=bearer(token))
    assert again.status_code == 200
    assert (again.json["outcome"], again.json["cancelled"], again.json["cancelled_in_all"]) == (
        "already_cancelled", 0, 2)
    assert "had already been cancelled" in again.json["message"]["en"]
    assert "都已在之前取消" in again.json["message"]["zh"]


def test_the_api_says_nothing_to_cancel_when_workers_took_every_run(app, client, factory, course, batch):
    store = BlobStore(app.config["UPLOAD_DIR"])
    for run in db.session.scalars(select(GradingRun).where(GradingRun.trigger == batch.trigger)).all():
        assert wruns.claim(run.id, "worker-a", store) is not None
    resp = client.delete(f"/api/v1/regrades/{batch.id}", headers=bearer(factory.token(course["teacher"])))
    assert resp.status_code == 409
    assert resp.json["code"] == "nothing_to_cancel"
    assert "a worker had already taken every run" in resp.json["message"]["en"]
    assert "每个评分都已被评分进程取走" in resp.json["message"]["zh"]


def test_the_api_refuses_a_students_token_and_an_unknown_batch_in_both_languages(client, factory, course, batch):
    student = client.delete(f"/api/v1/regrades/{batch.id}", headers=bearer(factory.token(course["alice"])))
    assert (student.status_code, student.json["code"]) == (403, "forbidden")
    assert student.json["message"]["zh"].startswith("只有教师")
    assert _queued(batch) == 2
    unknown = client.delete(f"/api/v1/regrades/{batch.id + 99}", headers=bearer(factory.token(course["teacher"])))
    assert (unknown.status_code, unknown.json["code"]) == (404, "batch_not_found")
    assert f"No regrade batch {batch.id + 99}" in unknown.json["message"]["en"]
    assert f"没有第 {batch.id + 99} 批重新评分" in unknown.json["message"]["zh"]
    assert client.delete(f"/api/v1/regrades/{batch.id}").status_code == 401


def test_the_cli_cancels_a_batch_and_says_so_and_fails_on_an_unknown_one(app, monkeypatch, batch):
    from autograder import cli

    monkeypatch.setattr(cli, "_app", lambda: app)
    out = CliRunner().invoke(cli.main, ["regrade", "--cancel", str(batch.id)])
    assert out.exit_code == 0, out.output
    assert f"batch {batch.id}: 2 run(s) cancelled before any worker took them" in out.output
    assert _queued(batch) == 0
    again = CliRunner().invoke(cli.main, ["regrade", "--cancel", str(batch.id)])
    assert again.exit_code == 0 and "had already been cancelled" in again.output
    missing = CliRunner().invoke(cli.main, ["regrade", "--cancel", str(batch.id + 99)])
    assert missing.exit_code == 1 and f"no regrade batch {batch.id + 99}" in missing.output
    mixed = CliRunner().invoke(cli.main, ["regrade", "--cancel", str(batch.id), "--scope", "all"])
    assert mixed.exit_code == 2 and "--cancel BATCH takes no other option" in mixed.output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_batch_that_queued_no_run_is_not_said_to_have_been_taken_by_workers(client, web, factory, course, lang):
    """A regrade of attempts all still waiting for their first grading (a server whose workers are busy or
    stopped) queues no run, and its cancel said "a worker had already taken every run": none was ever queued."""
    from tests.web.test_instructor import confirm_regrade

    web.submit(course["alice"], audit=False, figure=False)                       # waiting: no worker
    a = course["assignment"]
    b = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    assert (b.runs_queued, b.already_waiting) == (0, 1)
    resp = client.delete(f"/api/v1/regrades/{b.id}", headers=bearer(factory.token(course["teacher"])))
    assert (resp.status_code, resp.json["code"]) == (409, "nothing_to_cancel")
    said = {"en": "this batch queued none, since its 1 attempt(s) were still waiting for their first grading",
            "zh": "这一批没有排队任何评分，因为它的 1 次提交都仍在等待第一次评分"}
    taken = {"en": "a worker had already taken", "zh": "评分进程取走"}
    assert said[lang] in resp.json["message"][lang] and taken[lang] not in resp.json["message"][lang]
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    confirm_regrade(client, scope="all", a=a.slug)
    page_batch = db.session.scalars(select(RegradeBatch).order_by(RegradeBatch.id.desc())).first()
    page = client.post(f"/instructor/regrades/{page_batch.id}/cancel", follow_redirects=True).get_data(as_text=True)
    assert said[lang] in page and taken[lang] not in page
