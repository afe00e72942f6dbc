"""Round 21: expired idempotency keys are forgotten without being looked up.

Round 20 kept keys for 24 hours but forgot one only when a request sent it again: a key never sent
again (nearly all of them) stayed in its row and in its table's unique index for ever. Now
app/idempotency.purge() forgets every key past RETENTION in the four tables that keep keys; the
worker's sweeper calls it once an hour, and `autograder db purge-keys` does it by hand.
"""

from __future__ import annotations

import time
from datetime import timedelta

from app.extensions import db
from app.idempotency import RETENTION, keyed_columns, purge
from app.models import AnsweredRegradeKey, GradingRun, RegradeBatch, SimilarityReport, Submission
from tests.web.test_api import bearer
from tests.web.test_uploads_round19 import send


def _age(model, column: str, hours: float) -> None:
    db.session.expire_all()
    for row in db.session.query(model):
        setattr(row, column, getattr(row, column) - timedelta(hours=hours))
    db.session.commit()


def keys() -> dict[str, list]:
    db.session.expire_all()
    return {column.class_.__tablename__: sorted(v for v in db.session.scalars(db.select(column)) if v is not None)
            for column, _born in keyed_columns()}


def keyed_everywhere(client, web, course) -> None:
    """One key in each table: an upload, a single regrade, a batch, a similarity check, and (round 33)
    a single regrade answered with the first grading its attempt was waiting for."""
    alice = web.f.token(course["alice"])
    teacher = bearer(web.f.token(course["teacher"]))
    assert send(client, alice, key="upload-1").status_code == 202
    sub = db.session.query(Submission).one()
    web.grade(sub)
    assert client.post(f"/api/v1/submissions/{sub.id}/regrade", headers=teacher | {"Idempotency-Key": "r1"}
                       ).status_code == 202
    assert client.post("/api/v1/regrades", json={"scope": "all"}, headers=teacher | {"Idempotency-Key": "b1"}
                       ).status_code == 202
    assert client.post("/api/v1/similarity", json={}, headers=teacher | {"Idempotency-Key": "s1"}).status_code == 202
    assert send(client, alice, key="upload-2").status_code == 202
    waiting = db.session.query(Submission).order_by(Submission.id.desc()).first()
    assert client.post(f"/api/v1/submissions/{waiting.id}/regrade", headers=teacher | {"Idempotency-Key": "w1"}
                       ).json["already_waiting"] is True


def test_purge_forgets_every_key_past_24_hours_in_every_table_and_keeps_the_rows(client, web, course):
    keyed_everywhere(client, web, course)
    before = keys()
    assert all(before.values()), before  # each table holds a key
    rows = {m: db.session.query(m).count()
            for m in (Submission, GradingRun, RegradeBatch, SimilarityReport, AnsweredRegradeKey)}
    hours = RETENTION.total_seconds() / 3600 + 1
    for model, born in ((Submission, "created_at"), (GradingRun, "queued_at"), (RegradeBatch, "created_at"),
                        (SimilarityReport, "created_at"), (AnsweredRegradeKey, "created_at")):
        _age(model, born, hours)
    forgotten = purge()
    assert forgotten == {table: len(v) for table, v in before.items()}
    assert not any(keys().values())
    assert {m: db.session.query(m).count() for m in rows} == rows


def test_purge_keeps_keys_inside_24_hours_so_their_retries_are_still_answered(client, web, course):
    keyed_everywhere(client, web, course)
    before = keys()
    _age(Submission, "created_at", RETENTION.total_seconds() / 3600 - 1)
    assert sum(purge().values()) == 0
    assert keys() == before
    again = send(client, web.f.token(course["alice"]), key="upload-1")
    assert again.status_code == 202 and again.json["replayed"] is True


def test_the_purge_command_reports_what_it_forgot(app, client, web, course, monkeypatch):
    from click.testing import CliRunner

    import autograder.cli

    keyed_everywhere(client, web, course)
    uploads = len(keys()["submissions"])
    _age(Submission, "created_at", RETENTION.total_seconds() / 3600 + 1)
    monkeypatch.setattr(autograder.cli, "_app", lambda: app)
    out = CliRunner().invoke(autograder.cli.main, ["db", "purge-keys"])
    assert out.exit_code == 0, out.output
    assert f"forgot {uploads} expired key(s)" in out.output and f"submissions {uploads}" in out.output
    assert keys()["submissions"] == []


def test_the_sweeper_purges_at_start_then_once_an_interval_and_survives_a_failing_purge(app):
    from worker.sweeper import SweeperLoop

    calls: list[float] = []

    def failing_purge() -> dict[str, int]:
        calls.append(time.monotonic())
        raise RuntimeError("database away")

    loop = SweeperLoop(app, sweep_fn=lambda **_kw: [], purge_fn=failing_purge)
    loop.purge_interval_s = 3600.0
    loop._interval = lambda: 0.05  # read outside the app context, from the settings otherwise
    loop.start()
    try:
        deadline = time.monotonic() + 30
        while loop.sweeps < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        loop.stop()
        loop.thread.join(10)
    assert loop.sweeps >= 5  # the failing purge stopped no sweep
    assert len(calls) == 1  # at start, not at every sweep
    loop._last_purge -= 3601  # an hour later
    loop._purge_keys()
    assert len(calls) == 2

