"""Round 31: the override form sent with blank points for a score that had no override (the points
forgotten, or "clear" sent twice) saved a clearing, wrote a course-log change from nothing to
nothing, and said "Override cleared.". It is now refused with the form kept (422), in zh and en,
and nothing is written; clearing an override in force still works."""

from __future__ import annotations

from app.extensions import db
from app.models import CourseLog, ScoreOverride
from tests.web.helpers import realistic_result

TARGET = "category:implementation"
SAID = {"en": "This score has no override to clear; to override it, give the points.",
        "zh": "这项分数没有可清除的覆盖；要覆盖它，请填写分数。"}


def _rows() -> tuple[int, int]:
    db.session.expire_all()
    return db.session.query(ScoreOverride).count(), db.session.query(CourseLog).filter_by(kind="override").count()


def test_clearing_a_score_without_an_override_is_refused_and_writes_nothing(client, web, course):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    web.login(client, course["teacher"])
    url = f"/instructor/submissions/{sub.id}/override"
    for lang, text in SAID.items():
        client.get(f"/lang/{lang}")
        for data in ({"target": TARGET, "points": "", "comment": "forgot the points"}, {"target": TARGET, "clear": "1"}):
            resp = client.post(url, data=data)
            assert resp.status_code == 422 and text in resp.get_data(as_text=True), (lang, data)
    assert _rows() == (0, 0)
    client.get("/lang/en")
    client.post(url, data={"target": TARGET, "points": "20", "comment": "Copied softmax."})
    cleared = client.post(url, data={"target": TARGET, "clear": "1"}, follow_redirects=True)
    assert "Override cleared." in cleared.get_data(as_text=True)
    assert _rows() == (2, 2)
    again = client.post(url, data={"target": TARGET, "clear": "1"})
    assert again.status_code == 422 and _rows() == (2, 2)
