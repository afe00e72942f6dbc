"""Shared fixtures: a migrated PostgreSQL database per test session, the app, its client, factories."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ROOT, empty_database, fresh_wait_pools, make_app, pg_available, scratch_pg_database

# Folders whose tests start real services (workers, private Redis/PostgreSQL servers, gunicorn,
# Chromium) and take minutes together: marked `slow`, run by `make test-slow` (and CI).
SLOW_FOLDERS = ("reliability", "browser")

# Corpus files a red-team round added (named ``r<round>_...``; 547 of 1,079 at stop 52, ~100 more each round): a test
# case that grades one runs in the slow lane. Grading the corpus was 45 % of the fast lane (886 of 1,998 s at stop 52)
# and grew with every round, where the lane must stay under 10 minutes; the 532 files written before those rounds
# (every fault model, every style family) keep the fast lane's coverage, and CI runs both lanes.
ROUND_CORPUS_FILE = re.compile(r"r\d+[a-z]?_")
CORPUS = ROOT / "tests" / "fixtures" / "submissions"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the PostgreSQL server (the `pg_url` fixture, directly or through `app`,
    `migrated_pg`, ...) is marked `postgres`, so `pytest -m "not postgres"` is the fast lane; every
    test under a SLOW_FOLDERS folder is marked `slow` (`make test` runs `-m "not slow"`)."""
    for item in items:
        if "pg_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)
        if set(item.path.relative_to(ROOT / "tests").parts[:1]) & set(SLOW_FOLDERS) or _grades_a_round_file(item):
            item.add_marker(pytest.mark.slow)


def _grades_a_round_file(item: pytest.Item) -> bool:
    """Whether ``item`` is a case parametrized by a round's corpus file: its path, or its name as the corpus
    helpers take it (``FAULTY / f"{name}.py"``)."""
    params = getattr(getattr(item, "callspec", None), "params", None) or {}
    for value in params.values():
        if isinstance(value, Path) and CORPUS in value.parents and ROUND_CORPUS_FILE.match(value.stem):
            return True
        if isinstance(value, str) and ROUND_CORPUS_FILE.match(value) and value in _round_file_names():
            return True
    return False


@functools.cache
def _round_file_names() -> frozenset[str]:
    return frozenset(p.stem for p in CORPUS.rglob("*.py") if ROUND_CORPUS_FILE.match(p.stem))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The corpus files the grading tests will ask for, in order: graded from the end by a second
    process on the other core while the tests ask from the start (tests/grading/prefetch.py)."""
    if any(item.path.parent.name == "grading" for item in session.items):
        from tests.grading import helpers, prefetch

        helpers.PLANNED[:] = prefetch.planned_files(session.items, helpers.SUBMISSIONS)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, dropped afterwards."""
    if not pg_available():
        pytest.fail("PostgreSQL is not reachable at 127.0.0.1:5432 (start it: see .ci/run)")
    with scratch_pg_database("autograder_test") as url:
        yield url


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
    fresh_wait_pools()
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


@pytest.fixture(scope="session")
def _shared_executor():
    """The sandbox Executor the test modules share (tests/sandbox/helpers.SharedExecutor)."""
    # Imported here: the sandbox helpers import torch, which the web tests never need.
    from tests.sandbox.helpers import SharedExecutor

    shared = SharedExecutor()
    if "tests.grading.helpers" in sys.modules and os.geteuid() == 0:
        sys.modules["tests.grading.helpers"].start_corpus_prefetch()
    yield shared
    try:
        shared.close()
    finally:
        if "tests.grading.helpers" in sys.modules:     # the corpus prefetch's executor: nothing left either
            sys.modules["tests.grading.helpers"].close_corpus_prefetch()


@pytest.fixture(scope="module")
def executor(_shared_executor):
    """A real sandbox Executor for the sandbox and grading tests, shared by the modules (torch imported
    once, in one zygote). On a root host an unavailable sandbox fails the test: grading without it is
    not grading. Nothing of a module's jails may outlive the module: a jail still running after it, or
    a zygote that died in it, is ended with the executor (checked to leave nothing running, as each
    module's own executor was) and the next module gets a fresh one."""
    from tests.sandbox.helpers import wait_no_leftovers

    if os.geteuid() != 0:
        pytest.skip("the sandbox needs root (namespaces, uid change)")
    ex = _shared_executor.get()
    yield ex
    if not ex.alive or wait_no_leftovers(ex) != []:
        _shared_executor.close()


@pytest.fixture(scope="module")
def served(executor):
    """An executor with the service's limits (a session's CPU limit of 20 s under a grading's budget of 30 s:
    the shared one has 5 s, which every session of a grading gets, so what a cut limit shows is not seen
    there), closed with nothing left running. Asks for ``executor`` for its root check."""
    from grading.executor import suite_packages
    from grading.sandbox import Executor, Limits
    from tests.sandbox.helpers import wait_no_leftovers

    with Executor(Limits(), preload=suite_packages()) as ex:
        yield ex
        assert wait_no_leftovers(ex) == []
