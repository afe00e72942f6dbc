"""Small factories: each makes one row with sensible defaults and commits it."""

from __future__ import annotations

from itertools import count

from werkzeug.security import generate_password_hash

from app.assignments import ensure_assignment
from app.extensions import db
from app.models import ApiToken, User

PASSWORD = "correct horse battery"
_seq = count(1)
# The one password of every factory user, hashed once per process, with one round of PBKDF2: signing in checks it
# through the app's own code (authenticate, check_password_hash), which reads the method from the stored hash. The
# app's own method (scrypt) costs ~100 ms of CPU per check, which every test's sign-in paid.
# Tests of set_password and of the sign-in's cost call set_password, which hashes the real way.
_PASSWORD_HASH: str | None = None


def _password_hash() -> str:
    global _PASSWORD_HASH
    if _PASSWORD_HASH is None:
        _PASSWORD_HASH = generate_password_hash(PASSWORD, method="pbkdf2:sha256:1")
    return _PASSWORD_HASH


class Factory:
    def user(self, role: str = "student", email: str | None = None, name: str = "") -> User:
        n = next(_seq)
        u = User(email=email or f"{role}{n}@example.edu", role=role, name=name or f"{role.title()} {n}")
        u.password_hash = _password_hash()
        db.session.add(u)
        db.session.commit()
        return u

    def student(self, **kw) -> User:
        return self.user("student", **kw)

    def instructor(self, **kw) -> User:
        return self.user("instructor", **kw)

    def assignment(self, slug: str = "attention", **kw):
        return ensure_assignment(slug, kw.pop("title", "Attention"), kw.pop("suite", "attention"), **kw)

    def token(self, user: User) -> str:
        row, secret = ApiToken.issue(user)
        db.session.add(row)
        db.session.commit()
        return secret
