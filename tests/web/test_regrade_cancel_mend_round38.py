"""Review RF's findings on the regrade API and CLI (round 38, brief MF): an empty batch is refused by the API
as by the page and the CLI, a cancel never says "0 attempt(s)", the zh message joins its sentences without a
space, and the CLI's --cancel refuses empty options and says what an out-of-range id names (nothing)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from app import regrading
from app.extensions import db
from app.models import GradingRun, RegradeBatch
from app.storage import BlobStore
from tests.web.helpers import realistic_result
from worker import runs as wruns


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _batches() -> int:
    return db.session.scalar(select(func.count()).select_from(RegradeBatch))


@pytest.mark.parametrize("body", [{"scope": "all"}, {"scope": "counting"},
                                  {"scope": "student", "student": "bob@example.edu"}])
def test_the_api_refuses_a_regrade_over_no_attempt_and_makes_no_batch(client, factory, course, body):
    if body.get("student"):
        body = {**body, "student": course["bob"].email}
    resp = client.post("/api/v1/regrades", headers=bearer(factory.token(course["teacher"])), json=body)
    assert (resp.status_code, resp.json["code"]) == (409, "nothing_to_regrade")
    assert resp.json["message"]["en"].startswith("Nothing to regrade: ")
    assert resp.json["message"]["zh"].startswith("没有可重新评分的提交：")
    assert _batches() == 0


def test_the_cancel_of_a_batch_that_planned_no_attempt_says_so_not_zero_attempts(client, factory, course):
    a = course["assignment"]
    b = regrading.start(a, regrading.plan(a, "all"), course["teacher"])   # as the API made them before
    resp = client.delete(f"/api/v1/regrades/{b.id}", headers=bearer(factory.token(course["teacher"])))
    assert (resp.status_code, resp.json["code"]) == (409, "nothing_to_cancel")
    assert resp.json["message"] == {"en": "No run was left to cancel: this batch planned no attempt.",
                                    "zh": "没有可以取消的评分：这一批没有计划任何提交。"}


def test_the_zh_cancel_message_joins_its_sentences_without_a_space(app, client, web, factory, course):
    for who in ("alice", "bob"):
        web.grade(web.submit(course[who], audit=False, figure=False), realistic_result())
    a = course["assignment"]
    b = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    first = db.session.scalars(select(GradingRun.id).where(GradingRun.trigger == b.trigger)
                               .order_by(GradingRun.id)).first()
    assert wruns.claim(first, "w", BlobStore(app.config["UPLOAD_DIR"])) is not None
    resp = client.delete(f"/api/v1/regrades/{b.id}", headers=bearer(factory.token(course["teacher"])))
    assert (resp.json["cancelled"], resp.json["running"]) == (1, 1)
    en, zh = resp.json["message"]["en"], resp.json["message"]["zh"]
    assert "took them: those attempts keep their score and status. 1 run(s) were already running" in en
    assert zh.count("。") == 2 and "。 " not in zh


@pytest.mark.parametrize("args, said", [
    (["--cancel", "99999999999"], "no regrade batch 99999999999"),
    (["--cancel", "0"], "no regrade batch 0"),
    (["--scope", "submission", "--submission", "99999999999"], "no submission 99999999999"),
    (["--submission", "99999999999"], "no submission 99999999999"),
])
def test_the_cli_says_an_id_out_of_range_names_nothing(app, monkeypatch, course, args, said):
    """On PostgreSQL (the `app` fixture) the lookup raised DataError: exit 1 and no message."""
    from autograder import cli

    monkeypatch.setattr(cli, "_app", lambda: app)
    out = CliRunner().invoke(cli.main, ["regrade", *args])
    assert (out.exit_code, out.exception.__class__) == (1, SystemExit), out.output
    assert said in out.output


@pytest.mark.parametrize("option", ["--student", "--assignment"])
def test_the_cli_cancel_refuses_another_option_even_given_empty(app, monkeypatch, course, option):
    from autograder import cli

    monkeypatch.setattr(cli, "_app", lambda: app)
    out = CliRunner().invoke(cli.main, ["regrade", "--cancel", "1", option, ""])
    assert out.exit_code == 2 and "--cancel BATCH takes no other option" in out.output
