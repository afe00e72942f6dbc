"""Submissions remember the idempotency key they were sent with.

A double-clicked form or an API client retrying after a timeout sent the same upload twice and
got two attempts (two of the three pending slots). The upload form carries a per-render token and
the API takes an `Idempotency-Key` header; the attempt made by the first send records the key and
the sha256 of the request, and a second send with the key gets that attempt back. Existing rows
have no key (NULL: the unique constraint does not apply to them).

Revision ID: 0009_idempotency_key
Revises: 0008_notify_final
"""
import sqlalchemy as sa
from alembic import op

revision = '0009_idempotency_key'
down_revision = '0008_notify_final'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(length=300), nullable=True))
        batch.add_column(sa.Column("request_sha256", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_submission_idempotency_key", ["student_id", "idempotency_key"])


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_constraint("uq_submission_idempotency_key", type_="unique")
        batch.drop_column("request_sha256")
        batch.drop_column("idempotency_key")
