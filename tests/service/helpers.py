"""Helpers of the service tests (imported as a module; fixtures stay in conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from flask import Flask
from flask_migrate import upgrade

from app.models import Assignment
from tests.factories import Factory
from tests.helpers import make_app, pg_available, scratch_pg_database
from tests.web.helpers import Web


@contextmanager
def seeded_at(app, revision: str) -> Iterator[tuple[Factory, Web, Assignment]]:
    """In the app's context, its database built up to `revision` (rows stored as that release stored
    them), with a factory, the page helper and the assignment; upgraded to the newest revision after."""
    with app.app_context():
        upgrade(revision=revision)
        f = Factory()
        yield f, Web(app, f), f.assignment()
        upgrade()


@contextmanager
def app_on_scratch_postgres(tmp_path, prefix: str) -> Iterator[Flask]:
    """An app on a PostgreSQL database of its own (empty, no schema), dropped afterwards."""
    if not pg_available():
        pytest.fail("PostgreSQL is not reachable")
    with scratch_pg_database(prefix) as url:
        yield make_app(tmp_path, url, CELERY_BROKER_URL="memory://")
