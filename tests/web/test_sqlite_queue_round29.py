"""Round 29, seen walking `make run` (SQLite, the embedded default) in Chromium: a student alone in the queue
read "1 submission(s) ahead of yours in the queue" / "队列中你前面还有 1 个提交" for their own attempt.

`db_now()` wrote SQLite's strftime('%f') text, "06:32:02.168" (milliseconds), while SQLAlchemy binds and stores
a datetime as "06:32:02.168000": compared as text, a run's own stored `queued_at` sorted before the same
instant read back and bound, so the run counted itself as ahead of itself. db_now() now writes SQLAlchemy's
own format, so stored, bound and computed times compare as the instants they are."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.clock import db_now
from app.extensions import db
from app.queue import queue_position
from tests.factories import Factory
from tests.helpers import make_app
from tests.web.helpers import Web


@pytest.fixture
def sqlite_app(tmp_path):
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'autograder.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def test_a_lone_attempt_is_next_in_the_queue_and_the_page_says_so(sqlite_app):
    f = Factory()
    web = Web(sqlite_app, f)
    a = f.assignment()
    alice, bob = f.student(email="alice@example.edu"), f.student(email="bob@example.edu")
    first = web.submit(alice, a, audit=False, figure=False)
    second = web.submit(bob, a, audit=False, figure=False)
    db.session.expire_all()
    assert queue_position(first.latest_run) == 0
    assert queue_position(second.latest_run) == 1
    client = sqlite_app.test_client()
    web.login(client, alice)
    client.get("/lang/zh")
    page = client.get(f"/submissions/{first.id}").get_data(as_text=True)
    assert "下一个就轮到你。" in page, page[page.index('id="live"'):][:800]
    assert "前面还有" not in page


def test_the_database_clock_writes_the_text_sqlalchemy_stores_and_binds(sqlite_app):
    """The class: every db_now() stored (claims, heartbeats, deadlines, queue times) and later compared with a
    datetime read back and bound, or with another db_now(), must be the text SQLAlchemy writes for that instant."""
    for offset in (0.0, 1.5, -30.0):
        sql = str(db_now(offset).compile(dialect=db.engine.dialect))
        raw = db.session.connection().exec_driver_sql(f"select {sql}").scalar()
        assert raw == datetime.fromisoformat(raw).isoformat(sep=" ", timespec="microseconds"), (offset, raw)
