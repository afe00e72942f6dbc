"""Round 39: a regrade batch over no attempt (the API queued such batches before round 38 refused them) is said to be
empty on the instructor's pages, in zh and en. It read as a regrade under way: "0 run(s)", an empty progress bar,
"Students whose score changed: none so far", and "0 of 0 done" in the list of batches."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app import regrading
from app.extensions import db
from app.models import RegradeBatch
from tests.web.helpers import realistic_result

EMPTY = {"en": ("Empty batch: it planned no attempt, so nothing was graded and no score changed. It was created "
                "before regrades of no attempt were refused.", "empty batch (planned no attempt)"),
         "zh": ("空批次：这一批没有计划任何提交，所以没有重新评分，也没有分数改变。它创建于系统开始拒绝空的重新评分之前。",
                "空批次：没有计划任何提交")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_batch_that_planned_no_attempt_is_said_empty_on_its_page_and_in_the_list(client, web, course, lang):
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])   # no attempt yet: as the API made them
    assert (batch.runs_queued, batch.already_waiting) == (0, 0)
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
    assert "data-empty-batch" in page and EMPTY[lang][0] in page
    listing = client.get("/instructor/regrades").get_data(as_text=True)
    assert EMPTY[lang][1] in listing
    assert ("0 of 0 done" if lang == "en" else "0 / 0") not in listing


def test_a_batch_with_runs_or_attempts_left_to_their_first_grading_is_not_said_empty(client, web, course):
    web.grade(web.submit(course["alice"], audit=False, figure=False), realistic_result())
    web.submit(course["bob"], audit=False, figure=False)            # still waiting for its first grading
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    assert batch.runs_queued == 1 and batch.already_waiting == 1
    web.login(client, course["teacher"])
    client.get("/lang/en")
    assert "data-empty-batch" not in client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
    assert "data-empty-batch" not in client.get("/instructor/regrades").get_data(as_text=True)
    assert db.session.scalars(select(RegradeBatch)).one().id == batch.id
