"""Small factories: each makes one row with sensible defaults and commits it."""

from __future__ import annotations

from itertools import count

from app.assignments import ensure_assignment
from app.extensions import db
from app.models import ApiToken, User

PASSWORD = "correct horse battery"
_seq = count(1)
# The one password of every factory user, hashed once per process by the app's own method (scrypt, ~150 ms
# of CPU a hash): hashing it again for each of the ~5,000 users the fast lane makes cost minutes. Signing in
# still checks it the real way; tests of set_password itself call it.
_PASSWORD_HASH: str | None = None


def _password_hash() -> str:
    global _PASSWORD_HASH
    if _PASSWORD_HASH is None:
        probe = User()
        probe.set_password(PASSWORD)
        _PASSWORD_HASH = probe.password_hash
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
