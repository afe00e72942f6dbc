"""Round 34: the class view's and the roster's search find a name however it is typed.

Both compared the lower-cased text as typed with the name as stored: an instructor typing 王小明 found
no "王 小明" (a roster that writes a space between family and given name), 王晓明 no 王曉明 (a student
from Taiwan or Hong Kong), ＡＬＩＣＥ (an input method left in full-width mode) nobody. Both now match
through app.views_helpers.search_key (NFKC, simplified Chinese, case folded, no spaces).
"""

from __future__ import annotations

import re

import pytest

from tests.web.test_course_management import switch

PEOPLE = {"wxm@example.edu": "王 小明", "wxm2@example.edu": "王曉明", "zw@example.edu": "Zhang\u3000Wei",
          "lw@example.edu": "Li Wen"}


def _listed(page: str) -> set[str]:
    return set(re.findall(r"[\w.%+-]+@example\.edu", page)) & set(PEOPLE)


@pytest.fixture
def people(factory):
    return {email: factory.student(email=email, name=name) for email, name in PEOPLE.items()}


QUERIES = [
    ("王小明", {"wxm@example.edu"}),                 # the roster writes "王 小明"
    ("王晓明", {"wxm2@example.edu"}),                # simplified typed, traditional stored
    ("曉明", {"wxm2@example.edu"}),
    ("ｚｈａｎｇ ｗｅｉ", {"zw@example.edu"}),          # full-width, and a full-width space stored
    ("ZHANGWEI", {"zw@example.edu"}),
    ("li_", set()),                                   # '_' is a letter, not a wildcard
]


@pytest.mark.parametrize("page", ["/instructor/", "/instructor/roster"])
def test_a_name_is_found_however_it_is_typed(client, web, course, people, page):
    switch(client, web, course["teacher"])
    for q, found in QUERIES:
        resp = client.get(page, query_string={"q": q})
        assert resp.status_code == 200
        assert _listed(resp.get_data(as_text=True)) == found, q
