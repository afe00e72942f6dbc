"""Round 48: the Excel workbook headed by the fixed column keys (for instructors whose scripts read an .xlsx)
was reachable only by typing ?format=xlsx&headers=keys: the dashboard linked the key-headed CSV alone. It is
linked beside it, named in the page's language, and the link gives the key row."""

from __future__ import annotations

import html
import re

import pytest

from app.coursework import rubric_for
from app.gradebook import SCORE_HEADER
from app.roster_xlsx import read_workbook
from tests.web.helpers import realistic_result

LABELS = {"zh": "Excel（固定列键，供脚本读取）", "en": "Excel with column keys (for scripts)"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_dashboard_links_the_excel_workbook_with_column_keys(client, web, course, lang):
    web.grade(web.submit(course["alice"], audit=False, figure=False), realistic_result())
    rubric = rubric_for(course["assignment"].suite)
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.get("/instructor/").get_data(as_text=True)
    links = {html.unescape(text): html.unescape(href) for href, text in
             re.findall(r'<a class="button secondary small" href="([^"]+)">([^<]+)</a>', page)}
    href = links[LABELS[lang]]
    assert "format=xlsx" in href and "headers=keys" in href
    book = client.get(href)
    assert book.status_code == 200 and book.headers["Content-Disposition"].count(".xlsx")
    keys = ["email", "name", SCORE_HEADER, *rubric.names, "attempts", "best_attempt", "late_days"]
    assert read_workbook(book.data)[0][1] == keys
