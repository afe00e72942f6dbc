"""Round 21: the regrade pages name a batch's scope in the reader's language.

The batch page and the list of batches printed the stored key ("student", "submission",
"counting", "all") in zh and en alike, where the confirmation page had said what it meant."""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.models import RegradeBatch
from tests.web.test_instructor import confirm_regrade

LABELS = {
    "en": {"counting": "the attempt that counts for each student", "all": "every attempt of every student",
           "student": "every attempt of Alice", "submission": "one attempt"},
    "zh": {"counting": "每位学生计分的那次提交", "all": "所有学生的所有提交",
           "student": "Alice 的所有提交", "submission": "一次提交"},
}


def _scope_cells(html: str) -> list[str]:
    html = re.sub(r"</?bdi>", "", html)   # a name is isolated in <bdi> (round 35)
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r'data-scope>(.*?)</', html, re.S)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scope", ["counting", "all", "student", "submission"])
def test_regrade_batch_and_list_pages_name_the_scope_in_the_readers_language(client, web, course, lang, scope):
    alice = course["alice"]
    alice.name = "Alice"
    db.session.commit()
    sub = web.submit(alice)
    web.grade(sub)
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    extra = {"student": {"user_id": alice.id}, "submission": {"submission_id": sub.id}}.get(scope, {})
    confirm_regrade(client, scope=scope, a=course["assignment"].slug, **extra)
    batch = db.session.query(RegradeBatch).one()
    label = LABELS[lang][scope]
    confirm = client.post("/instructor/regrade", data={"scope": scope, "a": course["assignment"].slug, **extra})
    # the words the confirmation used (a name is isolated in <bdi>: round 35)
    assert label in re.sub(r"</?bdi>", "", confirm.get_data(as_text=True))
    for page in (f"/instructor/regrades/{batch.id}", "/instructor/regrades"):
        cells = _scope_cells(client.get(page).get_data(as_text=True))
        assert len(cells) == 1 and cells[0].startswith(label), (page, cells)
        assert not re.search(rf"\b{scope}\b", cells[0]), (page, cells)
