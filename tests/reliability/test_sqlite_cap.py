"""The embedded default is safe too: on SQLite the pending cap holds under concurrent uploads of
one student. SQLite has no row locks, and a read outside a transaction holds no lock, so the
check-then-insert is serialised by BEGIN IMMEDIATE (app/submitting.py)."""

from __future__ import annotations

import threading
import time

from flask_migrate import upgrade
from sqlalchemy import func, select

import app.submitting as submitting
from app.extensions import db
from app.models import Assignment, Submission, User
from app.storage import BlobStore
from tests.factories import Factory
from tests.helpers import make_app
from tests.reliability.helpers import CORRECT


def test_pending_cap_holds_under_concurrent_uploads_of_one_student_on_sqlite(tmp_path, monkeypatch):
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'autograder.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        upgrade()
        f = Factory()
        assignment_id, student_id = f.assignment().id, f.student().id
        db.session.remove()

    # Widen the window between "how many are pending?" and the insert, as a slow disk or a
    # busy machine does: without serialisation every upload reads the same count.
    checked = submitting.check_policy

    def slow_check(*args, **kwargs):
        days = checked(*args, **kwargs)
        time.sleep(0.3)
        return days

    monkeypatch.setattr(submitting, "check_policy", slow_check)
    outcomes: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def one() -> None:
        with app.app_context():
            a, s = db.session.get(Assignment, assignment_id), db.session.get(User, student_id)
            start.wait()
            try:
                submitting.submit(a, s, submitting.Upload("attention.py", CORRECT), store=BlobStore(None),
                                  max_pending=3)
                outcome = "accepted"
            except submitting.SubmissionRefused as exc:
                outcome = exc.code
            finally:
                db.session.remove()
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["accepted"] * 3 + ["too_many_pending"] * 3, outcomes
    with app.app_context():
        attempts = sorted(db.session.scalars(select(Submission.attempt).where(Submission.student_id == student_id)))
        assert db.session.scalar(select(func.count(Submission.id))) == 3
        db.session.remove()
    assert attempts == [1, 2, 3]

