"""Row ids as the web reads them: an id no row can have is "not found", never a database error.

Every table's id is a 32-bit `Integer`. PostgreSQL refuses a larger value in a comparison
(`integer out of range`, a DataError the app answered with 400), SQLite takes up to 2^63 and
raises OverflowError past it (a 500). An id past 2^31 - 1 names nothing, on either database, so
paths and the query or form fields that carry ids read it as a missing row (404).
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import IntegerConverter

MAX_ID = 2**31 - 1  # the largest value of every `id` column (a 32-bit signed integer)
NO_ROW = 0  # ids start at 1: an id that cannot exist reads as this, which no row has


class IdConverter(IntegerConverter):
    """`<int:...>` in every route: a number past MAX_ID does not match the rule, so it is a 404
    (JSON under /api/) before any view or query runs."""

    def __init__(self, map: Any, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = MAX_ID, signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def db_id(value: str) -> int:
    """`type=` for an id read from a query or form (`request.args.get("a", type=db_id)`): a whole
    number, or ValueError as `int` raises (so the field reads as absent); one outside 1..MAX_ID is
    NO_ROW, so looking it up finds nothing instead of failing in the database."""
    n = int(value)
    return n if 1 <= n <= MAX_ID else NO_ROW
