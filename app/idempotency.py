"""Idempotency keys: how long a key answers its retries, and keys scoped to their user.

A request sent again with the key of an earlier one (a script retrying after a timeout, a form sent
twice) gets the earlier request's answer instead of doing the work twice. Keys are kept for
RETENTION, as Stripe keeps them for 24 hours: a retry inside the window is still answered; after
it the key is forgotten (its row keeps the work, the key column becomes NULL) and may name a new
request. A key is forgotten when it is looked up, and `purge()` forgets every expired key at once
(the worker's sweeper calls it hourly; `autograder db purge-keys` by hand): a key never sent again
would otherwise stay in its row, and in its unique index, for ever. Both only touch keys past
RETENTION, so no retry inside the window can lose its answer.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
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


def keyed_columns() -> list[tuple[InstrumentedAttribute, InstrumentedAttribute]]:
    """(key column, the column of when its row was made) of every table that keeps keys."""
    from app.models import AnsweredRegradeKey, GradingRun, RegradeBatch, SimilarityReport, Submission

    return [(Submission.idempotency_key, Submission.created_at),
            (GradingRun.idempotency_key, GradingRun.queued_at),
            (AnsweredRegradeKey.idempotency_key, AnsweredRegradeKey.created_at),
            (RegradeBatch.form_token, RegradeBatch.created_at),
            (SimilarityReport.form_token, SimilarityReport.created_at)]


def purge(now: datetime | None = None) -> dict[str, int]:
    """Forget every key made before RETENTION (set to NULL; the rows and their work stay), and
    commit. Returns the number of keys forgotten per table."""
    cutoff = (now or utcnow()) - RETENTION
    forgotten = {}
    for column, born in keyed_columns():
        result = db.session.execute(update(column.class_).where(column.is_not(None), born < cutoff)
                                    .values({column.key: None}).execution_options(synchronize_session=False))
        forgotten[column.class_.__tablename__] = result.rowcount
    db.session.commit()
    return forgotten
