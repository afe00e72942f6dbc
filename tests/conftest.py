"""Shared fixtures: a migrated PostgreSQL database per test session, the app, its client, factories."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_TEST_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the PostgreSQL server (the `pg_url` fixture, directly or through `app`,
    `migrated_pg`, ...) is marked `postgres`, so `pytest -m "not postgres"` is the fast lane."""
    for item in items:
        if "pg_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


def pg_available() -> bool:
    try:
        with create_engine(PG_ADMIN_URL).connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:  # noqa: BLE001
        return False


def redis_available() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_TEST_URL, socket_timeout=1).ping())
    except Exception:  # noqa: BLE001
        return False


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, dropped afterwards."""
    if not pg_available():
        pytest.fail("PostgreSQL is not reachable at 127.0.0.1:5432 (start it: see .ci/run)")
    name = f"autograder_test_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    yield url
    with admin.connect() as conn:
        conn.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n AND pid <> pg_backend_pid()"),
            {"n": name},
        )
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
    admin.dispose()


def make_app(tmp_dir: Path, db_url: str, **overrides):
    os.environ["DATA_DIR"] = str(tmp_dir)
    from app import create_testing_app

    return create_testing_app(SQLALCHEMY_DATABASE_URI=db_url, **overrides)


def empty_database(app) -> None:
    """Remove every row (PostgreSQL), keeping the migrated schema."""
    from app.extensions import db

    with app.app_context():
        tables = ", ".join(t.name for t in db.metadata.sorted_tables)
        db.session.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        db.session.commit()


@pytest.fixture(scope="session")
def migrated_pg(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    from flask_migrate import upgrade

    app = make_app(tmp_path_factory.mktemp("migrate"), pg_url)
    with app.app_context():
        upgrade()
        from app.extensions import db

        db.engine.dispose()
    return pg_url


@pytest.fixture
def app(migrated_pg: str, tmp_path: Path):
    """The app on the session's PostgreSQL database, emptied before each test."""
    app = make_app(tmp_path, migrated_pg, CELERY_BROKER_URL="memory://")
    empty_database(app)
    yield app
    from app.extensions import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def factory(app):
    from tests.factories import Factory

    with app.app_context():
        yield Factory()
