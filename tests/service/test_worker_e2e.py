"""A real Celery worker process grades uploads through Redis and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from app.extensions import db
from app.models import GradingRun, Submission
from app.storage import BlobStore
from app.submitting import Upload, submit
from grading.i18n import pick
from tests.audit.helpers import make_heatmap
from tests.factories import Factory
from tests.helpers import REDIS_TEST_URL, empty_database, make_app
from tests.workers import running_worker, service_env, wait_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def live_app(migrated_pg, tmp_path):
    """The app wired to the session's PostgreSQL and a private Redis database, both emptied."""
    redis.Redis.from_url(REDIS_TEST_URL).flushdb()
    app = make_app(tmp_path, migrated_pg, CELERY_BROKER_URL=REDIS_TEST_URL, REDIS_URL=REDIS_TEST_URL)
    empty_database(app)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def _status(app, sub_id: int) -> str:
    with app.app_context():
        return db.session.get(Submission, sub_id).status


def test_an_upload_is_graded_by_a_real_worker_through_redis(live_app, migrated_pg, tmp_path):
    env = service_env(tmp_path, migrated_pg, REDIS_TEST_URL)
    with live_app.app_context():
        f = Factory()
        student, assignment = f.student(), f.assignment()
        # With an audit and a figure: the pool process decodes the figure in a bounded child of its
        # own (a Celery pool process is daemonic, which multiprocessing would refuse).
        good = submit(
            assignment, student, Upload("attention.py", (FIXTURES / "correct" / "reference.py").read_bytes()),
            Upload("audit.md", (FIXTURES.parent / "audits" / "zh_thorough.md").read_bytes()),
            Upload("attention.png", make_heatmap()),
            store=BlobStore(live_app.config["UPLOAD_DIR"]),
        )
        broken = submit(  # another student: a code-only resubmission would carry the audit forward
            assignment, f.student(), Upload("attention.py", b"import torch\ndef oops(:\n"),
            store=BlobStore(live_app.config["UPLOAD_DIR"]),
        )
        good_id, broken_id = good.id, broken.id
    with running_worker(env, "e2e", log=tmp_path / "worker.log"):
        for sid in (good_id, broken_id):
            wait_for(lambda s=sid: _status(live_app, s) in ("graded", "error"), 90, what=f"submission {sid}")
    with live_app.app_context():
        run = db.session.query(GradingRun).filter_by(submission_id=good_id).one()
        assert run.status == "graded", run.status_reason
        assert run.categories["formula_shape"]["score"] == 25
        assert run.categories["implementation"]["score"] == 30
        assert run.categories["mask_parity"]["score"] == 30
        assert run.categories["audit"]["score"] > 0 and run.result["audit"]["items"], "audit and figure graded"
        assert len(run.tests) == len(run.result["tests"]) > 10
        bad = db.session.query(GradingRun).filter_by(submission_id=broken_id).one()
        assert bad.status == "graded", "a program that does not load is graded, not an error"
        assert bad.total == 0 and "SyntaxError" in pick(bad.result["message"], "en")  # {"en", "zh"}


def test_the_embedded_default_grades_with_no_server_at_all(tmp_path):
    """No DATABASE_URL, no REDIS_URL: SQLite and the SQLAlchemy broker, with a real worker process."""
    import subprocess

    from tests.workers import BIN

    env = service_env(tmp_path, "", "")
    for key in ("DATABASE_URL", "REDIS_URL"):
        env.pop(key)
    assert subprocess.run([str(BIN), "db", "upgrade"], env=env, capture_output=True).returncode == 0
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'autograder.sqlite'}")
    assert app.config["CELERY_BROKER_URL"].startswith("sqla+sqlite:///")
    with app.app_context():
        f = Factory()
        sub = submit(
            f.assignment(), f.student(),
            Upload("attention.py", (FIXTURES / "correct" / "reference.py").read_bytes()),
            store=BlobStore(app.config["UPLOAD_DIR"]),
        )
        sub_id = sub.id
    with running_worker(env, "embedded", log=tmp_path / "worker.log"):
        wait_for(lambda: _status(app, sub_id) == "graded", 90, what="the embedded-default grading")
    with app.app_context():
        assert db.session.get(Submission, sub_id).runs[-1].total == 85
        db.engine.dispose()
