"""Migration 0013 cleans the names stored before round 29 with the roster import's own rule
(`app.auth.clean_name`), on SQLite and PostgreSQL: control characters and bidi overrides go, a
line break is a space, zero-width joiners stay, nothing else of the account changes, and each old
name is kept in the course log."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.auth import clean_name
from app.extensions import db
from app.models import CourseLog, Submission, User
from tests.helpers import make_app
from tests.service.helpers import app_on_scratch_postgres, seeded_at

BEFORE = "0012_normalise_emails"
# stored name -> the name after the upgrade
NAMES = {
    "Alice\x1b[31m Wang": "Alice[31m Wang",              # an ESC sequence from a terminal paste
    "Bob\nZhang": "Bob Zhang",                            # a quoted roster cell with a line break
    "\tCarol Li\r\n": "Carol Li",
    "\u202eDan\u202c": "Dan",                             # a right-to-left override
    "Erin\u200b Wu": "Erin Wu",                           # a zero-width space
    "\u0641\u0627\u200c\u0637\u0645\u0647": "\u0641\u0627\u200c\u0637\u0645\u0647",  # a joiner stays
    "王小明": "王小明",                                     # untouched
}
SQLITE_ONLY = {"Frank\x00 Liu": "Frank Liu"}              # PostgreSQL text never held a NUL


def _seed_and_upgrade(app, names: dict[str, str]) -> dict[int, tuple]:
    """Store `names` at revision BEFORE, upgrade; {user id: (email, password hash, expected name)}."""
    with seeded_at(app, BEFORE) as (f, web, a):
        expected = {}
        for stored, after in names.items():
            u = f.student()
            u.name = stored
            db.session.commit()
            web.submit(u, a, audit=False, figure=False)
            expected[u.id] = (u.email, u.password_hash, after)
        db.session.remove()
    with app.app_context():
        assert db.session.scalar(select(func.count(Submission.id))) == len(names)
        rows = {u.id: (u.email, u.password_hash, u.name) for u in db.session.scalars(select(User))}
        assert rows == expected
        logged = {e.student_id: (e.before, e.after) for e in db.session.scalars(
            select(CourseLog).where(CourseLog.kind == "name_cleaned"))}
        by_id = {uid: stored for uid, stored in zip(expected, names, strict=True)}
        assert logged == {uid: (by_id[uid], after) for uid, (_, _, after) in expected.items() if by_id[uid] != after}
        assert all(clean_name(name) == name for _, _, name in rows.values())
        db.session.remove()
        db.engine.dispose()
        return expected


@pytest.mark.slow     # the whole migration chain (3 s): the fast lane keeps the models' schema test
def test_the_upgrade_cleans_stored_names_on_sqlite(tmp_path):
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite'}", CELERY_BROKER_URL="memory://")
    _seed_and_upgrade(app, NAMES | SQLITE_ONLY)


@pytest.mark.slow
@pytest.mark.postgres
def test_the_upgrade_cleans_stored_names_on_postgres(tmp_path):
    with app_on_scratch_postgres(tmp_path, "autograder_names") as app:
        _seed_and_upgrade(app, NAMES)
