"""Regrading one attempt from the student's page asked to confirm "Attention: one attempt." without saying whose
attempt or which (round 37): the confirmation names the student and the attempt's number, in zh and en."""

from __future__ import annotations

import html
import re

import pytest

SAID = {"en": "one attempt: Bob Zhang · attempt 2", "zh": "一次提交：Bob Zhang · 第 2 次提交"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_confirmation_of_a_one_attempt_regrade_names_the_student_and_the_attempt(client, web, course, lang):
    web.grade(web.submit(course["bob"], audit=False, figure=False))
    second = web.submit(course["bob"], audit=False, figure=False)
    web.grade(second)
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.get(f"/instructor/regrade?scope=submission&submission_id={second.id}").get_data(as_text=True)
    card = re.search(r'<section class="card" id="regrade-confirm">\s*<p>(.*?)</p>', page, re.S)
    assert card is not None
    said = html.unescape(re.sub(r"<[^>]+>|[\u2068\u2069]", "", card.group(1)))
    assert SAID[lang] in said, said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_one_attempt_batch_names_the_student_and_the_attempt_on_its_pages(client, web, course, lang):
    from tests.web.test_instructor import confirm_regrade

    web.grade(web.submit(course["bob"], audit=False, figure=False))
    second = web.submit(course["bob"], audit=False, figure=False)
    web.grade(second)
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    confirm_regrade(client, scope="submission", submission_id=second.id)
    said = SAID[lang].split(": " if lang == "en" else "：", 1)[1]          # "Bob Zhang · attempt 2"
    from app.extensions import db
    from app.models import RegradeBatch

    batch = db.session.scalars(db.select(RegradeBatch)).one()
    for url in ("/instructor/regrades", f"/instructor/regrades/{batch.id}"):
        page = html.unescape(re.sub(r"[\u2068\u2069]", "", client.get(url).get_data(as_text=True)))
        scope = re.search(r"data-scope>(.*?)</(?:span|td)>", page, re.S)
        assert scope is not None and said in re.sub(r"<[^>]+>", "", scope.group(1)), (url, scope)
