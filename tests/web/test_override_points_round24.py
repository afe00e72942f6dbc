"""Round 24: a test override counts by one rule everywhere (app/scores.overridden_test_points).

The rule (an override's points clamped to 0..the test's max) was written three times: in the score
(`effective`), in the comparison of two attempts (app/student.comparison) and in the result page's
test row (student/_macros.html). The comparison and the row now call the score's helper, so an
override stored out of range (a test whose max changed after the override was saved) counts the
same in the score, the compare page and the row: behaviour unchanged, now one place to change it."""

from __future__ import annotations

import re

import pytest
from flask_login import login_user

from app.extensions import db
from app.models import ScoreOverride
from app.scores import counted_tests, effective_for, overridden_test_points
from app.student import comparison
from tests.helpers import rubric_result


@pytest.mark.parametrize("points, max_points, counted", [
    (-4, 3, 0.0), (0, 3, 0.0), (1.5, 3, 1.5), (3, 3, 3.0), (99, 3, 3.0), (2, None, 0.0), (2, 0, 0.0),
])
def test_an_override_of_a_test_counts_between_0_and_the_tests_max(points, max_points, counted):
    assert overridden_test_points(points, max_points) == counted


def test_counted_tests_replace_only_overridden_tests_points():
    class Score:
        overrides = [{"kind": "test", "target": "t1", "points": 99.0},
                     {"kind": "category", "target": "t2", "points": 0.0}]
    tests = {"t1": {"points": 0, "max_points": 3}, "t2": {"points": 2, "max_points": 2}}
    assert {k: v["counted"] for k, v in counted_tests(tests, Score()).items()} == {"t1": 3.0, "t2": 2}
    assert {k: v["counted"] for k, v in counted_tests(tests, None).items()} == {"t1": 0, "t2": 2}


@pytest.mark.parametrize("stored, counts", [(99.0, 3.0), (-4.0, 0.0), (1.5, 1.5)])
def test_score_compare_page_and_result_row_count_an_out_of_range_override_alike(app, client, web, course,
                                                                                stored, counts):
    alice = course["alice"]
    first, second = (web.submit(alice, course["assignment"], audit=False, figure=False) for _ in range(2))
    for sub in (first, second):
        web.grade(sub, rubric_result("attention", {"test_hand_example"}))  # 0 / 3 automatic
    # Stored directly: the form refuses points outside 0..max, a later change of the test's max does not.
    db.session.add(ScoreOverride(submission_id=second.id, kind="test", target="test_hand_example",
                                 points=stored, comment="max changed", author_id=course["teacher"].id))
    db.session.commit()
    db.session.refresh(second)

    score = effective_for(second, second.latest_graded_run)
    assert score.categories["formula_shape"]["score"] == 22 + counts

    with app.test_request_context():
        login_user(alice)
        view = comparison(first, second)
    row = next(c for c in view["changed"] if c["id"] == "test_hand_example") if counts else None
    if counts:
        assert row["b"]["counted"] == counts and row["delta"] == counts
    else:
        assert all(c["id"] != "test_hand_example" for c in view["changed"])

    web.login(client, alice)
    html = client.get(f"/submissions/{second.id}").get_data(as_text=True)
    cell = re.search(r'<code class="test-id">test_hand_example</code>.*?<strong data-points>([\d.]+)</strong>',
                     html, re.S)
    assert float(cell.group(1)) == counts
