"""The schema comes from Alembic migrations, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from tests.helpers import make_app


def _assert_matches_models(app) -> None:
    from app.extensions import db

    with db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
    assert diff == [], f"models and migrations disagree: {diff}"


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_migrations_build_the_schema_on_sqlite(tmp_path):
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite'}")
    with app.app_context():
        upgrade()
        from app.extensions import db

        assert {"users", "submissions", "grading_runs", "test_results"} <= set(inspect(db.engine).get_table_names())
        _assert_matches_models(app)
        downgrade(revision="base")
        assert "submissions" not in inspect(db.engine).get_table_names()


@pytest.mark.postgres
def test_migrations_build_the_schema_on_postgres(migrated_pg, tmp_path):
    app = make_app(tmp_path, migrated_pg)
    with app.app_context():
        _assert_matches_models(app)
        from app.extensions import db

        db.engine.dispose()


def test_every_revision_has_a_descriptive_name():
    from pathlib import Path

    versions = Path(__file__).resolve().parents[2] / "migrations" / "versions"
    for path in versions.glob("*.py"):
        stem = path.stem.split("_", 1)
        assert len(stem) == 2 and len(stem[1]) >= 6, f"{path.name}: name the revision after what it does"


def test_blob_files_of_the_first_release_move_into_the_database_and_none_is_lost(tmp_path):
    import hashlib

    from sqlalchemy import text

    from app.storage import BlobStore

    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite'}")
    blobs = {data: hashlib.sha256(data).hexdigest() for data in (b"print('a')\n", b"\x89PNG figure bytes")}
    with app.app_context():
        from app.extensions import db

        upgrade(revision="0001")
        for data, sha in blobs.items():  # the first release: a row, and the bytes on disk
            path = app.config["UPLOAD_DIR"] / sha[:2] / sha
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            db.session.execute(text("INSERT INTO blobs (sha256, size, created_at) VALUES (:s, :n, '2026-01-01')"),
                               {"s": sha, "n": len(data)})
        db.session.commit()
        upgrade()
        for data, sha in blobs.items():
            stored = db.session.scalar(text("SELECT data FROM blobs WHERE sha256 = :s"), {"s": sha})
            assert bytes(stored) == data
            (app.config["UPLOAD_DIR"] / sha[:2] / sha).unlink()  # the disk is gone: the database has it
            assert BlobStore(tmp_path / "empty-cache").get(sha) == data
        db.session.remove()
        db.engine.dispose()
