"""Round 22: a test row of the result page gives the points that count. After an instructor's
override of one test, the category, the total, the dashboard and the export counted the new points
while that test's row still said the automatic ones ("0 / 3" under a total that counted 2): the rows
no longer added up to the total shown above them. The row now shows the automatic points struck
through, the points that count, and a link to the override's reason, for the student and the
instructor, in zh and en."""

from __future__ import annotations

import re

import pytest

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
