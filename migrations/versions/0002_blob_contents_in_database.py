"""Blob contents move into the database: workers need no shared disk.

Each existing blob's file (DATA_DIR/blobs/ab/abcdef...) is read, checked against its sha256 and
stored in the new column. A file that is missing or does not match is reported and left NULL
(the store still reads it from disk if it comes back); nothing is deleted from disk.

Revision ID: 0002
Revises: 0001
"""
import hashlib
import logging
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def _upload_dir() -> Path:
    try:
        from flask import current_app

        return Path(current_app.config["UPLOAD_DIR"])
    except (ImportError, RuntimeError, KeyError):
        from app.config import default_data_dir

        return default_data_dir() / "blobs"


def upgrade():
    with op.batch_alter_table('blobs') as batch:
        batch.add_column(sa.Column('data', sa.LargeBinary(), nullable=True))
    blobs = sa.table('blobs', sa.column('sha256', sa.String), sa.column('data', sa.LargeBinary))
    conn = op.get_bind()
    root = _upload_dir()
    moved = missing = 0
    for (sha,) in conn.execute(sa.select(blobs.c.sha256)).all():
        path = root / sha[:2] / sha
        try:
            data = path.read_bytes()
        except OSError:
            missing += 1
            log.warning("blob %s: no file at %s; left on disk-only lookup", sha, path)
            continue
        if hashlib.sha256(data).hexdigest() != sha:
            missing += 1
            log.warning("blob %s: the file at %s does not match its digest; not copied", sha, path)
            continue
        conn.execute(blobs.update().where(blobs.c.sha256 == sha).values(data=data))
        moved += 1
    log.info("blob contents copied into the database: %d, not found: %d", moved, missing)


def downgrade():
    with op.batch_alter_table('blobs') as batch:
        batch.drop_column('data')
