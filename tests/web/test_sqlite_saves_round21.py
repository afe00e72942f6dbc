"""Round 21: on SQLite (the embedded default) two instructors saving one attempt at once lose no update.

Round 20's check refuses a save from a page older than the row in force, under a row lock. SQLite
ignores SELECT ... FOR UPDATE, so two saves that arrived together both read "no override yet",
both passed the check, and both were stored: the second buried the first, unseen by its author.
The save now starts with BEGIN IMMEDIATE there (app/extensions.begin_write_on_sqlite, shared with
the upload's pending-cap check), so the second waits, reads the first's row and is refused.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
from flask_migrate import upgrade

import app.instructor as instructor
from app.extensions import db
from app.models import AuditReview, ScoreOverride
from tests.factories import PASSWORD, Factory
from tests.helpers import make_app
from tests.web.helpers import Web, realistic_result
from tests.web.test_instructor_round20 import TARGET


@pytest.fixture(scope="module")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A migrated SQLite file, made once per module (migrating takes seconds); each test copies it."""
    base = tmp_path_factory.mktemp("sqlite-schema")
    app = make_app(base, f"sqlite:///{base / 'schema.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        upgrade()
        db.session.remove()
        db.engine.dispose()
    return base / "schema.sqlite"


@pytest.fixture
def sqlite_attempt(tmp_path, migrated_sqlite):
    shutil.copy(migrated_sqlite, tmp_path / "autograder.sqlite")
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'autograder.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        f = Factory()
        web = Web(app, f)
        a = f.assignment()
        student = f.student(email="alice@example.edu", name="Alice Wang")
        teachers = [f.instructor(email="li@example.edu", name="Teacher Li"),
                    f.instructor(email="zhou@example.edu", name="Teacher Zhou")]
        sub = web.submit(student, a, audit=False, figure=False)  # no decoding: set-up stays short
        web.grade(sub, realistic_result(fail_mask=True))
        emails, ids = [t.email for t in teachers], sub.id
        db.session.remove()
    clients = []
    for email in emails:  # signed in outside the set-up's app context, as two browsers are
        c = app.test_client()
        assert c.post("/login", data={"email": email, "password": PASSWORD}).status_code == 302
        clients.append(c)
    assert all(c.get("/instructor/").status_code == 200 for c in clients)
    return app, ids, clients


def both_at_once(app, monkeypatch, posts) -> list[int]:
    """Send the two saves together, with the moment between the form check and the write widened
    as a busy host widens it: without a lock both saves pass the check."""
    check = instructor._changed_since_render

    def slow_check(seen, current):
        changed = check(seen, current)
        time.sleep(0.4)
        return changed

    monkeypatch.setattr(instructor, "_changed_since_render", slow_check)
    start = threading.Barrier(len(posts))
    statuses: list[int] = []

    def one(client, url, data) -> None:
        start.wait()
        statuses.append(client.post(url, data=data).status_code)

    threads = [threading.Thread(target=one, args=p) for p in posts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return statuses


def test_two_overrides_from_pages_opened_together_store_one_on_sqlite(sqlite_attempt, monkeypatch):
    app, sub_id, (li, zhou) = sqlite_attempt
    url = f"/instructor/submissions/{sub_id}/override"
    both_at_once(app, monkeypatch, [
        (li, url, {"seen": "0", "target": TARGET, "points": "4", "comment": "Old mask convention."}),
        (zhou, url, {"seen": "0", "target": TARGET, "points": "1", "comment": "Half credit."}),
    ])
    with app.app_context():
        stored = [(o.points, o.comment) for o in db.session.query(ScoreOverride)]
        db.session.remove()
    assert len(stored) == 1, stored


def test_two_audit_reviews_from_pages_opened_together_store_one_on_sqlite(sqlite_attempt, monkeypatch):
    app, sub_id, (li, zhou) = sqlite_attempt
    url = f"/instructor/submissions/{sub_id}/review"
    both_at_once(app, monkeypatch, [(li, url, {"seen": "0", "score": "7", "comment": "a"}),
                                    (zhou, url, {"seen": "0", "score": "3", "comment": "b"})])
    with app.app_context():
        stored = [(r.score, r.comment) for r in db.session.query(AuditReview)]
        db.session.remove()
    assert len(stored) == 1, stored
