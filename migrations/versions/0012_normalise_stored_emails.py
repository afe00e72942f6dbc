"""Emails stored before round 22 are normalised as sign-in reads them; colliding accounts are all kept.

Round 22 made every email look-up go through `app.auth.normalize_email` (NFKC, `。` as a dot,
invisible format characters removed) and compare case-insensitively, but rows stored before kept
their zero-width spaces, BOMs and full-width letters: `alice@example.edu` + U+200B was an account
sign-in never finds, and `Alice@…` next to `alice@…` two accounts one sign-in matches.

Each row's email becomes `normalize_email(email)`, the app's own normaliser. Rows whose normalised
emails are equal ignoring case (a collision) are never merged nor deleted: the one sign-in should
reach keeps the normalised email (the most submissions, then a password set, then the one already
stored clean, then the oldest), each other keeps its rows and gets `<normalised> #<id>`, an address
nobody can type (it has a space), so the instructor sees it in the roster and can merge by hand.
Every change is written to the course log (kind `email_cleaned`/`email_duplicate`, old and new
email, no author) and to the migration's log. Downgrade changes nothing: the old emails are in the log.

Revision ID: 0012_normalise_emails
Revises: 0011_regrade_similarity_keys
"""
import logging
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = '0012_normalise_emails'
down_revision = '0011_regrade_similarity_keys'
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")
EMAIL_LENGTH = 254  # users.email is String(254)

users = sa.table("users", sa.column("id", sa.Integer), sa.column("email", sa.String),
                 sa.column("password_hash", sa.String))
submissions = sa.table("submissions", sa.column("id", sa.Integer), sa.column("student_id", sa.Integer))
course_log = sa.table("course_log", sa.column("at", sa.DateTime), sa.column("actor_id", sa.Integer),
                      sa.column("kind", sa.String), sa.column("student_id", sa.Integer),
                      sa.column("subject", sa.String), sa.column("before", sa.JSON),
                      sa.column("after", sa.JSON), sa.column("comment", sa.Text))


def duplicate_email(normalised: str, user_id: int) -> str:
    """The email a colliding account that sign-in no longer reaches keeps: unique, never typed."""
    suffix = f" #{user_id}"
    return normalised[:EMAIL_LENGTH - len(suffix)] + suffix


def upgrade() -> None:
    from app.auth import normalize_email  # the app's own rule, as sign-in and every look-up apply it

    conn = op.get_bind()
    counts = dict(conn.execute(sa.select(submissions.c.student_id, sa.func.count())
                               .group_by(submissions.c.student_id)).all())
    groups: dict[str, list] = {}
    for row in conn.execute(sa.select(users.c.id, users.c.email, users.c.password_hash).order_by(users.c.id)):
        groups.setdefault(normalize_email(row.email).lower(), []).append(row)

    now = datetime.now(UTC).replace(tzinfo=None)
    changes: list[tuple[int, str, str, str]] = []  # (id, kind, before, after)
    for rows in groups.values():
        rows.sort(key=lambda r: (-counts.get(r.id, 0), r.password_hash is None,
                                 normalize_email(r.email) != r.email, r.id))
        keep, others = rows[0], rows[1:]
        # The others first: the one kept may take the exact string one of them holds.
        for r in others:
            changes.append((r.id, "email_duplicate", r.email, duplicate_email(normalize_email(r.email), r.id)))
        clean = normalize_email(keep.email)
        if clean != keep.email:
            if len(clean) > EMAIL_LENGTH:  # NFKC can lengthen; a cut address would be another one
                log.warning("user %d: the normalised email is longer than %d characters; left as stored",
                            keep.id, EMAIL_LENGTH)
            else:
                changes.append((keep.id, "email_cleaned", keep.email, clean))
        if others:
            log.warning("users %s: the same email after normalising (%r); sign-in reaches #%d, the others "
                        "keep their data under '<email> #<id>'", [r.id for r in rows], clean, keep.id)
    for user_id, kind, before, after in changes:
        conn.execute(users.update().where(users.c.id == user_id).values(email=after))
        conn.execute(course_log.insert().values(at=now, actor_id=None, kind=kind, student_id=user_id,
                                                subject="email", before=before, after=after, comment=""))
    log.info("emails normalised: %d, duplicates kept apart: %d",
             sum(k == "email_cleaned" for _, k, _, _ in changes), sum(k == "email_duplicate" for _, k, _, _ in changes))


def downgrade() -> None:
    pass  # data only: the emails as they were are in the course log
