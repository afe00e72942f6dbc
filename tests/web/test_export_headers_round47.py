"""Round 47: the plain gradebook exports (CSV, Excel) were headed by the rubric's English keys (formula_shape,
best_attempt, late_days) for a zh instructor. Downloaded from the page they are headed in the reader's language,
each score column with its maximum; headers=keys gives the fixed key row scripts read (the API's default, so a
script's columns do not move), and the Canvas and Moodle layouts keep the headers their importers match."""

from __future__ import annotations

import csv
import io

import pytest

from app.coursework import rubric_for
from app.gradebook import SCORE_HEADER
from app.roster_xlsx import read_workbook
from tests.web.helpers import realistic_result

KEYS_TAIL = ["attempts", "best_attempt", "late_days"]


def _header(body: bytes) -> list[str]:
    return next(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


@pytest.fixture
def graded(web, course):
    web.grade(web.submit(course["alice"], audit=False, figure=False), realistic_result())
    return course


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pages_csv_and_excel_are_headed_in_the_readers_language(client, web, graded, lang):
    rubric = rubric_for(graded["assignment"].suite)
    web.login(client, graded["teacher"])
    client.get(f"/lang/{lang}")
    header = _header(client.get("/instructor/gradebook.csv").data)
    labels = [rubric.label(n, lang) for n in rubric.names]
    assert len(header) == 3 + len(labels) + 3
    for cell, label, name in zip(header[3:-3], labels, rubric.names, strict=True):
        assert cell.startswith(label) and name not in cell  # 公式与 shape（满分 25）, not formula_shape
    if lang == "zh":
        assert header[:2] == ["邮箱", "姓名"] and header[3].endswith("（满分 25）")
        assert not any(k in c for c in header for k in KEYS_TAIL)
        assert all("," not in c and "(" not in c for c in header)  # full-width punctuation in zh
    else:
        assert header[:2] == ["Email", "Name"] and header[3].endswith(" (of 25)")
    book = client.get("/instructor/gradebook.csv", query_string={"format": "xlsx"}).data
    assert read_workbook(book)[0][1] == header


def test_the_key_row_is_the_same_in_every_language_and_the_apis_default(app, client, web, factory, graded):
    rubric = rubric_for(graded["assignment"].suite)
    keys = ["email", "name", SCORE_HEADER, *rubric.names, *KEYS_TAIL]
    web.login(client, graded["teacher"])
    for lang in ("zh", "en"):
        client.get(f"/lang/{lang}")
        assert "headers=keys" in client.get("/instructor/").get_data(as_text=True)
        assert _header(client.get("/instructor/gradebook.csv", query_string={"headers": "keys"}).data) == keys
    token = factory.token(graded["teacher"])
    auth = {"Authorization": f"Bearer {token}", "Accept-Language": "zh-CN"}
    client = app.test_client()  # a script: no page session, its language from Accept-Language
    assert _header(client.get("/api/v1/gradebook?format=csv", headers=auth).data) == keys
    labelled = _header(client.get("/api/v1/gradebook?format=csv&headers=labels", headers=auth).data)
    assert labelled[:2] == ["邮箱", "姓名"]
    bad = client.get("/api/v1/gradebook?format=csv&headers=zh", headers=auth)
    assert bad.status_code == 400 and bad.json["code"] == "bad_headers" and bad.json["accepted"] == ["labels", "keys"]


def test_an_unknown_header_style_is_refused_on_the_page(client, web, graded):
    web.login(client, graded["teacher"])
    assert client.get("/instructor/gradebook.csv", query_string={"headers": "zh"}).status_code == 400


def test_the_lms_layouts_keep_their_importers_headers_in_zh(client, web, graded):
    web.login(client, graded["teacher"])
    client.get("/lang/zh")
    canvas = list(csv.reader(io.StringIO(client.get("/instructor/gradebook.csv?format=canvas").data.decode("utf-8-sig"))))
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert canvas[1][0] == "Points Possible"
    moodle = _header(client.get("/instructor/gradebook.csv?format=moodle").data)
    assert moodle[:3] == ["First name", "Last name", "Email address"]
