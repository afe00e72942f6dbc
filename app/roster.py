"""The roster: CSV import, one-time sign-in links, and the link-consumption route.

Import: `email,name[,role]`, one person a line, or the columns a header line names in any order
(`Columns`: Canvas's, Moodle's or a registrar's export). Missing users are created
without a password; the instructor hands them a one-time, expiring sign-in link (downloaded as
CSV), so no password is ever shown or sent. Existing users get their name/role updated. Every line
that is skipped, and every cell that is ignored (extra columns), is reported with its row as a
spreadsheet shows it (and its line in a text editor where that differs) and the reason; nothing about a
skipped line is changed.
"""

from __future__ import annotations

import base64
import codecs
import csv
import hashlib
import hmac
import io
import re
import secrets
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from flask import Blueprint, abort, current_app, redirect, render_template
from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select, update

from app.auth import EMAIL_PATTERN, clean_name, home_for, normalize_email, sign_in, visible
from app.errors import cut, echoed
from app.extensions import db, limiter
from app.models import Role, SignInLink, User, utcnow
from app.roster_xlsx import has_text, read_workbook
from app.views_helpers import list_join
from grading.inputs import sniff_binary_kind

MAX_ROWS = 5000
EMAIL_RE = re.compile(EMAIL_PATTERN)
# A header line names the columns, in any order (round 34: only `email,name[,role]` in that order was
# read, so an LMS's or a registrar's export, `学号,姓名,邮箱` or Canvas's `Student, ID, SIS User ID,
# SIS Login ID, ...`, had every line skipped as "invalid email"). Cells are compared after NFKC, case
# folding and collapsing spaces. Canvas's login is used only when no column is named as an email.
_EMAIL_HEADERS = ("email", "e-mail", "email address", "e-mail address", "邮箱", "电子邮箱", "电子邮件", "邮箱地址",
                  "电子邮件地址")
_LOGIN_HEADERS = ("sis login id", "login id", "login")
_NAME_HEADERS = ("name", "full name", "student", "student name", "姓名", "名字", "学生姓名", "学生")
_FIRST_HEADERS = ("first name", "given name", "名")
_LAST_HEADERS = ("last name", "surname", "family name", "姓")
_ROLE_HEADERS = ("role", "角色", "身份")
# Canvas's gradebook export puts this row under its header: the assignments' points, not a person.
CANVAS_POINTS_ROW = "points possible"


def _header_word(cell: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", cell).casefold().split())


@dataclass(frozen=True)
class Columns:
    """Where a roster's cells are: its header's columns, or `email,name[,role]` by position."""

    email: int = 0
    name: int | None = 1
    role: int | None = 2
    first: int | None = None
    last: int | None = None
    named: bool = False   # read from a header line
    header: tuple[str, ...] = ()   # that line's cells, as written, and its row: a refusal names them
    header_row: int = 0

    @classmethod
    def of_header(cls, cells: list[str], row: int = 0) -> Columns | None:
        """The columns a header line names, or None when no cell names an email (not a header)."""
        words = [_header_word(c) for c in cells]

        def find(names: tuple[str, ...]) -> int | None:
            return next((i for i, w in enumerate(words) if w in names), None)

        email = find(_EMAIL_HEADERS)
        if email is None:
            email = find(_LOGIN_HEADERS)
        if email is None:
            return None
        return cls(email=email, name=find(_NAME_HEADERS), role=find(_ROLE_HEADERS), first=find(_FIRST_HEADERS),
                   last=find(_LAST_HEADERS), named=True, header=tuple(cells), header_row=row)

    def too_short(self, cells: list[str]):
        """Why a line with too few cells is skipped: by position, `email,name[,role]`; under a header line, that
        line's own column names the line has no cell under (round 35: a reordered header's short line was
        skipped as "expected email,name[,role]", names the file does not use)."""
        if not self.named:
            return _l("expected email,name[,role]")
        missing = [f"'{self.header[i]}'" for i in sorted({self.email, self.name} - {None}) if i >= len(cells)]
        return _l("this line has %(n)s cell(s) and none under %(missing)s: the header (line %(row)s) names the "
                  "columns %(header)s", n=len(cells), missing=list_join(missing), row=self.header_row,
                  header=cut(list_join(f"'{c}'" for c in self.header if c), 200))

    @property
    def last_needed(self) -> int:
        """The column a line must reach: its email's, and its name's when it has a name column (a line
        without one was imported as a person without a name)."""
        return max(i for i in (self.email, self.name, 0) if i is not None)

    @property
    def read(self) -> set[int]:
        return {i for i in (self.email, self.name, self.role, self.first, self.last) if i is not None}

    def cell(self, cells: list[str], index: int | None) -> str:
        return cells[index] if index is not None and index < len(cells) else ""

    def name_of(self, cells: list[str]) -> str:
        name = self.cell(cells, self.name)
        if name or not self.named:
            return name
        first, last = self.cell(cells, self.first), self.cell(cells, self.last)
        if first and last and all(_cjk(ch) for ch in first + last):
            return last + first   # 王 + 小明: a Chinese name is written family name first, without a space
        return " ".join(part for part in (first, last) if part)

    def extra(self, cells: list[str]) -> list[str]:
        """The non-empty cells this roster does not import."""
        return [c for i, c in enumerate(cells) if c and i not in self.read]


def _cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


@dataclass
class RosterReport:
    created: list[dict] = field(default_factory=list)   # {"line", "where", "email", "name", "role", "id"}
    updated: list[dict] = field(default_factory=list)
    unchanged: list[dict] = field(default_factory=list)
    # "reason": a lazy string, shown in the reader's language (they were English on the zh page)
    skipped: list[dict] = field(default_factory=list)   # {"line", "where", "reason", "raw"}
    ignored: list[dict] = field(default_factory=list)   # {"line", "where", "reason", "raw"}: cells not imported

    def as_dict(self) -> dict:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged,
                "skipped": self.skipped, "ignored": self.ignored}


class EmptyRoster(ValueError):
    """The file holds no line with text (0 bytes, a byte-order mark alone, blank lines), or is a workbook
    none of whose worksheets has a cell of text: "0 created, 0 skipped" said nothing of why (round 34)."""

    def __init__(self, reason: str, *, workbook: bool = False) -> None:
        super().__init__(reason)
        self.workbook = workbook


def _decode(data: bytes) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # Excel's "Unicode text"
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ValueError("not UTF-16 text") from None
    # UTF-16 without its byte-order mark (a file some Windows tools write): ASCII letters are a byte and a
    # NUL. Round 34: read as GB18030 it gave lines "e\x00m\x00a\x00i\x00l", each skipped as "invalid email".
    # A roster is mostly ASCII (its emails): NULs at half of one parity's bytes and at almost none of the
    # other's, never in a file that is something else (a binary pattern has them at both).
    even, odd = data[0::2].count(b"\x00") / max(1, len(data[0::2])), data[1::2].count(b"\x00") / max(1, len(data[1::2]))
    if len(data) >= 4 and max(even, odd) >= 0.5 and min(even, odd) <= 0.05 and sniff_binary_kind(data) is None:
        order = "utf-16-le" if odd > even else "utf-16-be"
        try:
            text = data.decode(order)
        except UnicodeDecodeError:
            text = ""
        # Text, not a binary file full of NULs (an old .xls): no control character but line ends and tabs.
        if text and not any(ch < " " and ch not in "\t\r\n" for ch in text):
            return text
    for enc in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    raise ValueError("not UTF-8 text")


# Roles as a Chinese roster names them.
_ROLE_WORDS = {"学生": Role.STUDENT.value, "教师": Role.INSTRUCTOR.value, "老师": Role.INSTRUCTOR.value}


def _role(cell: str) -> str:
    word = unicodedata.normalize("NFKC", cell).strip().lower()
    return _ROLE_WORDS.get(word, word)


def _delimiter(text: str) -> str:
    """The separator of the first line that holds one: a comma, else a tab (Excel's "Unicode
    text"), a semicolon (Excel where the decimal mark is a comma) or a full-width comma (typed
    with a Chinese input method)."""
    for line in text.splitlines():
        for sep in (",", "\t", ";", "，"):
            if sep in line:
                return sep
    return ","


@dataclass(frozen=True)
class Where:
    """Where a record sits: `row` as a spreadsheet shows it (Excel and WPS keep a quoted cell's line
    breaks inside one row, and count a blank line as a row), and `first`, the physical line it starts
    on, as a text editor numbers it. The two differ below a cell that holds a line break."""

    row: int
    first: int
    last: int   # its last physical line (a quoted cell with line breaks spans several)

    def label(self, *, bare: bool = False) -> str:
        """'line 5', or 'line 5 (line 7 in a text editor)' when a text editor numbers it otherwise, in
        the reader's language; `bare`: without the word 'line', under a "Line" column heading."""
        if self.first == self.row:
            return str(self.row) if bare else str(_l("line %(n)s", n=self.row))
        if bare:
            return str(_l("%(n)s (line %(first)s in a text editor)", n=self.row, first=self.first))
        return str(_l("line %(n)s (line %(first)s in a text editor)", n=self.row, first=self.first))


class _Reader(Protocol):
    line_num: int

    def __next__(self) -> list[str]: ...


def _swallowed(cells: list[str], delimiter: str) -> bool:
    """Whether a cell holds lines that read as further roster records: a quote opened and never closed
    (`a@x.edu,"Bob` ...) makes the csv module read every line after it, up to the next quote or the
    end of the file, into that one cell. They were imported as one person named "Bob c@d.edu,Carl
    e@f.edu,Eve", and the people of those lines were silently missing."""
    for cell in cells:
        for line in cell.splitlines()[1:]:
            # A roster line: an email, then the separator ("Wang\nFang, Jr." is a name with a line break).
            first, sep, _rest = line.partition(delimiter)
            if sep and EMAIL_RE.match(normalize_email(first.strip().strip('"'))):
                return True
    return False


def _records(reader: _Reader, report: RosterReport) -> Iterator[tuple[Where, list[str]]]:
    """The reader's records, each with where it sits, until one the csv module refuses (a cell past its
    field limit of 128 KiB, which no email or name is near: it was a 500), reported as a skipped line:
    the reader does not go on past it, so the rest is not read, and the lines before it are imported as
    usual. `reader.line_num` counts physical lines read so far: after a record with a line break in a
    cell it is that record's last line, and every record below it is further down in a text editor
    than in a spreadsheet, so each record's row is counted here and its first line read before it."""
    row = 0
    while True:
        first = reader.line_num + 1
        row += 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if str(exc).startswith("field larger than field limit"):
                reason = _l("a cell of this line is longer than %(n)s characters: it and the lines after it "
                            "were not read", n=csv.field_size_limit())
            else:
                reason = _l("this line could not be read as CSV: it and the lines after it were not read")
            report.skipped.append({"line": row, "where": Where(row, first, reader.line_num), "raw": "",
                                   "reason": reason})
            return
        yield Where(row, first, reader.line_num), cells


def import_roster(data: bytes, *, acting: User | None = None) -> RosterReport:
    report = RosterReport()
    records: Iterable[tuple[Where, list[str]]]
    if data.startswith(b"PK\x03\x04"):
        # A workbook: its rows as Excel numbers them. One that does not read is refused with what the
        # file is and, for a workbook, what was found in it (ValueError, WorkbookUnreadable:
        # app.instructor._roster_unreadable).
        rows = read_workbook(data, max_rows=MAX_ROWS + 1)
        if rows is None:
            raise ValueError("not a workbook this reads")
        if not has_text(rows):
            raise EmptyRoster("no worksheet with text", workbook=True)
        records, delimiter = ((Where(n, n, n), cells) for n, cells in rows), ","
    else:
        text = _decode(data)
        if not visible(text).strip():
            raise EmptyRoster("no line with text")
        # newline="" as the csv module asks: a file saved with CR line ends (Excel for Mac's "CSV
        # (Macintosh)") raised "new-line character seen in unquoted field", a 500.
        delimiter = _delimiter(text)
        records = _records(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), report)
    seen: set[str] = set()
    existing = {u.email.lower(): u for u in db.session.scalars(select(User))}
    # people: lines with an email so far; a header comes before them, maybe below a title line
    columns, people = Columns(), 0
    for count, (where, raw) in enumerate(records, start=1):
        at = {"line": where.row, "where": where}
        if count > MAX_ROWS:   # records read, not the row number: a workbook's rows may skip
            report.skipped.append({**at, "raw": "",
                                   "reason": _l("more than %(n)s lines: the rest was not read", n=MAX_ROWS)})
            break
        cells = [c.strip() for c in raw]
        shown = ",".join(raw)[:200]
        if not any(cells):
            continue
        if where.last > where.first and _swallowed(raw, delimiter):
            report.skipped.append({**at, "raw": shown, "reason": _l(
                "a quote (\") opened on this line is never closed, so lines %(first)s–%(last)s (as a text editor "
                "numbers them) were read as one cell: nothing of them was imported. Close or remove the quote and import the file again.",
                first=where.first, last=where.last)})
            continue
        if cells[0].startswith("#"):
            report.ignored.append({**at, "reason": _l("comment line"), "raw": shown})
            continue
        header = Columns.of_header(cells, where.row) if not people else None
        if header is not None:
            columns = header
            extra = header.extra(cells)
            if extra:
                report.ignored.append({**at, "reason": _l("columns not imported: %(c)s", c=list_join(extra)[:120]),
                                       "raw": shown})
            continue
        if columns.named and _header_word(cells[0]) == CANVAS_POINTS_ROW and not columns.cell(cells, columns.email):
            report.ignored.append({**at, "reason": _l("the Points Possible row of a Canvas export"), "raw": shown})
            continue
        if len(cells) <= columns.last_needed:
            report.skipped.append({**at, "reason": columns.too_short(cells), "raw": shown})
            continue
        email, name = normalize_email(columns.cell(cells, columns.email)), clean_name(columns.name_of(cells))
        role_cell = columns.cell(cells, columns.role)
        role = _role(role_cell) if role_cell else Role.STUDENT.value
        if not EMAIL_RE.match(email) or len(email) > 254:
            report.skipped.append({**at, "reason": _l("invalid email"), "raw": shown})
            continue
        people += 1
        if role not in (Role.STUDENT.value, Role.INSTRUCTOR.value):
            report.skipped.append({**at, "reason": _l("unknown role %(r)s", r=echoed(role)), "raw": shown})
            continue
        if len(name) > 120:
            report.skipped.append({**at, "reason": _l("name longer than 120 characters"), "raw": shown})
            continue
        key = email.lower()
        if key in seen:
            report.skipped.append({**at, "reason": _l("duplicate email in this file"), "raw": shown})
            continue
        seen.add(key)
        extra = columns.extra(cells)
        if extra:
            report.ignored.append({**at, "reason": _l("%(n)s extra cell(s) not imported: %(c)s",
                                                                   n=len(extra), c=list_join(extra)[:120]), "raw": shown})
        user = existing.get(key)
        if user is None:
            user = User(email=email, name=name, role=role)   # no password: a sign-in link instead
            db.session.add(user)
            db.session.flush()
            existing[key] = user
            report.created.append({**at, "email": email, "name": name, "role": role, "id": user.id})
            continue
        if acting is not None and user.id == acting.id and role != user.role:
            report.skipped.append({**at, "reason": _l("you cannot change your own role"), "raw": shown})
            continue
        changes = {}
        if name and name != user.name:
            changes["name"] = name
        if role != user.role:
            changes["role"] = role
        if changes:
            for k, v in changes.items():
                setattr(user, k, v)
            report.updated.append({**at, "email": user.email, "changes": changes})
        else:
            report.unchanged.append({**at, "email": user.email})
    db.session.commit()
    return report


def user_count() -> int:
    return db.session.scalar(select(func.count(User.id))) or 0


# --- one-time sign-in links ----------------------------------------------------------------------


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _form_link_token(form_token: str, user_id: int) -> str:
    """The link token one rendering of the roster page's form gives a user: derived (HMAC with the
    app's secret key) so that the same form sent twice gives the same links again."""
    key = current_app.config["SECRET_KEY"]
    key = key.encode() if isinstance(key, str) else key
    mac = hmac.new(key, f"signin-link|{form_token}|{user_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def issue_links(users: list[User], actor: User, base_url: str, *, form_token: str | None = None) -> list[dict]:
    """One fresh link per user; earlier unused links of these users stop working. Commits.
    Returns [{"email", "name", "url", "expires_at"}]: the only time the tokens exist in clear.

    With the roster page's `form_token`, the same form sent again (a double click: the browser
    downloads both answers, and the first file's links had been ended by the second) answers the
    links it issued, still usable, instead of ending them."""
    ttl = timedelta(hours=float(current_app.config["SIGNIN_LINK_TTL_H"]))
    now = utcnow()
    tokens = {u.id: _form_link_token(form_token, u.id) if form_token else secrets.token_urlsafe(32) for u in users}
    issued = {link.user_id: link for link in db.session.scalars(select(SignInLink).where(
        SignInLink.token_hash.in_([_hash(t) for t in tokens.values()]), SignInLink.used_at.is_(None),
        SignInLink.expires_at > now))} if form_token else {}
    fresh = [u for u in users if u.id not in issued]
    ids = [u.id for u in fresh]
    if ids:
        db.session.execute(update(SignInLink).where(SignInLink.user_id.in_(ids), SignInLink.used_at.is_(None))
                           .values(expires_at=now).execution_options(synchronize_session=False))
    out = []
    for u in users:
        token = tokens[u.id]
        if u.id in issued:
            expires = issued[u.id].expires_at
        else:
            if form_token and db.session.scalar(select(SignInLink.id).where(SignInLink.token_hash == _hash(token))):
                token = secrets.token_urlsafe(32)  # this form's link was used or has expired: a new one
            expires = now + ttl
            db.session.add(SignInLink(user_id=u.id, token_hash=_hash(token), created_by=actor.id, expires_at=expires))
        out.append({"email": u.email, "name": u.name, "url": base_url.rstrip("/") + f"/signin/{token}",
                    "expires_at": _course_time(expires)})
    if fresh:
        from app.course import log

        log("sign_in_links", actor, subject=f"{len(fresh)} link(s)", after=[u.email for u in fresh][:500])
    db.session.commit()
    return out


def _course_time(value: datetime) -> str:
    """A stored (naive UTC) time as the course's wall clock, its offset and zone named: `2026-12-08 18:30
    +08:00 Asia/Shanghai`. Round 47: the links file gave its expiry in UTC while it is named, and every page
    dates, in the course's zone, so a link good until 18:30 in Beijing read as expiring at 10:30; its mend:
    the offset tells the two 01:30s of a night the clocks go back apart."""
    from app.course import course_zone

    zone = course_zone()
    local = value.replace(tzinfo=UTC).astimezone(zone)
    offset = f"{local:%z}"
    return f"{local:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]} {zone.key}"


def links_csv(links: list[dict]) -> bytes:
    from app.gradebook import excel_csv

    return excel_csv([["email", "name", "sign_in_link", "expires_at"],
                      *([x["email"], x["name"] or "", x["url"], x["expires_at"]] for x in links)])


def _usable(token: str) -> SignInLink | None:
    link = db.session.scalar(select(SignInLink).where(SignInLink.token_hash == _hash(token)))
    if link is None or link.used_at is not None or link.expires_at <= utcnow():
        return None
    return link


# The link is opened with GET (which mail scanners and link previews also do), and consumed only by
# the POST of the button on that page, so a prefetch never uses up a student's link.
signin_bp = Blueprint("signin", __name__)


@signin_bp.get("/signin/<token>")
def signin_page(token: str):
    link = _usable(token)
    if link is None:
        return render_template("instructor/signin_link.html", link=None), 410
    return render_template("instructor/signin_link.html", link=link, token=token)


@signin_bp.post("/signin/<token>")
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"])
def signin_use(token: str):
    # One guarded UPDATE: of two clicks at once, only one finds the link unused.
    now = utcnow()
    used = db.session.execute(
        update(SignInLink)
        .where(SignInLink.token_hash == _hash(token), SignInLink.used_at.is_(None), SignInLink.expires_at > now)
        .values(used_at=now).returning(SignInLink.user_id)
    ).scalar()
    db.session.commit()
    if used is None:
        return render_template("instructor/signin_link.html", link=None), 410
    user = db.session.get(User, used)
    if user is None:
        abort(410)
    sign_in(user)
    return redirect(home_for(user))

