"""Roster import from CSV: `email,name[,role]`, one person a line, a header line optional.

Missing users are created with a random password that is shown once to the instructor (never
stored in clear); existing users get their name/role updated. Bad lines are reported with their
line number and nothing about them is changed.
"""

from __future__ import annotations

import csv
import io
import re
import secrets
from dataclasses import dataclass, field

from sqlalchemy import func, select

from app.auth import EMAIL_PATTERN
from app.extensions import db
from app.models import Role, User

MAX_ROWS = 5000
EMAIL_RE = re.compile(EMAIL_PATTERN)


@dataclass
class RosterReport:
    created: list[dict] = field(default_factory=list)   # {"line", "email", "name", "role", "password"}
    updated: list[dict] = field(default_factory=list)
    unchanged: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)   # {"line", "reason", "raw"}

    def as_dict(self) -> dict:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged,
                "skipped": self.skipped}


def _decode(data: bytes) -> str:
    for enc in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    raise ValueError("not UTF-8 text")


def import_roster(data: bytes, *, acting: User | None = None) -> RosterReport:
    report = RosterReport()
    text = _decode(data)
    reader = csv.reader(io.StringIO(text))
    seen: set[str] = set()
    existing = {u.email.lower(): u for u in db.session.scalars(select(User))}
    for lineno, raw in enumerate(reader, start=1):
        if lineno > MAX_ROWS:
            report.skipped.append({"line": lineno, "reason": f"more than {MAX_ROWS} lines", "raw": ""})
            break
        cells = [c.strip() for c in raw]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if lineno == 1 and cells[0].lower() in ("email", "e-mail", "邮箱"):
            continue  # header
        shown = ",".join(raw)[:200]
        if len(cells) < 2:
            report.skipped.append({"line": lineno, "reason": "expected email,name[,role]", "raw": shown})
            continue
        email, name = cells[0], cells[1]
        role = (cells[2].lower() if len(cells) > 2 and cells[2] else Role.STUDENT.value)
        if not EMAIL_RE.match(email) or len(email) > 254:
            report.skipped.append({"line": lineno, "reason": "invalid email", "raw": shown})
            continue
        if role not in (Role.STUDENT.value, Role.INSTRUCTOR.value):
            report.skipped.append({"line": lineno, "reason": f"unknown role {role!r}", "raw": shown})
            continue
        if len(name) > 120:
            report.skipped.append({"line": lineno, "reason": "name longer than 120 characters", "raw": shown})
            continue
        key = email.lower()
        if key in seen:
            report.skipped.append({"line": lineno, "reason": "duplicate email in this file", "raw": shown})
            continue
        seen.add(key)
        user = existing.get(key)
        if user is None:
            password = secrets.token_urlsafe(9)
            user = User(email=email, name=name, role=role)
            user.set_password(password)
            db.session.add(user)
            existing[key] = user
            report.created.append({"line": lineno, "email": email, "name": name, "role": role,
                                   "password": password})
            continue
        if acting is not None and user.id == acting.id and role != user.role:
            report.skipped.append({"line": lineno, "reason": "you cannot change your own role", "raw": shown})
            continue
        changes = {}
        if name and name != user.name:
            changes["name"] = name
        if role != user.role:
            changes["role"] = role
        if changes:
            for k, v in changes.items():
                setattr(user, k, v)
            report.updated.append({"line": lineno, "email": user.email, "changes": changes})
        else:
            report.unchanged.append({"line": lineno, "email": user.email})
    db.session.commit()
    return report


def user_count() -> int:
    return db.session.scalar(select(func.count(User.id))) or 0
