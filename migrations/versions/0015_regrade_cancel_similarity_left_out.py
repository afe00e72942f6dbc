"""A queued regrade batch can be cancelled: the count of its runs cancelled before a worker took them.

The cancelled runs' rows are deleted (a worker that receives one finds nothing to claim), so the batch
keeps how many there were for its pages.

Revision ID: 0015_regrade_batch_cancel
Revises: 0014_answered_regrade_keys
"""
import sqlalchemy as sa
from alembic import op

revision = '0015_regrade_batch_cancel'
down_revision = '0014_answered_regrade_keys'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("regrade_batches") as batch:
        batch.add_column(sa.Column("runs_cancelled", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("regrade_batches") as batch:
        batch.drop_column("runs_cancelled")
