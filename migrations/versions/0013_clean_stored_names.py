"""Names stored before round 29 are cleaned as the roster import now cleans them; each change is logged.

Round 29 made the roster import and every name field go through `app.auth.clean_name`: bidi
controls and other invisible format characters removed (zero-width joiners kept), a line break
or tab made a space, other control characters (ESC, NUL, ...) removed. Names stored before kept
them: an ESC sequence or a line break went into every export and the sign-in links file, and a
right-to-left override reordered the text around the name on every page.

Each user's name becomes `clean_name(name)`, the app's own rule; nothing else of the row changes.
Every change is written to the course log (kind `name_cleaned`, old and new name, no author: the
log page shows the removed characters as U+XXXX) and counted in the migration's log. Downgrade
changes nothing: the old names are in the log.

Revision ID: 0013_clean_names
Revises: 0012_normalise_emails
"""
import logging
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = '0013_clean_names'
down_revision = '0012_normalise_emails'
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

users = sa.table("users", sa.column("id", sa.Integer), sa.column("name", sa.String))
course_log = sa.table("course_log", sa.column("at", sa.DateTime), sa.column("actor_id", sa.Integer),
                      sa.column("kind", sa.String), sa.column("student_id", sa.Integer),
                      sa.column("subject", sa.String), sa.column("before", sa.JSON),
                      sa.column("after", sa.JSON), sa.column("comment", sa.Text))


def upgrade() -> None:
    from app.auth import clean_name  # the app's own rule, as the roster import and the forms apply it

    conn = op.get_bind()
    now = datetime.now(UTC).replace(tzinfo=None)
    changed = 0
    for row in conn.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)).all():
        if row.name is None or clean_name(row.name) == row.name:
            continue
        clean = clean_name(row.name)
        conn.execute(users.update().where(users.c.id == row.id).values(name=clean))
        conn.execute(course_log.insert().values(at=now, actor_id=None, kind="name_cleaned", student_id=row.id,
                                                subject="name", before=row.name, after=clean, comment=""))
        changed += 1
    log.info("names cleaned: %d", changed)


def downgrade() -> None:
    pass  # data only: the names as they were are in the course log
