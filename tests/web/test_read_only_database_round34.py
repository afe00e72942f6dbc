"""Round 34: a PostgreSQL that takes no write (a failover's new replica, or a server set read-only) is an
outage the web answers honestly, 503 with Retry-After, not a 500.

psycopg reports SQLSTATE 25006 read_only_sql_transaction as InternalError, not OperationalError, so the
web's handler for an unavailable database never saw it: an API upload answered 500 from the sign-in
check's write. The worker's side of the same fault is tests/reliability/test_infra_faults_round34.py.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from flask import has_app_context
from sqlalchemy.engine import make_url

from app.models import Submission
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import upload


@contextmanager
def read_only(app) -> Iterator[None]:
    """The app's database set read-only for every new connection, as `ALTER DATABASE ... SET
    default_transaction_read_only` does on a server being failed over; the app's pool emptied."""
    from app.extensions import db

    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    name = url.database
    admin = url.set(database="postgres").render_as_string(hide_password=False).replace("+psycopg", "")

    def switch(on: bool) -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = {"on" if on else "off"}')
        if has_app_context():      # the test's own context (the factory's), which requests reuse
            db.session.remove()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()

    switch(True)
    try:
        yield
    finally:
        switch(False)


def test_an_upload_to_a_read_only_database_answers_503_and_keeps_nothing(app, client, factory, course):
    token = factory.token(course["alice"])
    with read_only(app):
        resp = upload(client, token)
    assert resp.status_code == 503, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["code"] == "storage_unavailable"
    assert resp.headers["Retry-After"].isdigit()
    assert "没有保存" in body["message"]["zh"] and "not saved" in body["message"]["en"]
    from app.extensions import db

    with app.app_context():
        assert db.session.query(Submission).count() == 0
    assert upload(client, token).status_code == 202     # writable again: the same upload is taken


def test_a_page_upload_to_a_read_only_database_answers_503_in_the_students_language(app, client, web, course):
    web.login(client, course["alice"])
    with read_only(app):
        resp = client.post("/assignments/attention/submit?lang=zh",
                           data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), "confirm_no_audit": "1"},
                           content_type="multipart/form-data")
    assert resp.status_code == 503, resp.status_code
    text = resp.get_data(as_text=True)
    assert "没有保存" in text or "未保存" in text, text[:2000]
