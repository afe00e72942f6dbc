"""A full or read-only upload disk is an answer, not a crash: 503 "storage unavailable" with
Retry-After, nothing half-written, and /healthz says so.

Uploads live in the database, so the disk that fills up is the database's: here the embedded
default, SQLite in $DATA_DIR, on a real 2 MiB tmpfs."""

from __future__ import annotations

import io
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask_migrate import upgrade
from sqlalchemy import func, select

from app.extensions import db
from app.models import Blob, GradingRun, Submission
from tests.factories import PASSWORD, Factory
from tests.helpers import make_app
from tests.reliability.helpers import CORRECT


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "uploads"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass  # ENOSPC: the disk is full
    return filler


@pytest.fixture
def disk_app(small_disk: Path):
    app = make_app(small_disk, f"sqlite:///{small_disk / 'autograder.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        upgrade()
        f = Factory()
        f.assignment()
        student = f.student()
        token = f.token(student)
        email = student.email
        db.session.remove()
    yield app, token, email
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def api_post(client, token: str):
    return client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                       data={"code": (io.BytesIO(CORRECT), "attention.py"), "confirm_no_audit": "1"},
                       content_type="multipart/form-data")


def rows(app) -> tuple[int, int, int]:
    with app.app_context():
        out = tuple(db.session.scalar(select(func.count()).select_from(m)) for m in (Submission, GradingRun, Blob))
        db.session.remove()
    return out


def leftovers(disk: Path) -> list[str]:
    """Files other than the database, its secret key and the filler (a journal left behind, say)."""
    keep = {"filler", "autograder.sqlite", "secret_key"}
    return [str(p.relative_to(disk)) for p in disk.rglob("*") if p.is_file() and p.name not in keep]


def test_a_full_upload_disk_answers_503_storage_unavailable_and_keeps_nothing(disk_app, small_disk):
    app, token, email = disk_app
    client = app.test_client()
    filler = fill(small_disk)

    resp = api_post(client, token)
    assert resp.status_code == 503, resp.get_data(as_text=True)[:300]
    body = resp.get_json()
    assert body["code"] == "storage_unavailable" and body["error"].startswith("Storage is unavailable")
    assert body["message"]["zh"] and body["message"]["en"] == body["error"]
    assert int(resp.headers["Retry-After"]) > 0
    assert rows(app) == (0, 0, 0) and leftovers(small_disk) == []

    health = client.get("/healthz")
    assert health.status_code == 503
    storage = health.get_json()["storage"]
    assert storage["ok"] is False and "ENOSPC" in storage["error"], storage

    # The upload form gets the error page, in the student's language, with the same status.
    assert client.post("/login", data={"email": email, "password": PASSWORD}).status_code == 302
    page = client.post("/assignments/attention/submit?lang=en",
                       data={"code": (io.BytesIO(CORRECT), "attention.py"), "confirm_no_audit": "1"},
                       content_type="multipart/form-data")
    assert page.status_code == 503 and page.headers["Retry-After"]
    assert "Storage is unavailable: your upload was not saved" in page.get_data(as_text=True)
    assert rows(app) == (0, 0, 0)

    # Space comes back: the same upload is accepted, and /healthz is healthy again.
    filler.unlink()
    again = api_post(client, token)
    assert again.status_code == 202, again.get_data(as_text=True)[:500]
    assert rows(app) == (1, 1, 1)
    storage = client.get("/healthz").get_json()["storage"]
    assert storage["ok"] is True and storage["free_bytes"] > 0


def test_a_read_only_upload_disk_answers_503_storage_unavailable(disk_app, small_disk):
    app, token, _ = disk_app
    client = app.test_client()
    with app.app_context():
        db.engine.dispose()  # no file open for writing, or the kernel refuses the remount
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    resp = api_post(client, token)
    assert resp.status_code == 503 and resp.get_json()["code"] == "storage_unavailable"
    assert resp.headers["Retry-After"]
    assert rows(app) == (0, 0, 0)
    health = client.get("/healthz")
    assert health.status_code == 503 and "EROFS" in health.get_json()["storage"]["error"]
