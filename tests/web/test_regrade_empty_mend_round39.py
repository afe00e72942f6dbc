"""Round 39 mend: the page of a regrade batch that planned no attempt says it is empty and no longer also shows what
a regrade under way shows (an empty progress bar, "0 run(s)", "Students whose score changed: none so far", the
uploads waiting ahead of its runs, an empty table), which contradicted it."""

from __future__ import annotations

import pytest

from app import regrading
from tests.web.helpers import realistic_result

UNDER_WAY = ("<progress", "data-count=", "data-uploads-ahead", "data-arrival-order", "data-changed", "<table")
UNDER_WAY_SAID = {"en": ("0 run(s)", "Students whose score changed:"), "zh": ("0 次评分", "成绩有变化的学生：")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_empty_batch_page_shows_no_progress_counts_uploads_ahead_or_students_changed(client, web, course, lang):
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])   # no attempt yet: as the API made them
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
    assert "data-empty-batch" in page
    assert [m for m in UNDER_WAY if m in page] == []
    assert [t for t in UNDER_WAY_SAID[lang] if t in page] == []


def test_a_batch_with_runs_still_shows_its_progress_counts_and_students_changed(client, web, course):
    web.grade(web.submit(course["alice"], audit=False, figure=False), realistic_result())
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    assert batch.runs_queued == 1
    web.login(client, course["teacher"])
    client.get("/lang/en")
    page = client.get(f"/instructor/regrades/{batch.id}").get_data(as_text=True)
    assert "data-empty-batch" not in page
    assert [m for m in ("<progress", "data-count=", "data-changed", "<table", "1 run(s)") if m not in page] == []
