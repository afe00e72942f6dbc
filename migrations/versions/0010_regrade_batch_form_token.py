"""Regrade batches remember the confirmation page that queued them.

Confirming the same regrade page twice (a double click, a resent POST) queued every run twice: two
batches, twice the grading. The page carries a token per rendering; the batch stores it (unique),
and a second confirmation with it shows the first batch. Existing batches have none (NULL).

Revision ID: 0010_regrade_form_token
Revises: 0009_idempotency_key
"""
import sqlalchemy as sa
from alembic import op

revision = '0010_regrade_form_token'
down_revision = '0009_idempotency_key'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("regrade_batches") as batch:
        batch.add_column(sa.Column("form_token", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_regrade_batches_form_token", ["form_token"])


def downgrade() -> None:
    with op.batch_alter_table("regrade_batches") as batch:
        batch.drop_constraint("uq_regrade_batches_form_token", type_="unique")
        batch.drop_column("form_token")
