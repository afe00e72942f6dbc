"""Round 36: the dashboard sorted by a column, both ways. Reversing a score column reversed the whole
list, so the students with no score (no attempt, or none graded: 50 of them at a deadline) came first,
above the lowest scores the TA was looking for; and reversing any column reversed the names within a
tie (a status's students from Z to A). Blank cells stay last in both directions, ties by name. The status
column sorted by the stored keys' English spelling; it follows the status filter's order."""

from __future__ import annotations

import re

import pytest

from tests.web.helpers import realistic_result


@pytest.fixture
def graded_class(web, course):
    """Alice 96 (2 attempts), Carol 92 (1), Bob and Dan no attempt, Eve queued."""
    f = web.f
    carol = f.student(email="carol@example.edu", name="Carol Chen")
    f.student(email="dan@example.edu", name="Dan Du")
    eve = f.student(email="eve@example.edu", name="Eve Lin")
    web.grade(web.submit(course["alice"], audit=False, figure=False), realistic_result(fail_mask=True))
    web.grade(web.submit(course["alice"], audit=False, figure=False), realistic_result())
    web.grade(web.submit(carol, audit=False, figure=False), realistic_result(fail_mask=True))
    web.submit(eve, audit=False, figure=False)
    return course


def _order(client, **args) -> list[str]:
    html = client.get("/instructor/", query_string=args).get_data(as_text=True)
    return [e.split("@")[0] for e in re.findall(r'<div class="small muted">([^<]+@example\.edu)</div>', html)]


@pytest.mark.parametrize("column", ["best", "latest"])
def test_a_score_column_keeps_students_without_a_score_last_both_ways(client, web, graded_class, column):
    web.login(client, graded_class["teacher"])
    up = _order(client, sort=column)
    down = _order(client, sort=column, dir="desc")
    assert up == ["alice", "carol", "bob", "dan", "eve"]
    assert down == ["carol", "alice", "bob", "dan", "eve"]


def test_reversing_a_column_keeps_ties_in_name_order(client, web, graded_class):
    web.login(client, graded_class["teacher"])
    # statuses in the filter's order (no attempt, queued, running, graded, error), each tie by name
    assert _order(client, sort="status") == ["bob", "dan", "eve", "alice", "carol"]
    assert _order(client, sort="status", dir="desc") == ["alice", "carol", "eve", "bob", "dan"]
    assert _order(client, sort="attempts", dir="desc") == ["bob", "dan", "carol", "eve", "alice"]
    assert _order(client, sort="name", dir="desc") == ["eve", "dan", "carol", "bob", "alice"]


def _filter_form(html: str) -> dict[str, str]:
    form = re.search(r'<form class="toolbar" method="get">(.*?)</form>', html, re.S).group(1)
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))


def test_filtering_a_sorted_list_keeps_its_sort(client, web, graded_class):
    """The filter form sent the search and the status only: a list sorted by Counted, lowest first, went
    back to names when the TA then chose a status."""
    web.login(client, graded_class["teacher"])
    html = client.get("/instructor/", query_string={"sort": "best", "dir": "desc"}).get_data(as_text=True)
    form = _filter_form(html)
    assert (form.get("sort"), form.get("dir")) == ("best", "desc")
    # sent as the browser sends the form: the sort holds, the filter applies
    assert _order(client, **form, status="graded", q="") == ["carol", "alice"]
    assert "sort" not in _filter_form(client.get("/instructor/").get_data(as_text=True))
