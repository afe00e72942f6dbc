"""Round 36: the similarity page while its report waits or runs said the report's stored status, in
English on a zh page ("报告 3：queued…"); it says it as the status badges of every other page do."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import SimilarityReport


@pytest.mark.parametrize(("lang", "status", "said"), [
    ("zh", "queued", "报告 {n} 正在排队…"), ("zh", "running", "报告 {n} 正在运行：正在比对各份提交…"),
    ("en", "queued", "Report {n} is queued…"), ("en", "running", "Report {n} is running: the submissions are being compared…"),
])
def test_a_waiting_report_says_its_status_in_the_readers_language(client, web, course, lang, status, said):
    report = SimilarityReport(assignment_id=course["assignment"].id, requested_by=course["teacher"].id,
                              status=status)
    db.session.add(report)
    db.session.commit()
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.get("/instructor/similarity").get_data(as_text=True)
    assert said.format(n=report.id) in page
