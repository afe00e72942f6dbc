"""A per-user session nonce: part of every session and remember-me cookie, renewed at sign-out,
so sign-out ends every session of the account server-side.

Revision ID: 0005_session_nonce
Revises: 0004_instructor
Create Date: 2026-11-30 13:20:00

"""
import secrets

import sqlalchemy as sa
from alembic import op

revision = '0005_session_nonce'
down_revision = '0004_instructor'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('users', sa.Column('session_nonce', sa.String(length=64), nullable=True))
    users = sa.table('users', sa.column('id', sa.Integer), sa.column('session_nonce', sa.String))
    conn = op.get_bind()
    # Each existing user gets their own random nonce (old cookies, which carry no nonce, stop
    # working: everyone signs in once more after this upgrade).
    for (user_id,) in conn.execute(sa.select(users.c.id)).all():
        conn.execute(users.update().where(users.c.id == user_id).values(session_nonce=secrets.token_urlsafe(24)))
    with op.batch_alter_table('users') as batch:
        batch.alter_column('session_nonce', existing_type=sa.String(length=64), nullable=False)


def downgrade():
    with op.batch_alter_table('users') as batch:
        batch.drop_column('session_nonce')
