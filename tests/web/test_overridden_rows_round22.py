"""Round 22: a test row of the result page gives the points that count. After an instructor's
override of one test, the category, the total, the dashboard and the export counted the new points
while that test's row still said the automatic ones ("0 / 3" under a total that counted 2): the rows
no longer added up to the total shown above them. The row now shows the automatic points struck
through, the points that count, and a link to the override's reason, for the student and the
instructor, in zh and en."""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.models import Submission
from tests.helpers import rubric_result

ROW = re.compile(r'<code class="test-id">(\w+)</code>.*?<td class="num nowrap">(.*?)</td>', re.S)


def shown_points(html: str) -> dict[str, float]:
    """Each test row's points as a reader sees them: the last number before "/ max"."""
    rows = {}
    for tid, cell in ROW.findall(html.split('id="tests-title"', 1)[1]):
        text = re.sub(r"<s\b.*?</s>", "", cell, flags=re.S)          # struck-through: not what counts
        text = re.sub(r"<[^>]+>", " ", text)
        rows[tid] = float(re.search(r"([\d.]+)\s*/", text).group(1))
    return rows


@pytest.mark.parametrize("lang, note", [("en", "changed by the instructor"), ("zh", "老师已调整")])
def test_test_rows_add_up_to_the_total_after_an_override(client, web, course, lang, note):
    teacher, alice = course["teacher"], course["alice"]
    result = rubric_result("attention", {"test_hand_example", "test_row_sums_are_one"}, audit_score=9)
    sub = web.submit(alice, course["assignment"])
    web.grade(sub, result)
    web.login(client, teacher)
    assert client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "test:test_hand_example", "points": "2", "comment": "手算例子的阈值过严",
                             "seen": "0"}).status_code == 302
    pages = {"instructor": None, "student": None}
    client.get(f"/lang/{lang}")
    pages["instructor"] = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    client.post("/logout")
    web.login(client, alice)
    client.get(f"/lang/{lang}")
    pages["student"] = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    auto = {t["id"]: t["points"] for t in result["tests"]}
    for who, html in pages.items():
        total = float(re.search(r"data-total>([\d.]+)", html).group(1))
        rows = shown_points(html)
        assert set(rows) == set(auto), who
        assert total == result["total"] + 2, (who, total)
        assert rows["test_hand_example"] == 2, who
        assert {k: v for k, v in rows.items() if k != "test_hand_example"} == \
            {k: v for k, v in auto.items() if k != "test_hand_example"}, who
        assert sum(rows.values()) + 9 == pytest.approx(total), who
        assert html.count(note) == 1, who


@pytest.mark.parametrize("lang, note", [("en", "changed by the instructor"), ("zh", "老师已调整")])
def test_who_fails_a_test_page_gives_the_overridden_points(client, web, course, lang, note):
    """The instructor's drill-down from the pass-rate chart (who fails this test) is the same class:
    its Points column said the automatic 0 / 3 for a student whose override counts 2."""
    teacher, alice, bob = course["teacher"], course["alice"], course["bob"]
    for who in (alice, bob):
        web.grade(web.submit(who, course["assignment"]), rubric_result("attention", {"test_hand_example"}))
    sub = db.session.query(Submission).filter_by(student_id=alice.id).one()
    web.login(client, teacher)
    client.get(f"/lang/{lang}")
    assert client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "test:test_hand_example", "points": "2", "comment": "阈值过严",
                             "seen": "0"}).status_code == 302
    html = client.get("/instructor/tests/test_hand_example").get_data(as_text=True)
    cells = {}
    for row in re.findall(r"<tr>(.*?)</tr>", html.split("<tbody", 1)[-1] if "<tbody" in html else html, re.S):
        name = re.search(r">(?:<bdi>)?(Alice Wang|Bob Zhang)(?:</bdi>)?</a>", row)
        if name:
            text = re.sub(r"<[^>]+>", " ", re.sub(r"<s\b.*?</s>", "", row, flags=re.S))
            cells[name.group(1)] = (float(re.search(r"([\d.]+)\s*/\s*3\b", text).group(1)), note in row)
    assert cells == {"Alice Wang": (2.0, True), "Bob Zhang": (0.0, False)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_page_counts_an_overridden_test_as_changed(client, web, course, lang):
    """The compare page is the same class: its categories counted an override while its tests compared
    the automatic points, so a test whose override gave it its points was "unchanged"."""
    teacher, alice = course["teacher"], course["alice"]
    subs = []
    for _ in range(2):
        sub = web.submit(alice, course["assignment"])
        web.grade(sub, rubric_result("attention", {"test_hand_example"}))
        subs.append(sub)
    web.login(client, teacher)
    assert client.post(f"/instructor/submissions/{subs[1].id}/override",
                       data={"target": "test:test_hand_example", "points": "3", "comment": "阈值过严",
                             "seen": "0"}).status_code == 302
    client.post("/logout")
    web.login(client, alice)
    client.get(f"/lang/{lang}")
    html = client.get(f"/submissions/compare?a={subs[0].id}&b={subs[1].id}").get_data(as_text=True)
    changed = html.split('id="cmp-tests"', 1)[1]
    row = re.search(r'<code class="test-id">test_hand_example</code>(.*?)</tr>', changed, re.S)
    assert row, "the overridden test is listed as changed"
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<s\b.*?</s>", "", row.group(1), flags=re.S)))
    assert re.search(r"0 / 3 .* 3 / 3 .*\+3", text), text
