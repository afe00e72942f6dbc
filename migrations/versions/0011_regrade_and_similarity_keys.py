"""Single-run regrades and similarity checks remember the key that started them.

POST /api/v1/submissions/<id>/regrade retried after a timeout queued a second run, and the
similarity page sent twice (or POST /api/v1/similarity retried) started two checks of the whole
class. The run keeps the request's Idempotency-Key and the report the page's token or the key
(both hashed with the user, app/idempotency.py), unique, so a second send answers the first.
Existing rows have none (NULL).

Revision ID: 0011_regrade_similarity_keys
Revises: 0010_regrade_form_token
"""
import sqlalchemy as sa
from alembic import op

revision = '0011_regrade_similarity_keys'
down_revision = '0010_regrade_form_token'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("grading_runs") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_grading_runs_idempotency_key", ["idempotency_key"])
    with op.batch_alter_table("similarity_reports") as batch:
        batch.add_column(sa.Column("form_token", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_similarity_reports_form_token", ["form_token"])


def downgrade() -> None:
    with op.batch_alter_table("similarity_reports") as batch:
        batch.drop_constraint("uq_similarity_reports_form_token", type_="unique")
        batch.drop_column("form_token")
    with op.batch_alter_table("grading_runs") as batch:
        batch.drop_constraint("uq_grading_runs_idempotency_key", type_="unique")
        batch.drop_column("idempotency_key")
