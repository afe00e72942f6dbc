"""Uploaded files, stored once under their sha256 (content-addressed) in the database.

The database is the only thing web and workers share (with the broker): a worker on another host
needs `DATABASE_URL` and `REDIS_URL`, no shared disk. A blob's bytes are written in the same
transaction as the submission that refers to them, so a refused or failed upload leaves nothing
behind. `cache_dir` (the process's `UPLOAD_DIR`) is only a local read cache, and the place where
blobs of the first release lived on disk: a blob whose bytes are not in the database yet (a row
the migration could not fill) is still read from there.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from sqlalchemy import select

from app.extensions import db
from app.models import Blob


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
        blob = db.session.get(Blob, digest)
        if blob is None:
            db.session.add(Blob(sha256=digest, size=len(data), data=data))
            db.session.flush()
        elif blob.data is None:
            blob.data = data  # a first-release blob whose file was lost: the upload restores it
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
