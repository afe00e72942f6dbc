"""Flask configuration classes, built from `autograder.settings` (the one module of tunables)."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

from autograder import settings


def default_data_dir() -> Path:
    return Path(os.environ.get("DATA_DIR") or Path.cwd() / "data").resolve()


def _secret_key(data_dir: Path) -> str:
    """SECRET_KEY from the environment, else one generated once and kept in the data folder.

    Keeping it on disk means sessions survive restarts and every process of one deployment
    (web, workers) agrees on it without anyone having to invent a key.
    """
    if key := os.environ.get("SECRET_KEY"):
        return key
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key


def _normalise_db_url(url: str) -> str:
    # Deployments often hand out plain postgres:// URLs; SQLAlchemy wants the driver named.
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


class Config:
    TESTING = False

    def __init__(self) -> None:
        settings.check()
        # Every tunable, by name, so the worker's setting() and tests can override one per app.
        for name, value in settings.as_dict().items():
            setattr(self, name, value)
        self.DATA_DIR = default_data_dir()
        self.DATA_DIR.mkdir(parents=True, exist_ok=True)
        self.SECRET_KEY = _secret_key(self.DATA_DIR)
        self.SQLALCHEMY_DATABASE_URI = _normalise_db_url(
            os.environ.get("DATABASE_URL") or f"sqlite:///{self.DATA_DIR / 'autograder.sqlite'}"
        )
        self.SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}
        redis_url = os.environ.get("REDIS_URL")
        # Without Redis the broker is kombu's SQLAlchemy transport on a SQLite file: real Celery
        # worker processes either way, one code path, no server to install.
        self.CELERY_BROKER_URL = redis_url or f"sqla+sqlite:///{self.DATA_DIR / 'broker.sqlite'}"
        self.REDIS_URL = redis_url
        self.UPLOAD_DIR = self.DATA_DIR / "blobs"
        self.MAX_CONTENT_LENGTH = settings.MAX_UPLOAD_BYTES
        self.SESSION_COOKIE_HTTPONLY = True
        self.SESSION_COOKIE_SAMESITE = "Lax"
        self.SESSION_COOKIE_SECURE = settings.SESSION_COOKIE_SECURE
        self.REMEMBER_COOKIE_HTTPONLY = True
        self.REMEMBER_COOKIE_SECURE = self.SESSION_COOKIE_SECURE
        self.REMEMBER_COOKIE_SAMESITE = "Lax"
        self.REMEMBER_COOKIE_DURATION = timedelta(days=settings.REMEMBER_COOKIE_DAYS)
        self.WTF_CSRF_TIME_LIMIT = None
        self.RATELIMIT_STORAGE_URI = redis_url or "memory://"
        # A Redis that stops answering must not hold a request thread: fail fast, then the limiter
        # falls back to memory (app/extensions.py).
        self.RATELIMIT_STORAGE_OPTIONS = (
            {"socket_connect_timeout": 1, "socket_timeout": 1} if redis_url else {}
        )
        self.RATELIMIT_ENABLED = True
        self.RATELIMIT_HEADERS_ENABLED = True
        # Flask-Limiter sets Retry-After on every response of a limited route to the later of its
        # window's reset and the one the view set: a 503 "decoder busy, retry in 5 s" or a cooldown
        # said 60 s. Its value goes under its own name; Retry-After is set by whoever refuses (a
        # 429 of the limiter itself gets it from app/errors.py, from the same reset time).
        self.RATELIMIT_HEADER_RETRY_AFTER = "X-RateLimit-Retry-After"
        self.BABEL_DEFAULT_LOCALE = "zh"
        self.BABEL_SUPPORTED_LOCALES = ["zh", "en"]
        self.GRADING_QUEUE = "grading"
        self.CELERY_EAGER = False


class TestingConfig(Config):
    TESTING = True

    def __init__(self) -> None:
        super().__init__()
        self.WTF_CSRF_ENABLED = False
        self.RATELIMIT_ENABLED = False
        self.SECRET_KEY = "test-secret"
