"""Helpers for the page and API tests: sign in, submit real files, write graded runs."""

from __future__ import annotations

import pytest

from tests.web.helpers import Web


@pytest.fixture
def web(app, factory):
    return Web(app, factory)


@pytest.fixture
def course(factory):
    """The attention assignment, two students and an instructor."""
    a = factory.assignment()
    return {
        "assignment": a,
        "alice": factory.student(email="alice@example.edu", name="Alice Wang"),
        "bob": factory.student(email="bob@example.edu", name="Bob Zhang"),
        "teacher": factory.instructor(email="teacher@example.edu", name="Teacher Li"),
    }


@pytest.fixture
def limited_app(app, migrated_pg, tmp_path):
    """A second app on the same database with rate limiting switched on (tight limits).

    The limiter is one extension object: building this app after `app` enables it with fresh
    in-memory storage; the next test's app switches it off again."""
    from tests.helpers import make_app

    limited = make_app(tmp_path / "limited", migrated_pg, CELERY_BROKER_URL="memory://", RATELIMIT_ENABLED=True,
                       SUBMIT_RATE_LIMIT="2 per minute", LOGIN_RATE_LIMIT="3 per minute",
                       UPLOAD_DIR=app.config["UPLOAD_DIR"])
    return limited


