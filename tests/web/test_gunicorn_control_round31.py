"""gunicorn 25+ opens a control socket (``$XDG_RUNTIME_DIR`` or ``~/.gunicorn/gunicorn.ctl``) through which
``gunicornc`` can change the worker count or stop the server. Every server of a host shares that one path:
a second `autograder web` replaced the first one's socket, and stopping either deleted it. Nothing of ours
uses it, so the production settings turn it off (autograder/gunicorn_conf.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import REDIS_TEST_URL
from tests.live import Client, gunicorn
from tests.workers import service_env

pytestmark = pytest.mark.slow


def test_two_servers_on_one_host_open_no_shared_control_socket(migrated_pg: str, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    env = service_env(tmp_path / "data", migrated_pg, REDIS_TEST_URL, HOME=str(home))
    env.pop("XDG_RUNTIME_DIR", None)
    with gunicorn(env, tmp_path / "one.log") as first, gunicorn(env, tmp_path / "two.log") as second:
        assert Client(first).get("/healthz").status == 200
        assert Client(second).get("/healthz").status == 200
        assert sorted(p.name for p in home.rglob("*")) == []
