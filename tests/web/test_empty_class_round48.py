"""Round 48, a zh instructor's first visit: a class nobody is enrolled in yet. The dashboard's table read "No
students match." with no filter set (as if a search had found no one); it says the class is empty and links the
roster page, in zh and en. A filter that finds nobody in a class that has students still says so. The exports
of such a class are their header row alone, in every format."""

from __future__ import annotations

import csv
import io
import re

import pytest

from app.roster_xlsx import read_workbook

EMPTY = {"zh": "班级里还没有学生。<a", "en": "No students are enrolled yet. <a"}
NO_MATCH = {"zh": "没有符合条件的学生。", "en": "No students match."}


def _empty_cell(page: str) -> str:
    return re.search(r"<td [^>]*data-empty>(.*?)</td>", page, re.S).group(1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_class_without_students_says_so_and_links_the_roster(client, web, factory, lang):
    factory.assignment()
    web.login(client, factory.instructor(email="teacher@example.edu", name="李老师"))
    client.get(f"/lang/{lang}")
    cell = _empty_cell(client.get("/instructor/").get_data(as_text=True))
    assert cell.startswith(EMPTY[lang]) and 'href="/instructor/roster"' in cell


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_filter_that_finds_nobody_in_a_class_with_students_says_no_one_matches(client, web, course, lang):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    assert _empty_cell(client.get("/instructor/?q=nobody-here").get_data(as_text=True)) == NO_MATCH[lang]


def test_the_exports_of_a_class_without_students_are_their_header_row(client, web, factory):
    factory.assignment()
    web.login(client, factory.instructor(email="teacher@example.edu", name="李老师"))
    client.get("/lang/zh")
    for fmt in ("csv", "canvas", "moodle"):
        resp = client.get("/instructor/gradebook.csv", query_string={"format": fmt})
        rows = list(csv.reader(io.StringIO(resp.data.decode("utf-8-sig"))))
        assert resp.status_code == 200 and rows and rows[0]
        # Canvas's row of maxima only, and only in its format (review E, L6: csv and moodle have none)
        assert rows[1:] == ([] if fmt != "canvas" else rows[1:2]) and all(r[0] == "Points Possible" for r in rows[1:])
    for headers in ("labels", "keys"):
        book = client.get("/instructor/gradebook.csv", query_string={"format": "xlsx", "headers": headers})
        assert book.status_code == 200 and len(read_workbook(book.data)) == 1
