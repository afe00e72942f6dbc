"""Small factories: each makes one row with sensible defaults and commits it."""

from __future__ import annotations

from itertools import count

from app.assignments import ensure_assignment
from app.extensions import db
from app.models import ApiToken, User

PASSWORD = "correct horse battery"
_seq = count(1)


class Factory:
    def user(self, role: str = "student", email: str | None = None, name: str = "") -> User:
        n = next(_seq)
        u = User(email=email or f"{role}{n}@example.edu", role=role, name=name or f"{role.title()} {n}")
        u.set_password(PASSWORD)
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
