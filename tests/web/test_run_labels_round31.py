"""Round 31: a student's grading history labelled a class regrade's run (trigger "batch:<id>") as
"submission": the student page read only triggers starting with "regrade", the instructor's page
every trigger but "submit". One rule now (GradingRun.is_regrade), in zh and en."""

from __future__ import annotations

import re

from sqlalchemy import select

from app import regrading
from app.extensions import db
from app.models import GradingRun
from tests.web.helpers import realistic_result

LABEL = {"en": ("regrade", "submission"), "zh": ("重新评分", "提交")}


def test_a_class_regrade_run_is_labelled_a_regrade_on_the_students_page(client, web, course):
    a = course["assignment"]
    sub = web.submit(course["alice"], a, audit=False, figure=False)
    web.grade(sub, realistic_result(grader_version="v1"))
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    run = db.session.scalars(select(GradingRun).where(GradingRun.trigger == batch.trigger)).one()
    web.grade(sub, realistic_result(grader_version="v2"), run=run)
    web.login(client, course["alice"])
    for lang, (regrade, submission) in LABEL.items():
        client.get(f"/lang/{lang}")
        page = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
        assert re.search(rf"<td>#{run.id}</td><td>{regrade}</td>", page), lang
        assert re.search(rf"<td>#{sub.runs[0].id}</td><td>{submission}</td>", page), lang
