"""Submissions record an audit and figure carried forward from an earlier attempt.

A code-only resubmission keeps the previous audit and figure (issue 11); these columns say which
attempt each was uploaded with, so pages and the API can say so.

Revision ID: 0003_carry_forward
Revises: 0002
Create Date: 2026-11-30 13:20:00

"""
import sqlalchemy as sa
from alembic import op

revision = "0003_carry_forward"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("audit_from_attempt", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("figure_from_attempt", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("figure_from_attempt")
        batch.drop_column("audit_from_attempt")
