"""Fixtures for the failure tests: real worker processes, a private Redis database, a real HTTP server.

Every test here starts `autograder worker` processes against the session's PostgreSQL database.
They get a Redis database of their own (not TEST_REDIS_URL's db 15, which other test sessions on
this machine use at the same time: a worker of another session would otherwise take our tasks).
The sweeper, the heartbeat and the retry delay are shortened through their environment settings.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from app.extensions import db
from tests.helpers import redis_available
from tests.reliability.helpers import CANDIDATE_DBS, LOCK_KEY, Rig, clear_redis, make_rig
from tests.reliability.services import PrivateRedis


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis database nobody else is using, held with a lock key for this session."""
    if not redis_available():
        pytest.fail("Redis is not reachable at 127.0.0.1:6379")
    base = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15").rsplit("/", 1)[0]
    me = uuid.uuid4().hex
    for n in CANDIDATE_DBS:
        client = redis.Redis.from_url(f"{base}/{n}")
        foreign = [k for k in client.scan_iter(count=100) if not k.startswith(b"_kombu.binding")]
        if foreign or not client.set(LOCK_KEY, me, nx=True, ex=3600):
            continue
        try:
            yield f"{base}/{n}"
        finally:
            if client.get(LOCK_KEY) == me.encode():
                clear_redis(client)
                client.delete(LOCK_KEY)
        return
    pytest.skip(f"no free Redis database among {CANDIDATE_DBS}")


@pytest.fixture
def rig(migrated_pg: str, redis_url: str, tmp_path: Path) -> Iterator[Rig]:
    r = make_rig(tmp_path, migrated_pg, redis_url)
    yield r
    with r.app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A `redis-server` of this test alone, without persistence, that it may kill and restart."""
    folder = tmp_path / "redis"
    folder.mkdir()
    try:
        server = PrivateRedis(folder).start()
    except FileNotFoundError:
        pytest.skip("redis-server is not installed")
    yield server
    server.stop()
