"""Idempotency keys: how long a key answers its retries, and keys scoped to their user.

A request sent again with the key of an earlier one (a script retrying after a timeout, a form sent
twice) gets the earlier request's answer instead of doing the work twice. Keys are kept for
RETENTION, as Stripe keeps them for 24 hours: a retry inside the window is still answered; after
it the key is forgotten (its row keeps the work, the key column becomes NULL) and may name a new
request. The key is forgotten when it is looked up, so no sweeper is needed and no retry inside
the window can lose its answer to one.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import InstrumentedAttribute

from app.extensions import db
from app.models import utcnow

RETENTION = timedelta(hours=24)


def scoped_key(kind: str, user_id: int, key: str | None) -> str | None:
    """The stored form of a user's key (`kind`: "api" for an Idempotency-Key header, "form" for a
    page's token): hashed with the user, so one user's key never answers another's request."""
    if not key:
        return None
    # 64 characters in all (the columns' width); "api:" + 60 as round 19 stored batch keys.
    return f"{kind}:" + hashlib.sha256(f"{user_id}:{key}".encode()).hexdigest()[:63 - len(kind)]


def earlier(column: InstrumentedAttribute, key: str | None, born: InstrumentedAttribute, *,
            now: datetime | None = None, where: Any = None) -> Any:
    """The row whose `column` holds `key` and that was made (`born`) within RETENTION, or None.
    A row with the key made before that forgets it (set to NULL, flushed in the caller's
    transaction), so a new request under the key can take the unique column. Only that rare case
    writes: a lookup that finds nothing or a fresh row takes no write lock (SQLite's is global)."""
    if not key:
        return None
    match = [column == key] if where is None else [column == key, where]
    row = db.session.scalar(select(column.class_).where(*match))
    if row is None or getattr(row, born.key) >= (now or utcnow()) - RETENTION:
        return row
    setattr(row, column.key, None)
    db.session.flush()
    return None
