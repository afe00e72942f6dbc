"""Extension singletons, bound to an app in create_app() (the app-factory pattern)."""

from flask_babel import Babel
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
login_manager = LoginManager()
csrf = CSRFProtect()
babel = Babel()
# The rate-limit store is Redis in production. When Redis is unreachable the limiter must not turn
# sign-in and uploads into 500s: it falls back to per-process memory (same limits, counted per
# process) and logs "Rate limit storage unreachable"; it checks Redis again with a backoff and
# logs "Rate limit storage recovered" when it is back. swallow_errors covers the other storage
# calls (deducting a failed sign-in, the limit headers) that may fail in between.
limiter = Limiter(
    key_func=get_remote_address,
    default_limits=[],
    in_memory_fallback_enabled=True,
    swallow_errors=True,
)


def begin_write_on_sqlite() -> bool:
    """On SQLite, start the session's transaction with BEGIN IMMEDIATE (its write lock, for the
    whole database) unless one is open; True on SQLite. SQLite has no row locks and ignores
    SELECT ... FOR UPDATE, and its reads outside a transaction take no lock, so two requests
    could both check-then-write on the same state; the write lock makes the second one wait (up to
    the driver's busy timeout) and then read what the first committed. Callers on PostgreSQL take
    a row lock instead."""
    conn = db.session.connection()
    if conn.dialect.name != "sqlite":
        return False
    if not conn.connection.dbapi_connection.in_transaction:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    return True
