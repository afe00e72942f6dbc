"""Round 36: the course log showed its newest 500 entries and nothing else: a term of overrides,
extensions and regrades for 300 students passes that, and the older entries could not be reached (the
page did not say there were more). It now pages back, each kind filter too."""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.models import CourseLog

LOG_PAGE = 500   # app.instructor.LOG_PAGE


def _comments(html: str) -> list[str]:
    return re.findall(r"<td>(entry-\d+)</td></tr>", html)


def _older(html: str) -> str | None:
    m = re.search(r'<a href="([^"]+)" data-older>', html)
    return m.group(1).replace("&amp;", "&") if m else None


@pytest.mark.parametrize(("lang", "older", "newest"), [("en", "Older entries", "Newest entries"),
                                                      ("zh", "更早的记录", "最新的记录")])
def test_entries_past_the_newest_page_are_reached_by_paging_back(client, web, course, lang, older, newest):
    n = LOG_PAGE + 3
    db.session.add_all([CourseLog(kind="extension", student_id=course["alice"].id, comment=f"entry-{i}")
                        for i in range(n)])
    db.session.add(CourseLog(kind="drop", student_id=course["bob"].id, comment="entry-drop"))
    db.session.commit()
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    first = client.get("/instructor/log?kind=extension").get_data(as_text=True)
    assert len(_comments(first)) == LOG_PAGE and _comments(first)[0] == f"entry-{n - 1}"
    assert older in first and newest not in first
    second = client.get(_older(first)).get_data(as_text=True)
    assert _comments(second) == ["entry-2", "entry-1", "entry-0"]      # the oldest ones, and the filter kept
    assert _older(second) is None and newest in second
    # unfiltered: the drop, then the newest extensions; the last page ends with the oldest entry
    every = client.get("/instructor/log").get_data(as_text=True)
    assert "entry-drop" in every and _older(every) is not None
    assert _comments(client.get(_older(every)).get_data(as_text=True))[-1] == "entry-0"


def test_a_log_that_fits_one_page_has_no_page_links(client, web, course):
    db.session.add(CourseLog(kind="extension", student_id=course["alice"].id, comment="entry-0"))
    db.session.commit()
    web.login(client, course["teacher"])
    page = client.get("/instructor/log").get_data(as_text=True)
    assert _comments(page) == ["entry-0"] and 'id="log-pages"' not in page


def _what_cells(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", c)).strip()
            for c in re.findall(r"<td data-kind>(.*?)</td>", html, re.S)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_two_labs_each_entry_names_the_lab_it_changed(client, web, course, factory, lang):
    """Two labs' deadline changes read the same ("deadline: before → after"): which lab's was not said."""
    numpy_lab = factory.assignment("numpy-lab", title="NumPy lab <2>", suite="attention_numpy")
    for a in (course["assignment"], numpy_lab):
        db.session.add(CourseLog(kind="setting", assignment_id=a.id, subject="late_days_allowed", before=3, after=5))
    db.session.add(CourseLog(kind="drop", student_id=course["bob"].id))      # a course-wide entry: no lab
    db.session.commit()
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    html = client.get("/instructor/log").get_data(as_text=True)
    drop, numpy_cell, attention_cell = _what_cells(html)
    assert numpy_cell.endswith("NumPy lab &lt;2&gt;") and attention_cell.endswith(course["assignment"].title)
    assert html.count("data-assignment") == 2


def test_with_one_lab_entries_do_not_repeat_its_name(client, web, course):
    db.session.add(CourseLog(kind="setting", assignment_id=course["assignment"].id, subject="late_days_allowed",
                             before=3, after=5))
    db.session.commit()
    web.login(client, course["teacher"])
    assert "data-assignment" not in client.get("/instructor/log").get_data(as_text=True)
