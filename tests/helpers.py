"""Helpers shared by test modules (imported as modules, never from a conftest)."""

from __future__ import annotations

import functools
import gc
import os
import re
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache
from sqlalchemy import create_engine, text

from rubric.loader import load_rubric, rubric_path, suite_dir
from rubric.scoring import score_categories, score_tests, total


def rubric_result(suite: str, failing: frozenset[str] | set[str] | tuple[str, ...] = frozenset(), *,
                  audit_score: float | None = None, grader_version: str = "test",
                  feedback: dict[str, Any] | None = None) -> dict:
    """The one fake grade result of the tests (docs/contracts.md §2), consistent by construction:
    every test of `rubric/<suite>/rubric.yaml` passed except `failing`, scored by rubric.scoring
    as the runner does. `feedback` sets the feedback of chosen tests."""
    rubric = _rubric(suite)
    feedback = feedback or {}
    outcomes = {tid: {"outcome": "failed" if tid in failing else "passed",
                      "feedback": feedback.get(tid, f"{tid} failed: expected x, saw y" if tid in failing else None)}
                for tid in rubric.tests}
    tests = score_tests(rubric, outcomes)
    categories = score_categories(rubric, tests, audit_score)
    return {"status": "graded", "message": None, "total": total(categories),
            "max_total": rubric.max_total, "categories": categories, "tests": tests,
            "audit": None, "measurements": {"max_abs_error": 1e-12},
            "example_weights": {"student": None, "reference": None},
            "grader_version": grader_version, "duration_s": 0.9, "log": "instructor log"}


def _rubric(suite: str):
    """load_rubric, once per version of the rubric and the suite's files: reading the YAML and parsing the suite's
    test files cost ~0.1-0.3 s a call, which each web test's fake result paid."""
    files = (rubric_path(suite), *sorted(suite_dir(suite).glob("test_*.py")))
    return _rubric_of(suite, tuple((str(f), f.stat().st_mtime_ns) for f in files if f.exists()))


@functools.lru_cache(maxsize=16)
def _rubric_of(suite: str, _versions: tuple[tuple[str, int], ...]):
    return load_rubric(suite)


PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

REDIS_TEST_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

ROOT = Path(__file__).resolve().parent.parent


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


@contextmanager
def scratch_pg_database(prefix: str, admin_url: str = PG_ADMIN_URL) -> Iterator[str]:
    """A new, empty PostgreSQL database (its URL), dropped afterwards with any connection left to it
    (the tests' and the benchmarks' scratch databases)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = :n AND pid <> pg_backend_pid()"), {"n": name})
            # FORCE (PostgreSQL 13+): a long-poll listener thread reconnects 0.2 s after being terminated, and the
            # plain DROP after the terminate then failed "being accessed by other users" (round 38).
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


class _TemplateCodeCache(jinja2.BytecodeCache):
    """Compiled templates kept in memory for the process: each test builds its own app, whose Jinja environment
    would otherwise compile every template it renders again (~40 ms a template, a sixth of a web test's time).
    Jinja keys each entry by the template's name and checks its source's checksum, so an edited template is
    compiled anew; every test app's environment is built by the same create_app."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if (code := self._code.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_TEMPLATE_CODE = _TemplateCodeCache()


def fresh_wait_pools() -> None:
    """New long-poll pools (app/longpoll.py) for a test, bound wherever a module of the app or of the tests imported
    them (a test that fills the slots itself holds the pool the app uses). The pools
    are per process, keyed by user id, and ids start at 1 again in each test's emptied database: the attempts lists'
    pool remembers for TURN_S (75 s) which users were answered `now`, so a test following another by less than that
    found its user 1 giving way to the last test's user 2 and its wait answered `now`."""
    import sys

    from app import longpoll

    for old, new in ((longpoll.waits, longpoll.WaitPool()), (longpoll.list_waits, longpoll.WaitPool(turns=True))):
        for name, module in list(sys.modules.items()):
            if name.startswith(("app.", "tests.")):
                for attr, value in list(vars(module).items()):
                    if value is old:
                        setattr(module, attr, new)


def make_app(tmp_dir: Path, db_url: str, **overrides):
    os.environ["DATA_DIR"] = str(tmp_dir)
    from app import create_testing_app

    app = create_testing_app(SQLALCHEMY_DATABASE_URI=db_url, **overrides)
    app.jinja_env.bytecode_cache = _TEMPLATE_CODE
    return app


def empty_database(app) -> None:
    """Remove every row (PostgreSQL), keeping the migrated schema, and start every id at 1 again.

    DELETE, children first, and one ``setval`` per sequence: a test leaves a few rows, and TRUNCATE
    (new files for each of the 16 tables and their indexes) cost 80-320 ms per test against 6-12 ms
    for this; the fast lane runs it before each of its ~2,000 database tests. All of it is one
    statement (a DO block), one round trip: the 18 statements sent one by one cost this process
    12 ms of CPU (each compiled anew on the test's new engine) and 120 ms of wall on a loaded host,
    against 5 ms and 75 ms."""
    from app.extensions import db

    deletes = " ".join(f'DELETE FROM "{table.name}";' for table in reversed(db.metadata.sorted_tables))
    with app.app_context():
        db.session.execute(text(
            "DO $$ DECLARE seq regclass; BEGIN " + deletes +
            " FOR seq IN SELECT c.oid::regclass FROM pg_class c WHERE c.relkind = 'S' LOOP"
            " PERFORM setval(seq, 1, false); END LOOP; END $$"))
        db.session.commit()


# A fixed piece of CPU work of the same kind as the audit checker's (regex scans of mixed zh/en text and
# dictionary counting), independent of our code. The hosts here run at two or more speeds (the same
# grading took 52 and 86 ms of CPU a minute apart), so a budget in milliseconds fails or passes with the
# host; a budget in yardsticks, measured interleaved with the code under test, does not.
_YARD_TEXT = ("Each row of the heatmap is one query, and its weights sum to 1 over the keys; "
              "每一行是一个查询，这一行的权重之和为 1，被屏蔽的键权重为 0。 ") * 6
_YARD_PATTERNS = [re.compile(p) for p in (
    r"\brows?\b.{0,40}\bquer(?:y|ies)\b", r"(?:每一?行|行).{0,10}(?:和|之和).{0,8}1", r"\b(?:sum|weights?)\b",
    r"[\u3400-\u9fff]{2,}", r"(?<![\w.])\d+(?:\.\d+)?")]


def _yardstick() -> None:
    for _ in range(120):
        for pattern in _YARD_PATTERNS:
            for m in pattern.finditer(_YARD_TEXT):
                m.span()
        counts: dict[str, int] = {}
        for word in _YARD_TEXT.split():
            counts[word] = counts.get(word, 0) + 1


def cpu_in_yardsticks(fn: Callable[[], Any], rounds: int = 9) -> tuple[float, float]:
    """(best CPU seconds of ``fn``, median over ``rounds`` of its CPU divided by the yardstick's run just
    before it): adjacent runs see the same host speed, and the median drops a round in which it changed."""
    best = float("inf")
    ratios = []
    # The objects alive now (torch, the app, every earlier test's) are frozen as the worker freezes
    # its warm heap before grading (grading.forking.prepare_for_forks): otherwise each full collection
    # ``fn`` triggers walks the whole suite's heap, and the same audit cost 25 yardsticks alone and
    # 45-50 late in ``make test``.
    gc.collect()
    gc.freeze()
    try:
        for _ in range(rounds):
            t0 = time.process_time()
            _yardstick()
            t1 = time.process_time()
            fn()
            t2 = time.process_time()
            best = min(best, t2 - t1)
            ratios.append((t2 - t1) / (t1 - t0))
    finally:
        gc.unfreeze()
    return best, statistics.median(ratios)
