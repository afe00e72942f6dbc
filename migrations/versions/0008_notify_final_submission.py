"""PostgreSQL tells waiting web requests when a submission's grading ends (LISTEN/NOTIFY).

A trigger on `submissions` sends `NOTIFY autograder_submission_final, '<id>'` when a row's status
becomes final (graded or error). It is sent when the transaction that stored the result commits,
whoever wrote it (the worker's store_result, a give-up, a requeue that gave up, a test), so the
long-poll (`GET /api/v1/submissions/<id>?wait=S`, app/longpoll.py) answers at once without asking
the database every 100 ms. Nothing changes on SQLite (it has no notifications: waits poll there).

Revision ID: 0008_notify_final
Revises: 0007_audit_text
"""
from alembic import op

revision = '0008_notify_final'
down_revision = '0007_audit_text'
branch_labels = None
depends_on = None

# The channel name is app.longpoll.FINAL_CHANNEL; the statuses are app.models.FINAL.
UPGRADE = """
CREATE OR REPLACE FUNCTION autograder_notify_submission_final() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('autograder_submission_final', NEW.id::text);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER submissions_notify_final
AFTER UPDATE OF status OR INSERT ON submissions
FOR EACH ROW
WHEN (NEW.status IN ('graded', 'error'))
EXECUTE FUNCTION autograder_notify_submission_final();
"""

DOWNGRADE = """
DROP TRIGGER IF EXISTS submissions_notify_final ON submissions;
DROP FUNCTION IF EXISTS autograder_notify_submission_final();
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(UPGRADE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(DOWNGRADE)
