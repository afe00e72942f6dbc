"""A queued regrade batch can be cancelled: the count of its runs cancelled before a worker took them;
a similarity report says which submissions it left out, and why.

The cancelled runs' rows are deleted (a worker that receives one finds nothing to claim), so the batch
keeps how many there were for its pages. A similarity report counted a file with nothing left to compare
(only handout code, or the only file) as compared: it now keeps those apart, by reason.

Revision ID: 0015_regrade_cancel_left_out
Revises: 0014_answered_regrade_keys
"""
import sqlalchemy as sa
from alembic import op

revision = '0015_regrade_cancel_left_out'
down_revision = '0014_answered_regrade_keys'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("regrade_batches") as batch:
        batch.add_column(sa.Column("runs_cancelled", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("similarity_reports") as batch:
        batch.add_column(sa.Column("left_out", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("similarity_reports") as batch:
        batch.drop_column("left_out")
    with op.batch_alter_table("regrade_batches") as batch:
        batch.drop_column("runs_cancelled")
