"""The similarity report's "N submissions compared" counted files with nothing left to compare: a file that is
only the handout code (empty once it is removed), or the one file with code (nothing to compare it with).
It now counts only the files compared, and says how many were left out and why, in zh and en (round 37)."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import SimilarityReport
from grading.similarity import ALONE, EMPTY, boilerplate_source, comparison
from tests.web.test_similarity import SOURCES, _submit_code

HANDOUT = boilerplate_source("attention")

LEFT_OUT = {
    "en": ("2 submissions compared", "2 latest submission(s) left out of the comparison",
           "2 with nothing left to compare once the handout code is removed"),
    "zh": ("有 2 份最新提交未参与比较", "2 份去掉讲义代码后没有可比较的内容"),
}


def test_a_handout_only_file_and_a_lone_file_are_left_out_by_reason():
    found = comparison({1: HANDOUT, 2: SOURCES["alice"]}, boilerplate=HANDOUT, threshold=0.0)
    assert (found.compared, found.left_out, found.pairs) == ([], {1: EMPTY, 2: ALONE}, [])
    found = comparison({1: HANDOUT, 2: SOURCES["alice"], 3: SOURCES["bob"]}, boilerplate=HANDOUT, threshold=0.0)
    assert (found.compared, found.left_out) == ([2, 3], {1: EMPTY})
    assert [(p.a, p.b) for p in found.pairs] == [(2, 3)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_counts_only_the_files_compared_and_says_why_the_others_were_not(client, web, course,
                                                                                  factory, lang):
    from worker.similarity import run_report

    _submit_code(web, course["alice"], SOURCES["alice"])
    _submit_code(web, course["bob"], SOURCES["bob"])
    _submit_code(web, factory.student(name="Carol Li"), HANDOUT)              # the handout, unchanged
    _submit_code(web, factory.student(name="Dave Wu"), HANDOUT + "\n# done\n")
    report = SimilarityReport(assignment_id=course["assignment"].id, requested_by=course["teacher"].id)
    db.session.add(report)
    db.session.commit()
    assert run_report(report.id) == "done"
    db.session.refresh(report)
    assert (report.submissions_compared, report.left_out) == (2, {"empty": 2})
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.get("/instructor/similarity").get_data(as_text=True)
    for text in LEFT_OUT[lang]:
        assert text in page, text
    body = client.get("/instructor/similarity/status").json
    assert (body["submissions_compared"], body["left_out"]) == (2, {"empty": 2})
