"""Course rules an instructor changes from the web or the API: assignment settings, per-student
extensions, test and category overrides, dropping a student. Every change is written to the
course log (who, what, before, after, when) in the same transaction as the change itself.

Plain functions on ORM rows and plain values (no Flask request), shared by the pages and the API.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from app.auth import visible
from app.errors import cut, echoed
from app.extensions import db
from app.models import (
    Assignment,
    CourseLog,
    DroppedStudent,
    Extension,
    Role,
    ScoreOverride,
    Submission,
    User,
    utcnow,
)
from app.scores import deadline_for, late_days_at
from autograder import settings


class CourseError(ValueError):
    """Refused input: a message in both languages, nothing was changed."""

    def __init__(self, code: str, en: str, zh: str) -> None:
        super().__init__(en)
        self.code, self.en, self.zh = code, en, zh

    def message(self, locale: str = "en") -> str:
        return self.zh if str(locale).startswith("zh") else self.en


_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")

# Longest comment a student is shown (overrides, audit reviews) and longest extension reason.
MAX_COMMENT = 5000
MAX_REASON = 2000


def check_length(text: str, limit: int, what_en: str, what_zh: str) -> str:
    """`text` when it fits, else a CourseError saying its length and the limit: cutting it would
    store a comment whose end nobody sees missing."""
    if len(text) > limit:
        raise CourseError("too_long", f"The {what_en} has {len(text)} characters; at most {limit} are kept. "
                                      "Shorten it and save again; nothing was saved.",
                          f"{what_zh}共 {len(text)} 个字符，最多可保存 {limit} 个。请缩短后重新保存；本次没有保存任何内容。")
    return text


def typed(raw: str | None) -> str:
    """A value an instructor typed or pasted, as they see it: NFKC (a Chinese input method's full-width
    `１２．５`, `２０２６－１２－０１Ｔ２３：５９`), without invisible format characters (a zero-width space
    pasted from a chat made `2` "not a number" and a deadline "not a date"), stripped."""
    return visible(unicodedata.normalize("NFKC", raw or "")).strip()


def parse_number(raw: str | None) -> float:
    """A number an instructor typed: `12.5`, and also `12,5` (a decimal comma, as most of Europe
    writes it) and full-width `１２．５` (a Chinese input method). A comma followed by exactly three
    digits (`1,250`) could be a thousands separator, so it is refused rather than guessed. Raises
    ValueError (a CourseError saying why, for the comma) for anything that is not a finite number."""
    text = typed(raw).replace(" ", "")
    if _DECIMAL_COMMA.fullmatch(text):
        whole, frac = text.split(",")
        if len(frac) == 3:
            whole = whole if len(whole) <= 20 else "…" + whole[-20:]  # quoted three times: its end is enough
            raise CourseError(
                "ambiguous_number",
                f"'{cut(text)}' could be {whole}.{frac} or {whole}{frac}: write it with a dot ({whole}.{frac}).",
                f"「{cut(text)}」可能是 {whole}.{frac}，也可能是 {whole}{frac}：请用小数点书写（{whole}.{frac}）。")
        text = f"{whole}.{frac}"
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def log(kind: str, actor: User | None, *, assignment: Assignment | None = None, student_id: int | None = None,
        submission_id: int | None = None, subject: str = "", before: Any = None, after: Any = None,
        comment: str = "") -> CourseLog:
    entry = CourseLog(kind=kind, actor_id=actor.id if actor else None,
                      assignment_id=assignment.id if assignment else None, student_id=student_id,
                      submission_id=submission_id, subject=subject[:200], before=_json(before),
                      after=_json(after), comment=comment[:5000])
    db.session.add(entry)
    return entry


# --- settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingsInput:
    deadline: datetime | None
    late_penalty_per_day: float
    late_days_allowed: int
    cooldown_seconds: int
    published: bool


# Deadlines a course can have. Outside these, a date is a typo (year 9999, 0202, 20026), and the
# arithmetic on it (extra days, late days, an offset to UTC) overflowed into a 500.
EARLIEST_DEADLINE = datetime(2000, 1, 1)
LATEST_DEADLINE = datetime(2100, 1, 1)
# An extension moves a student's deadline by at most this much, whether it is given as a new
# deadline or as extra days (the same bound as the extra days').
MAX_EXTENSION = timedelta(days=365)


_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_END_OF_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})[T ]24:00(?::00(?:\.0+)?)?(Z|[+-]\d{2}:?\d{2})?")


def _utc_minutes(value: datetime) -> str:
    """A stored time for a refusal: in the course's zone, as the pages' inputs take it, and in UTC
    (`2026-12-20 23:59 Asia/Shanghai = 2026-12-20 15:59 UTC`)."""
    utc = value.strftime("%Y-%m-%d %H:%M") + " UTC"
    zone = course_zone()
    return utc if zone.key == "UTC" else f"{to_zone(value, zone):%Y-%m-%d %H:%M} {zone.key} = {utc}"


def course_zone(name: str | None = None) -> ZoneInfo:
    """The course's time zone (COURSE_TIMEZONE, checked at start), or the zone named."""
    if name is None:
        from flask import current_app, has_app_context

        name = current_app.config.get("COURSE_TIMEZONE") if has_app_context() else None
    return ZoneInfo(name or settings.COURSE_TIMEZONE)


def to_zone(value: datetime | None, zone: ZoneInfo | str | None = None) -> datetime | None:
    """A stored (naive UTC) time as the wall time in the course's zone, naive, for a form input."""
    if value is None:
        return None
    tz = zone if isinstance(zone, ZoneInfo) else course_zone(zone)
    return value.replace(tzinfo=UTC).astimezone(tz).replace(tzinfo=None)


def _from_zone(value: datetime, raw: str, tz: ZoneInfo) -> datetime:
    """A naive wall time in `tz` as naive UTC. A time the zone's clocks skip (spring forward) or
    show twice (fall back) is refused, saying so: taking either reading would move a deadline by
    the size of the change without anyone seeing it."""
    first, second = value.replace(tzinfo=tz, fold=0), value.replace(tzinfo=tz, fold=1)
    as_utc = first.astimezone(UTC)
    if as_utc.astimezone(tz).replace(tzinfo=None) != value:
        later = f"{as_utc.astimezone(tz):%Y-%m-%d %H:%M}"
        raise CourseError(
            "nonexistent_local_time",
            f"{echoed(raw)} does not exist in {tz.key}: the clocks jump forward over it. "
            f"Choose a time before or after the change, e.g. {later}; nothing was saved.",
            f"{echoed(raw)} 在 {tz.key} 时区不存在：时钟向前调整时跳过了这段时间。请选择调整前或调整后的时间，"
            f"例如 {later}；没有保存任何内容。")
    if first.utcoffset() != second.utcoffset():
        a, b = (f"{x.astimezone(UTC):%Y-%m-%d %H:%M} UTC" for x in (first, second))
        raise CourseError(
            "ambiguous_local_time",
            f"{echoed(raw)} happens twice in {tz.key} (the clocks are set back over it): it "
            f"could be {a} or {b}. Choose a time outside the repeated span; nothing was saved.",
            f"{echoed(raw)} 在 {tz.key} 时区出现两次（时钟回拨，这段时间重复一次）：它可能是 {a}，也可能是 {b}。"
            "请选择重复时段以外的时间；没有保存任何内容。")
    return as_utc.replace(tzinfo=None)


def parse_deadline(raw: str | None, zone: str | None = "UTC") -> datetime | None:
    """ISO 8601 (a trailing Z or an offset is converted to naive UTC); empty means none. A value
    without an offset is a wall time in `zone` (an IANA name): UTC for the API, the course's zone
    (`zone=None`: COURSE_TIMEZONE) for the instructor pages and the CLI. A date outside
    [EARLIEST_DEADLINE, LATEST_DEADLINE), as typed in its own zone, is refused, saying the range."""
    raw = typed(raw)
    if not raw:
        return None
    if _DATE_ONLY.fullmatch(raw):
        raise CourseError(
            "deadline_without_time",
            f"{echoed(raw)} is a day without a time: give the time too (e.g. {raw}T23:59+08:00); a date alone "
            "could mean the start or the end of that day.",
            f"{echoed(raw)} 只有日期没有时间：请同时填写时间（例如 {raw}T23:59+08:00）；只写日期可能指当天开始，也可能指当天结束。")
    end_of_day = _END_OF_DAY.fullmatch(raw)
    try:
        if end_of_day:  # ISO 8601's 24:00, the end of a day ("24:00 截止"): the next day's 00:00
            day = datetime.fromisoformat(end_of_day.group(1)) + timedelta(days=1)
            raw_next = f"{day:%Y-%m-%d}T00:00{end_of_day.group(2) or ''}"
            value = datetime.fromisoformat(raw_next.replace("Z", "+00:00"))
        else:
            value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise CourseError("bad_deadline", f"{echoed(raw)} is not a date and time (ISO 8601, e.g. 2026-12-01T23:59).",
                          f"{echoed(raw)} 不是有效的日期时间（ISO 8601，例如 2026-12-01T23:59）。") from None
    except OverflowError:  # 9999-12-31T24:00: the day after the last representable one
        value = datetime.max
    # The range is the years the person typed, in the zone they typed them in (their offset, or `zone`):
    # checked after the conversion to UTC, 2000-01-01T05:00 in Asia/Shanghai (1999-12-31 21:00 UTC) was
    # refused as "before 2000". UTC is at most 14 hours away, far from any overflow.
    if not EARLIEST_DEADLINE <= value.replace(tzinfo=None) < LATEST_DEADLINE:
        lo, hi = EARLIEST_DEADLINE.year, LATEST_DEADLINE.year - 1
        raise CourseError("deadline_out_of_range",
                          f"{echoed(raw)} is not a deadline a course can have: give a date from {lo} to {hi}.",
                          f"{echoed(raw)} 不是课程可用的截止时间：请填写 {lo} 年到 {hi} 年之间的日期。")
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if zone != "UTC":
        return _from_zone(value, raw, course_zone(zone))
    return value


def parse_shown_deadline(raw: str | None, shown: datetime | None, zone: str | None = None) -> datetime | None:
    """A deadline typed in a page's input that showed the stored `shown` (naive UTC) in `zone`:
    sent back unchanged it is `shown` itself. Read again, a stored time whose wall time the zone
    repeats (01:30 on the night DST ends) was refused as ambiguous, and no other field of the form
    could be saved without changing it."""
    if shown is not None and (raw or "").strip() == f"{to_zone(shown, zone):%Y-%m-%dT%H:%M}":
        return shown
    return parse_deadline(raw, zone)


def parse_settings(form: dict[str, Any], zone: str | None = None, current: datetime | None = None) -> SettingsInput:
    """The settings page's form; its deadline is read in `zone` (None: the course's zone), the
    stored one (`current`) when sent back as the page showed it."""
    def number(name: str, lo: float, hi: float, en: str, zh: str) -> float:
        try:
            x = parse_number(str(form.get(name, "")))
        except CourseError:
            raise  # it says why (a comma that may be a thousands separator)
        except ValueError:
            x = float("nan")
        if not lo <= x <= hi:
            raise CourseError(f"bad_{name}", en, zh)
        return x

    penalty = number("late_penalty_percent", 0, 100, "The late penalty must be a percentage from 0 to 100.",
                     "迟交扣分必须是 0 到 100 之间的百分比。") / 100
    days = number("late_days_allowed", 0, 365, "Late days accepted must be a whole number from 0 to 365.",
                  "接受迟交天数必须是 0 到 365 之间的整数。")
    cooldown = number("cooldown_seconds", 0, 86400, "The cooldown must be from 0 to 86400 seconds.",
                      "冷却时间必须在 0 到 86400 秒之间。")
    if days != int(days) or cooldown != int(cooldown):
        raise CourseError("not_whole", "Late days and cooldown must be whole numbers.",
                          "迟交天数与冷却时间必须是整数。")
    published = str(form.get("published", "")).lower() in ("1", "on", "true", "yes")
    return SettingsInput(parse_shown_deadline(form.get("deadline"), current, zone), round(penalty, 6), int(days), int(cooldown),
                         published)


def update_settings(assignment: Assignment, values: SettingsInput, actor: User) -> list[str]:
    """Apply, log each changed field, recount late days when the deadline moved. Returns the
    names of the fields that changed. Commits."""
    changed = []
    for name in ("deadline", "late_penalty_per_day", "late_days_allowed", "cooldown_seconds", "published"):
        old, new = getattr(assignment, name), getattr(values, name)
        if name == "deadline" and old is not None and new is not None \
                and old.replace(second=0, microsecond=0) == new:
            continue  # the form shows minutes: an untouched deadline with seconds is not a change
        if old != new:
            setattr(assignment, name, new)
            log("setting", actor, assignment=assignment, subject=name, before=old, after=new)
            changed.append(name)
    if "deadline" in changed:
        recount_late_days(assignment)
    db.session.commit()
    return changed


# --- extensions ----------------------------------------------------------------------------------


def student_deadline(assignment: Assignment, student_id: int) -> datetime | None:
    ext = db.session.scalar(select(Extension).where(Extension.assignment_id == assignment.id,
                                                    Extension.student_id == student_id))
    return deadline_for(assignment.deadline, ext.deadline if ext else None, ext.extra_days if ext else 0)


def recount_late_days(assignment: Assignment, student_id: int | None = None) -> int:
    """Store each submission's late days against the deadline in force now. Every reader (pages,
    API, CSV, the effective score) reads `Submission.late_days`, so this is where a new deadline or
    an extension takes effect. Returns how many submissions changed."""
    exts = {e.student_id: e for e in db.session.scalars(
        select(Extension).where(Extension.assignment_id == assignment.id))}
    q = select(Submission).where(Submission.assignment_id == assignment.id)
    if student_id is not None:
        q = q.where(Submission.student_id == student_id)
    changed = 0
    for sub in db.session.scalars(q):
        ext = exts.get(sub.student_id)
        due = deadline_for(assignment.deadline, ext.deadline if ext else None, ext.extra_days if ext else 0)
        days = late_days_at(due, sub.created_at)
        if days != sub.late_days:
            sub.late_days = days
            changed += 1
    return changed


def find_student(email: str) -> User:
    from app.auth import find_user

    user = find_user(email or "")
    if user is None or user.role != Role.STUDENT.value:
        raise CourseError("no_student", f"No student with the email {echoed(email)}.", f"没有邮箱为 {echoed(email)} 的学生。")
    return user


def grant_extension(assignment: Assignment, student: User, actor: User, *, deadline: datetime | None = None,
                    extra_days: int = 0, reason: str = "") -> Extension:
    """One extension per student and assignment: a new grant replaces the previous one. Commits."""
    if deadline is None and not extra_days:
        raise CourseError("empty_extension", "Give a new deadline or a number of extra days.",
                          "请填写新的截止时间或延长的天数。")
    if not 0 <= extra_days <= 365:
        raise CourseError("bad_days", "Extra days must be from 0 to 365.", "延长天数必须在 0 到 365 之间。")
    check_length(reason, MAX_REASON, "reason", "原因")
    if deadline is not None:
        # Counted from the class's deadline, or from now when the assignment has none.
        base = assignment.deadline or utcnow().replace(second=0, microsecond=0)
        if deadline > base + MAX_EXTENSION:
            latest = _utc_minutes(base + MAX_EXTENSION)
            raise CourseError(
                "extension_too_long",
                f"An extension moves a deadline by at most 365 days: give a deadline up to {latest}.",
                f"延期最多 365 天：请填写不晚于 {latest} 的截止时间。")
        if assignment.deadline is not None and deadline < assignment.deadline:
            due = _utc_minutes(assignment.deadline)
            raise CourseError(
                "extension_before_deadline",
                f"An extension cannot end before the assignment's deadline ({due}): give a later deadline.",
                f"延期不能早于作业的截止时间（{due}）：请填写更晚的截止时间。")
    ext = db.session.scalar(select(Extension).where(Extension.assignment_id == assignment.id,
                                                    Extension.student_id == student.id))
    before = None
    if ext is None:
        ext = Extension(assignment_id=assignment.id, student_id=student.id)
        db.session.add(ext)
    else:
        before = {"deadline": _json(ext.deadline), "extra_days": ext.extra_days}
    ext.deadline, ext.extra_days, ext.reason = deadline, int(extra_days or 0), reason[:2000]
    ext.granted_by, ext.granted_at = actor.id, utcnow()
    db.session.flush()
    recount_late_days(assignment, student.id)
    log("extension", actor, assignment=assignment, student_id=student.id, subject=student.email, before=before,
        after={"deadline": _json(deadline), "extra_days": ext.extra_days}, comment=reason)
    db.session.commit()
    return ext


def revoke_extension(assignment: Assignment, student: User, actor: User) -> bool:
    ext = db.session.scalar(select(Extension).where(Extension.assignment_id == assignment.id,
                                                    Extension.student_id == student.id))
    if ext is None:
        return False
    log("extension", actor, assignment=assignment, student_id=student.id, subject=student.email,
        before={"deadline": _json(ext.deadline), "extra_days": ext.extra_days}, after=None)
    db.session.delete(ext)
    db.session.flush()
    recount_late_days(assignment, student.id)
    db.session.commit()
    return True


# --- overrides -----------------------------------------------------------------------------------


def set_override(submission: Submission, actor: User, *, kind: str, target: str, points: float | None,
                 comment: str, categories: dict[str, dict], tests: dict[str, dict]) -> ScoreOverride:
    """Record an override (points None clears it). `categories` and `tests` are what the graded run
    holds, so only real targets can be overridden, within their maximum. Commits."""
    comment = check_length((comment or "").strip(), MAX_COMMENT, "comment", "说明")
    if kind == "category":
        if target not in categories:
            raise CourseError("bad_target", f"No category {echoed(target)} in this result.", f"结果中没有类别 {echoed(target)}。")
        top = float(categories[target].get("max") or 0)
    elif kind == "test":
        if target not in tests:
            raise CourseError("bad_target", f"No test {echoed(target)} in this result.", f"结果中没有测试 {echoed(target)}。")
        top = float(tests[target].get("max_points") or 0)
    else:
        raise CourseError("bad_kind", "Override a test or a category.", "只能覆盖测试或类别的分数。")
    if points is not None and not 0 <= points <= top:
        raise CourseError("bad_points", f"Points must be from 0 to {top:g}.", f"分数必须在 0 到 {top:g} 之间。")
    if points is not None and not comment:
        raise CourseError("no_comment", "Say why in a comment: the student sees it.", "请写明原因：学生会看到这条说明。")
    before = None
    for row in submission.overrides:
        if row.kind == kind and row.target == target:
            before = row.points
    if points is None and before is None:
        # Blank points with no override in force (forgotten points, a second "clear"): this was
        # saved as a clearing, logged as a change, and said "Override cleared." for nothing.
        raise CourseError("nothing_to_clear", "This score has no override to clear; to override it, give the points.",
                          "这项分数没有可清除的覆盖；要覆盖它，请填写分数。")
    row = ScoreOverride(submission_id=submission.id, kind=kind, target=target, points=points,
                        comment=comment[:5000], author_id=actor.id)
    db.session.add(row)
    submission.overrides.append(row)
    log("override", actor, assignment=submission.assignment, student_id=submission.student_id,
        submission_id=submission.id, subject=f"{kind}:{target}", before=before, after=points, comment=comment)
    db.session.commit()
    return row


# --- drop and restore ----------------------------------------------------------------------------


def dropped_ids() -> set[int]:
    return set(db.session.scalars(select(DroppedStudent.user_id)))


def is_dropped(student_id: int) -> bool:
    """The student was dropped from the course: they keep read access to their own attempts and
    grades, and can no longer submit (``app.submitting.check_policy``)."""
    return db.session.get(DroppedStudent, student_id) is not None


def drop(student: User, actor: User) -> bool:
    if db.session.get(DroppedStudent, student.id) is not None:
        return False
    db.session.add(DroppedStudent(user_id=student.id, dropped_by=actor.id))
    log("drop", actor, student_id=student.id, subject=student.email)
    db.session.commit()
    return True


def restore(student: User, actor: User) -> bool:
    row = db.session.get(DroppedStudent, student.id)
    if row is None:
        return False
    db.session.delete(row)
    log("restore", actor, student_id=student.id, subject=student.email)
    db.session.commit()
    return True
