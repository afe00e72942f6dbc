"""The roster search finds the text as typed: '_' and '%' are characters of an email or a name
(li_wei@...), not SQL LIKE wildcards that also listed liawei, lixwei or everyone."""

from __future__ import annotations

import re

import pytest

from tests.web.test_course_management import switch


def _listed(page: str) -> set[str]:
    return set(re.findall(r"[\w.%+-]+@example\.edu", page))


@pytest.mark.parametrize("q, expected", [
    ("li_wei", {"li_wei@example.edu"}),
    ("100%", {"score100%@example.edu"}),
    ("%", {"score100%@example.edu"}),
    ("_", {"li_wei@example.edu"}),
])
def test_the_roster_search_takes_underscore_and_percent_literally(client, web, course, factory, q, expected):
    for email in ("li_wei@example.edu", "liawei@example.edu", "lixwei@example.edu", "score100%@example.edu"):
        factory.student(email=email)
    switch(client, web, course["teacher"])
    page = client.get("/instructor/roster", query_string={"q": q}).get_data(as_text=True)
    assert _listed(page) - {"teacher@example.edu"} == expected
