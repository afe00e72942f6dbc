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
