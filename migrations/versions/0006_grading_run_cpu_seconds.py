"""Grading runs record the CPU seconds their grading took (for the /metrics CPU histogram).

Revision ID: 0006_cpu_seconds
Revises: 0005_session_nonce
"""
import sqlalchemy as sa
from alembic import op

revision = '0006_cpu_seconds'
down_revision = '0005_session_nonce'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('grading_runs') as batch:
        batch.add_column(sa.Column('cpu_s', sa.Double(), nullable=True))


def downgrade():
    with op.batch_alter_table('grading_runs') as batch:
        batch.drop_column('cpu_s')
