"""A class regrade while students keep uploading: an attempt still waiting for its first grading (an
upload a moment before the regrade) got a regrade run too and was graded twice. The batch now
leaves it to its first grading, says so on its page (zh and en) and in its progress, and the
counted attempt stays the graded one while the regrade is in flight."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from app import gradebook, regrading
from app.extensions import db
from app.models import GradingRun, RegradeBatch
from app.storage import BlobStore
from tests.web.helpers import realistic_result
from tests.web.test_instructor import confirm_regrade
from worker.runs import claim

AHEAD = {"en": "Waiting now:", "zh": "当前等待中："}
NOTE = {"en": "1 attempt(s) were still waiting for their first grading",
        "zh": "1 次提交仍在等待第一次评分"}


def _waiting_runs_per_submission() -> dict[int, int]:
    return dict(db.session.execute(
        select(GradingRun.submission_id, func.count(GradingRun.id))
        .where(GradingRun.status == "queued").group_by(GradingRun.submission_id)).all())


def test_an_attempt_waiting_for_its_run_is_not_queued_again(client, web, course):
    web.grade(web.submit(course["alice"], audit=False, figure=False))
    fresh = web.submit(course["bob"], audit=False, figure=False)  # a moment before the regrade: waiting
    web.login(client, course["teacher"])
    assert confirm_regrade(client, scope="all", a=course["assignment"].slug) == 2
    batch = db.session.query(RegradeBatch).one()
    assert batch.runs_queued == 1
    assert set(_waiting_runs_per_submission().values()) == {1}
    for lang, note in NOTE.items():
        client.get(f"/lang/{lang}")
        assert note in client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
    progress = client.get(f"/instructor/regrades/{batch.id}/progress").json
    # Bob's upload is served first (app/queue.py): the page says what the batch waits behind.
    assert (progress["already_waiting"], progress["uploads_ahead"]) == (1, 1)
    for lang, text in AHEAD.items():
        client.get(f"/lang/{lang}")
        page = client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
        assert re.search(text + r"\s*<strong data-uploads-ahead>1</strong>", page), lang
    assert fresh.latest_run.trigger == "submit"


def test_the_counted_attempt_does_not_switch_while_a_regrade_is_in_flight(web, course):
    a = course["assignment"]
    best = web.submit(course["alice"], audit=False, figure=False)
    web.grade(best, realistic_result())
    worse = web.submit(course["alice"], audit=False, figure=False)
    web.grade(worse, realistic_result(fail_mask=True))

    def counted():
        row = next(r for r in gradebook.class_rows(a) if r.id == course["alice"].id)
        return row.counting.id, row.counting.score.total

    before = counted()
    assert before[0] == best.id
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    assert counted() == before                    # queued
    run = db.session.scalars(select(GradingRun).where(GradingRun.trigger == batch.trigger,
                                                      GradingRun.submission_id == best.id)).one()
    assert claim(run.id, "test-worker", BlobStore(web.app.config["UPLOAD_DIR"])) is not None
    db.session.expire_all()
    assert counted() == before                    # running
