"""Uploaded files, stored once on disk under their sha256 (content-addressed).

A disk that is full, read-only or failing raises `StorageUnavailable` (never a bare OSError), so
the web answers "storage unavailable" with a 503 and Retry-After instead of a 500, and nothing is
half-written: a blob is written to a temporary name and renamed, and the rows that name it are
rolled back (app/submitting.py).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

# The errors that mean "this disk cannot take a write now", as opposed to a bug of ours.
UNAVAILABLE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO, errno.EACCES, errno.EPERM})


class StorageUnavailable(Exception):
    """The upload store cannot write (disk full, read-only, I/O error)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _reason(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, "EUNKNOWN") + (f" ({exc.strerror})" if exc.strerror else "")


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError("not a sha256 digest")
        return self.root / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if target.exists():
            return digest
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # Write then rename: a reader never sees half a file, and two writers of the same
            # content simply race to an identical result.
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        except OSError as exc:
            if exc.errno in UNAVAILABLE_ERRNOS:
                raise StorageUnavailable(_reason(exc)) from exc
            raise
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError) and exc.errno in UNAVAILABLE_ERRNOS:
                raise StorageUnavailable(_reason(exc)) from exc
            raise
        return digest

    def get(self, sha256: str) -> bytes:
        return self.path(sha256).read_bytes()

    def check(self) -> dict[str, object]:
        """Can this store take a write right now? For /healthz: writes, fsyncs and removes a
        small probe file, and reports the free space."""
        report: dict[str, object] = {"ok": True}
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".probe-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(b"\0" * 4096)
                    f.flush()
                    os.fsync(f.fileno())
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError as exc:
            report = {"ok": False, "error": _reason(exc)}
        try:
            report["free_bytes"] = shutil.disk_usage(self.root).free
        except OSError:
            pass
        return report
