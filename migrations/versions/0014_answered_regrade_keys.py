"""A single regrade answered with an attempt's waiting first grading keeps its Idempotency-Key.

POST /api/v1/submissions/<id>/regrade for an attempt still waiting for its first grading queues no
run and answers the waiting one; its key was not stored, so a retry with the key after that grading
had started queued a regrade run: another answer to the same request. The key is kept in its own
table (one waiting run can answer several requests, each with its own key), unique, forgotten after
RETENTION like every other key (app/idempotency.py).

Revision ID: 0014_answered_regrade_keys
Revises: 0013_clean_names
"""
import sqlalchemy as sa
from alembic import op

revision = '0014_answered_regrade_keys'
down_revision = '0013_clean_names'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "answered_regrade_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["grading_runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key", name="uq_answered_regrade_keys_idempotency_key"),
    )
    op.create_index("ix_answered_regrade_keys_run_id", "answered_regrade_keys", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_answered_regrade_keys_run_id", table_name="answered_regrade_keys")
    op.drop_table("answered_regrade_keys")
