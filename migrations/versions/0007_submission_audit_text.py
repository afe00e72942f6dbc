"""Submissions keep their audit text, extracted once at upload.

Pages and workers read this column instead of parsing the uploaded file again (a hostile PDF
costs seconds of CPU per parse). Existing Markdown/text audits are filled in from their stored
bytes (a UTF-8 decode, no parsing). Existing PDF audits stay NULL: their pages show the file
without its text, and their gradings extract it under the decoder's limits.

Revision ID: 0007_audit_text
Revises: 0006_cpu_seconds
"""
import sqlalchemy as sa
from alembic import op

revision = '0007_audit_text'
down_revision = '0006_cpu_seconds'
branch_labels = None
depends_on = None

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
MAX_CHARS = 100_000


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("audit_text", sa.Text(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT s.id, s.audit_filename, b.data FROM submissions s JOIN blobs b ON b.sha256 = s.audit_sha256 "
        "WHERE b.data IS NOT NULL")).fetchall()
    for sid, filename, content in rows:
        if not (filename or "").lower().endswith(TEXT_SUFFIXES) or bytes(content).lstrip().startswith(b"%PDF-"):
            continue
        text = bytes(content).decode("utf-8-sig", "replace").replace("\r\n", "\n")[:MAX_CHARS]
        bind.execute(sa.text("UPDATE submissions SET audit_text = :t WHERE id = :i"), {"t": text, "i": sid})


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("audit_text")
