"""Uploaded files, stored once under their sha256 (content-addressed) in the database.

The database is the only thing web and workers share (with the broker): a worker on another host
needs `DATABASE_URL` and `REDIS_URL`, no shared disk. A blob's bytes are written in the same
transaction as the submission that refers to them, so a refused or failed upload leaves nothing
behind. `cache_dir` (the process's `UPLOAD_DIR`) is only a local read cache, and the place where
blobs of the first release lived on disk: a blob whose bytes are not in the database yet (a row
the migration could not fill) is still read from there.

When the place that holds the bytes cannot take a write (the database's disk is full or
read-only, or a future object store is away), the web answers 503 "storage unavailable" with
Retry-After (app/__init__.py), never a 500; the transaction is rolled back, so nothing is
half-written. `check()` reports the same to /healthz.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError

from app.extensions import db
from app.models import Blob


class StorageUnavailable(Exception):
    """The place that holds uploads cannot take a write (disk full, read-only, store away)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# SQLSTATE 53100 disk_full and 25006 read_only_sql_transaction (a read-only replica or a
# server put in read-only mode); SQLite's messages for SQLITE_FULL and SQLITE_READONLY.
_PG_STORAGE_STATES = {"53100": "disk full", "25006": "read-only"}
_SQLITE_STORAGE_MESSAGES = {"database or disk is full": "disk full",
                            "attempt to write a readonly database": "read-only"}


def storage_failure(exc: DBAPIError) -> str | None:
    """The reason, when this database error means its storage cannot take a write; else None."""
    state = getattr(exc.orig, "sqlstate", None)
    if state in _PG_STORAGE_STATES:
        return f"database {_PG_STORAGE_STATES[state]} ({state})"
    text = str(exc.orig)
    for message, reason in _SQLITE_STORAGE_MESSAGES.items():
        if message in text:
            return f"database {reason} ({message})"
    return None


def note_storage_failure(reason: str) -> None:
    """Remember, in this app, the last storage failure answered (monotonic time, reason)."""
    from flask import current_app

    current_app.extensions["storage_failure"] = (time.monotonic(), reason)


def recent_storage_failure(window_s: float) -> str | None:
    from flask import current_app

    last = current_app.extensions.get("storage_failure")
    if last is not None and time.monotonic() - last[0] < window_s:
        return last[1]
    return None


def storage_report(database_url: str, window_s: float) -> dict[str, object]:
    """/healthz's view of upload storage (the database holds the bytes).

    On SQLite the database file's folder is probed with a real write; on PostgreSQL a full disk
    shows only when a write fails, so a storage failure answered in the last ``window_s`` seconds
    marks it unhealthy."""
    report: dict[str, object] = {"ok": True, "backend": "database"}
    if database_url.startswith("sqlite:///"):
        report.update(disk_report(Path(database_url[len("sqlite:///"):]).parent))
        report.pop("path", None)
    elif (reason := recent_storage_failure(window_s)) is not None:
        report.update(ok=False, error=reason)
    return report


def _errno_reason(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, "EUNKNOWN") + (f" ({exc.strerror})" if exc.strerror else "")


def disk_report(folder: Path) -> dict[str, object]:
    """Can ``folder`` take a write right now? Writes, fsyncs and removes a 4 KiB probe, and
    reports the free space (for /healthz)."""
    report: dict[str, object] = {"ok": True, "path": str(folder)}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".probe-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(b"\0" * 4096)
                f.flush()
                os.fsync(f.fileno())
        finally:
            Path(tmp).unlink(missing_ok=True)
    except OSError as exc:
        report.update(ok=False, error=_errno_reason(exc))
    try:
        report["free_bytes"] = shutil.disk_usage(folder).free
    except OSError:
        pass
    return report


def _check_digest(sha256: str) -> None:
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise ValueError("not a sha256 digest")


class BlobStore:
    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None

    def cache_path(self, sha256: str) -> Path | None:
        _check_digest(sha256)
        return None if self.cache_dir is None else self.cache_dir / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        """Add the blob to the current session (committed with the row that refers to it)."""
        digest = hashlib.sha256(data).hexdigest()
        # Whether the blob exists and has its bytes, without loading them (up to MAX_UPLOAD_BYTES).
        row = db.session.execute(select(Blob.data.is_(None)).where(Blob.sha256 == digest)).first()
        if row is None:
            db.session.add(Blob(sha256=digest, size=len(data), data=data))
            db.session.flush()
        elif row[0]:
            # A first-release blob whose file was lost: the upload restores it.
            db.session.execute(update(Blob).where(Blob.sha256 == digest).values(data=data))
        return digest

    def get(self, sha256: str) -> bytes:
        """The blob's bytes: the local cache, else the database (then cached), else the old file."""
        path = self.cache_path(sha256)
        if path is not None and path.is_file():
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() == sha256:
                return data
        data = db.session.scalar(select(Blob.data).where(Blob.sha256 == sha256))
        if data is None:
            raise FileNotFoundError(f"blob {sha256} is neither in the database nor in {self.cache_dir}")
        data = bytes(data)
        if path is not None:
            self._cache(path, data)
        return data

    @staticmethod
    def _cache(path: Path, data: bytes) -> None:
        # A cache: any failure (read-only or full disk) only means the next read asks the database.
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)  # a reader never sees half a file
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            pass
