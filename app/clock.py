"""One clock for every host: the database's.

Heartbeats, claims, run deadlines and queue ages are written *and* compared in SQL with the
database server's time, so a web or worker host whose clock is ahead or behind can never make a
live worker's run look abandoned (a host 45 s ahead used to take over runs of healthy workers).

`db_now(offset_s)` is a SQL expression, compiled per dialect as SQLAlchemy's documentation shows
for a UTC timestamp function (`@compiles`); columns stay naive UTC `timestamp`s as before:

* PostgreSQL: `statement_timestamp() AT TIME ZONE 'utc'` (the time of the statement, not of a
  long transaction's start, which `now()` returns), plus the offset as an interval;
* SQLite: `strftime('%Y-%m-%d %H:%M:%f', 'now', '+N seconds') || '000'`, the text format
  SQLAlchemy stores and binds DateTime values in ("06:32:02.168000": %f gives milliseconds, the
  three zeros make them microseconds), so comparisons of stored, bound and computed values stay
  textual and ordered. Without the zeros a run's stored "…02.168" sorted before the same instant
  read back and bound ("…02.168000"), and a student alone in the queue had one run ahead: its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Float, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import FunctionElement
from sqlalchemy.sql.visitors import InternalTraversal


class db_now(FunctionElement):
    """The database server's current UTC time plus ``offset_s`` seconds, as a SQL expression."""

    type = DateTime()
    inherit_cache = True
    name = "db_now"

    def __init__(self, offset_s: float = 0.0) -> None:
        super().__init__()
        self.offset_s = float(offset_s)

    # The offset is part of the statement cache key: different offsets compile differently.
    _traverse_internals = [*FunctionElement._traverse_internals, ("offset_s", InternalTraversal.dp_plain_obj)]



@compiles(db_now, "postgresql")
def _pg(element: db_now, compiler: Any, **kw: Any) -> str:
    base = "(statement_timestamp() AT TIME ZONE 'utc')"
    if element.offset_s:
        return f"({base} + interval '{element.offset_s!r} seconds')"
    return base


@compiles(db_now, "sqlite")
def _sqlite(element: db_now, compiler: Any, **kw: Any) -> str:
    if element.offset_s:
        return f"(strftime('%Y-%m-%d %H:%M:%f', 'now', '{element.offset_s:+.6f} seconds') || '000')"
    return "(strftime('%Y-%m-%d %H:%M:%f', 'now') || '000')"


@compiles(db_now)
def _default(element: db_now, compiler: Any, **kw: Any) -> str:  # pragma: no cover - other dialects
    raise NotImplementedError(f"db_now() has no rendering for {compiler.dialect.name}")


def read_db_now(session: Any) -> datetime:
    """The database's current UTC time as a Python datetime (for ages shown to people)."""
    value = session.scalar(select(db_now()))
    if isinstance(value, str):  # SQLite returns the text it computed
        value = datetime.fromisoformat(value)
    return value


class seconds_between(FunctionElement):
    """``end - start`` in seconds, as a SQL float (PostgreSQL: EXTRACT(EPOCH ...); SQLite: julianday)."""

    type = Float()
    inherit_cache = True
    name = "seconds_between"


@compiles(seconds_between, "postgresql")
def _pg_between(element: seconds_between, compiler: Any, **kw: Any) -> str:
    start, end = (compiler.process(c, **kw) for c in element.clauses)
    return f"EXTRACT(EPOCH FROM ({end} - {start}))"


@compiles(seconds_between, "sqlite")
def _sqlite_between(element: seconds_between, compiler: Any, **kw: Any) -> str:
    start, end = (compiler.process(c, **kw) for c in element.clauses)
    return f"((julianday({end}) - julianday({start})) * 86400.0)"
