"""Round 24: migration 0012 normalises emails stored before round 22 with the app's own normaliser,
on SQLite and PostgreSQL; accounts whose emails collide after normalising are all kept, and sign-in
reaches the one in use (the most submissions, then a password, then the one already clean)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.auth import EMAIL_PATTERN, authenticate, find_user, normalize_email
from app.extensions import db
from app.models import CourseLog, Submission, User
from tests.factories import PASSWORD
from tests.helpers import make_app
from tests.service.helpers import app_on_scratch_postgres, seeded_at

BEFORE = "0011_regrade_similarity_keys"
# (stored email, password set, submissions) -> the email after the upgrade ("#id": a kept duplicate)
ROWS = [
    ("alice@example.edu\u200b", True, 0, "alice@example.edu"),
    ("\uff42\uff4f\uff42\uff20example\u3002edu", True, 0, "bob@example.edu"),
    ("Carol@example.edu", True, 0, "Carol@example.edu #"),              # clean, but unused
    ("carol@example.edu\ufeff", True, 1, "carol@example.edu"),           # pasted BOM, the one in use
    ("Dan@example.edu", False, 0, "Dan@example.edu #"),                  # no password
    ("dan@example.edu", True, 0, "dan@example.edu"),
    ("erin@example.edu", False, 0, "erin@example.edu #"),                # holds the string the other gets
    ("\u200eerin@example.edu", True, 2, "erin@example.edu"),
    ("frank@example.edu", True, 0, "frank@example.edu"),                 # untouched
]


def _seed_and_upgrade(app) -> dict[int, str]:
    """Build the schema of round 23, store ROWS as they were, upgrade; {user id: expected email}."""
    with seeded_at(app, BEFORE) as (f, web, a):
        expected = {}
        for stored, password, n_subs, after in ROWS:
            u = f.student(email=stored)
            if not password:
                u.password_hash = None
                db.session.commit()
            for _ in range(n_subs):
                web.submit(u, a, audit=False, figure=False)
            expected[u.id] = after + str(u.id) if after.endswith("#") else after
        subs_before = db.session.scalar(select(func.count(Submission.id)))
        db.session.remove()
    with app.app_context():
        assert db.session.scalar(select(func.count(Submission.id))) == subs_before
        return expected


def _check(app, expected: dict[int, str]) -> None:
    with app.app_context():
        emails = dict(db.session.execute(select(User.id, User.email)).all())
        assert emails == expected  # no account lost, each as expected
        for typed, owner in [("alice@example.edu", 1), ("BOB@example.edu", 2), ("carol@example.edu", 4),
                             ("CAROL@example.edu\u200b", 4), ("dan@example.edu", 6), ("Dan@Example.edu", 6),
                             ("erin@example.edu", 8), ("frank@example.edu", 9)]:
            assert find_user(typed).id == owner, typed
            if db.session.get(User, owner).password_hash:
                assert authenticate(typed, PASSWORD).id == owner
        kept = {e.student_id: (e.before, e.after) for e in db.session.scalars(
            select(CourseLog).where(CourseLog.kind == "email_duplicate"))}
        assert kept == {3: ("Carol@example.edu", "Carol@example.edu #3"), 5: ("Dan@example.edu", "Dan@example.edu #5"),
                        7: ("erin@example.edu", "erin@example.edu #7")}
        cleaned = {e.student_id for e in db.session.scalars(select(CourseLog).where(CourseLog.kind == "email_cleaned"))}
        assert cleaned == {1, 2, 4, 8}
        db.session.remove()
        db.engine.dispose()


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_the_upgrade_normalises_stored_emails_and_keeps_colliding_accounts_on_sqlite(tmp_path):
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite'}", CELERY_BROKER_URL="memory://")
    _check(app, _seed_and_upgrade(app))


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
@pytest.mark.postgres
def test_the_upgrade_normalises_stored_emails_and_keeps_colliding_accounts_on_postgres(tmp_path):
    with app_on_scratch_postgres(tmp_path, "autograder_emails") as app:
        _check(app, _seed_and_upgrade(app))


def test_a_duplicates_email_cannot_be_typed_at_sign_in():
    path = Path(__file__).resolve().parents[2] / "migrations" / "versions" / "0012_normalise_stored_emails.py"
    spec = importlib.util.spec_from_file_location("normalise_emails", path)
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    dup = migration.duplicate_email("carol@example.edu", 3)
    assert not re.match(EMAIL_PATTERN, normalize_email(dup))
    assert len(migration.duplicate_email("x" * 300, 123456)) == 254

