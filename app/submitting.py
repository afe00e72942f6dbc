"""Accepting an attempt: validate, store files by sha256, commit the rows, then queue.

Takes plain data (no Flask request) so the web form, the JSON API and the CLI share it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from flask import current_app, has_app_context
from limits import RateLimitItemPerSecond
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from app.coursework import rubric_for
from app.extensions import begin_write_on_sqlite, db, limiter
from app.idempotency import earlier as sent_with
from app.models import PENDING, Assignment, GradingRun, Status, Submission, User, utcnow
from app.queue import PRIORITY_FIRST, enqueue_run, queue_position
from app.storage import BlobStore, StorageUnavailable
from grading.inputs import code_file_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Upload:
    filename: str
    data: bytes
    # Invisible format characters the name was sent with and is read without (views_helpers.safe_filename):
    # a refusal names them, or "attentionyp.txt: got '.txt'" answered a file the student's file manager
    # shows as "attentiontxt.py" (U+202E shows the letters after it reversed).
    removed: str = ""
    # The name as the client sent it (a Windows path, decomposed letters...): app.upload_names tells the
    # student how the kept name differs. None when made by code, not sent.
    sent: str | None = None


class SubmissionRefused(Exception):
    """The attempt is not accepted; nothing was stored. Carries a message in both languages."""

    def __init__(self, code: str, en: str, zh: str, http_status: int = 422,
                 retry_after: int | None = None) -> None:
        super().__init__(en)
        self.code, self.en, self.zh, self.http_status = code, en, zh, http_status
        self.retry_after = retry_after  # seconds, sent as Retry-After with a 429 or 503

    def message(self, locale: str = "en") -> str:
        return self.zh if locale.startswith("zh") else self.en


def validate_uploads(code: Upload | None, audit: Upload | None, figure: Upload | None) -> str | None:
    """Validate every file (PDF and image decoding under the decoder's limits); return the audit
    text, extracted here once and stored with the submission."""
    from grading.decode import DecodeBusy
    from grading.inputs import InputError, validate_audit, validate_code, validate_figure

    # An empty file that was chosen is reported as empty by validate_code, not as missing.
    if code is None:
        raise SubmissionRefused("code_missing", "attention.py is required.", "必须上传 attention.py。", 400)
    text = None
    for upload, check in ((code, validate_code), (audit, validate_audit), (figure, validate_figure)):
        if upload is None:
            continue
        try:
            checked = check(upload.filename, upload.data)
        except DecodeBusy as exc:
            # The server's state, not the file's: 503 with Retry-After; nothing is stored yet.
            raise SubmissionRefused("server_busy", exc.en, exc.zh, 503, retry_after=exc.retry_after) from exc
        except InputError as exc:
            status = 415 if "type" in exc.code or "format" in exc.code else 422
            if "size" in exc.code or "large" in exc.code:
                status = 413
            en, zh = _naming(upload.filename, exc.en, exc.zh, upload.removed)
            raise SubmissionRefused(exc.code, en, zh, status) from exc
        if upload is audit:
            text = checked
    return text


def _naming(filename: str, en: str, zh: str, removed: str = "") -> tuple[str, str]:
    """A refusal led by the refused file's name, as the page's own checks say it ("audit.docx: ..."), and
    followed by the invisible characters that name was sent with and is read without (`removed`).

    Round 31, walked in Chromium: with three files chosen, "The JPEG image is damaged and cannot be decoded" came
    for a file named photo.png, and "The file's extension is .pdf but it is not a PDF" named no file at all. A
    message that already names the file is left as it is."""
    name = (filename or "").strip()
    named = not name or name in en
    if removed:
        en, zh = f"{en} {_removed_note(name, removed, 'en')}", f"{zh}{_removed_note(name, removed, 'zh')}"
    return (en, zh) if named else (f"{name}: {en}", f"{name}：{zh}")


# Bidi controls: each changes the order in which the letters after it are shown.
_BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _removed_note(name: str, removed: str, lang: str) -> str:
    import unicodedata

    bidi = any(ch in _BIDI_CONTROLS for ch in removed)
    if lang == "en":
        chars = ", ".join(f"U+{ord(ch):04X} ({unicodedata.name(ch, 'format character')})" for ch in removed)
        return (f"(The file name as sent holds the invisible character(s) {chars}, read here without them as '{name}'"
                + ("; such a character shows the letters after it in another order, so a file manager may show the "
                   "name otherwise" if bidi else "") + ". Rename the file, typing its name again.)")
    # Unicode's character names are English: the zh text gives the code points only.
    return (f"（文件名中含有不可见字符 {'、'.join(f'U+{ord(ch):04X}' for ch in removed)}，这里去掉后读作“{name}”"
            + ("；这种字符会改变其后字母的显示顺序，因此文件管理器中显示的名字可能不同" if bidi else "")
            + "。请重新输入文件名给文件改名。）")


# --- what one user's uploads may cost in decoding --------------------------------------------------
#
# A PDF audit or a figure is decoded in a child with up to DECODE_CPU_S of CPU (grading/decode.py),
# and each process runs DECODE_SLOTS decodes at once. Without a per-user bound one user sending
# uploads at the decoder's limits in parallel took every slot (the others' uploads: 503 "server
# busy"), and in series cost up to 2 x DECODE_CPU_S per upload at the submit rate limit. Now one
# user has at most one decode at a time per process, and their decodes' CPU is counted against
# DECODE_USER_CPU_S per DECODE_USER_WINDOW_S in the rate limiter's store.

_IN_FLIGHT = object()  # a running decode sent without an idempotency key


class _Decoding:
    """The users of this process with a decode running, and the idempotency key it was sent with
    (a second one is refused, not queued: a queue per user would hold web threads that
    DECODE_SLOTS + DECODE_QUEUE do not count)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[int, object] = {}

    @contextmanager
    def only_one(self, user_id: int, key: str | None) -> Iterator[object | None]:
        """Yields None when the user had no decode running here, else the running one's key."""
        with self._lock:
            running = self._users.get(user_id)
            if running is None:
                self._users[user_id] = key if key is not None else _IN_FLIGHT
        try:
            yield running
        finally:
            if running is None:
                with self._lock:
                    self._users.pop(user_id, None)


_decoding = _Decoding()


def _budget_store() -> tuple[FixedWindowRateLimiter, RateLimitItemPerSecond] | None:
    """The per-user decode budget's counter (tenths of a CPU second), in Flask-Limiter's own
    storage: one Redis connection pool, not a second one, and the budget is cleared with the rate
    limits (`limiter.reset()`), as an operator clearing limits after an incident expects."""
    if not has_app_context():
        return None
    cfg = current_app.config
    if not cfg.get("DECODE_USER_CPU_S") or not cfg.get("DECODE_USER_WINDOW_S"):
        return None
    item = RateLimitItemPerSecond(max(1, round(10 * float(cfg["DECODE_USER_CPU_S"]))),
                                  int(cfg["DECODE_USER_WINDOW_S"]), namespace="DECODE")
    # A fixed window whatever RATELIMIT_STRATEGY is: a moving window keeps one entry per unit of
    # cost, and a decode costs up to hundreds of tenths.
    if limiter.enabled and limiter._storage is not None:
        return FixedWindowRateLimiter(limiter.storage), item
    # Rate limits switched off (RATELIMIT_ENABLED=0; the tests' default): the limiter has no
    # storage, and the budget, which guards the decoder's CPU rather than a request rate, keeps one.
    ext = current_app.extensions
    if "decode_budget" not in ext:
        ext["decode_budget"] = FixedWindowRateLimiter(storage_from_string(
            cfg["RATELIMIT_STORAGE_URI"], **cfg.get("RATELIMIT_STORAGE_OPTIONS", {})))
    return ext["decode_budget"], item


def _budget_refusal(retry_after: int) -> SubmissionRefused:
    cfg = current_app.config
    minutes = max(1, round(int(cfg["DECODE_USER_WINDOW_S"]) / 60))
    return SubmissionRefused(
        "decode_budget",
        f"Your uploads of the last {minutes} minutes used all the time the server gives one student to "
        f"check PDFs and images ({cfg['DECODE_USER_CPU_S']:g} s of CPU). This upload was not stored; send it "
        f"again in {retry_after} s, or send the audit as .md or .txt and the figure as a plain PNG, "
        "which cost almost nothing to check. Code-only uploads are not affected.",
        f"你最近 {minutes} 分钟的上传已用完服务器分给每位学生检查 PDF 和图片的时间（{cfg['DECODE_USER_CPU_S']:g} 秒 CPU）。"
        f"本次上传没有保存；请在 {retry_after} 秒后重新提交，或把审计改为 .md / .txt、图片存为普通 PNG"
        "（检查几乎不花时间）。只提交代码不受影响。",
        429, retry_after=retry_after)


@contextmanager
def decode_budget(student: User, key: str | None = None) -> Iterator[None]:
    """Decode inside this for `student`: refused (nothing stored) while another of their uploads is
    being decoded in this process (409 when it was sent with the same idempotency key: the first
    send is still being processed, as the IETF draft asks; else 429), or when their decodes used up
    the budget (429); the CPU the decodes used is charged to them, accepted or not."""
    from grading.decode import cpu_meter

    with _decoding.only_one(student.id, key) as running:
        if running is not None and running == key:
            raise SubmissionRefused(
                "upload_in_progress",
                "This upload was sent twice and the first send is still being checked: nothing more was "
                "stored. Look at your attempts in a few seconds (an API client: send it again with the same "
                "Idempotency-Key to get its attempt).",
                "这次上传被发送了两次，第一次仍在检查中：没有再保存任何内容。请过几秒查看你的提交记录"
                "（API 客户端：用同一个 Idempotency-Key 再发送一次即可得到该次提交）。",
                409, retry_after=5)
        if running is not None:
            raise SubmissionRefused(
                "decode_in_progress",
                "Another of your uploads with an audit or figure is still being checked, so this one was "
                "not stored. If you sent the same files twice, the first upload is still being processed: "
                "look at your attempts in a few seconds before sending again.",
                "你的另一次带审计或图片的上传仍在检查中，因此本次上传没有保存。如果你把同样的文件发送了两次，"
                "第一次上传仍在处理：请过几秒查看你的提交记录，再决定是否重新提交。",
                429, retry_after=5)
        budget = _budget_store()
        key = str(student.id)
        if budget is not None:
            limiter, item = budget
            try:
                if not limiter.test(item, key):
                    reset = limiter.get_window_stats(item, key).reset_time
                    raise _budget_refusal(max(1, math.ceil(reset - time.time())))
            except SubmissionRefused:
                raise
            except Exception:  # the store is unreachable: no budget rather than no uploads
                log.warning("decode budget store unreachable; upload not limited", exc_info=True)
                budget = None
        with cpu_meter() as spent:
            try:
                yield
            finally:
                if budget is not None:
                    try:
                        budget[0].hit(budget[1], key, cost=max(1, math.ceil(10 * spent[0])))
                    except Exception:
                        log.warning("decode budget store unreachable; %.2f s not charged", spent[0],
                                    exc_info=True)


def late_days(assignment: Assignment, now: datetime, student_id: int | None = None) -> int:
    """Days late against the deadline in force for the student (their extension, if any)."""
    from app.course import student_deadline
    from app.scores import late_days_at

    due = student_deadline(assignment, student_id) if student_id is not None else assignment.deadline
    return late_days_at(due, now)


def not_enrolled() -> SubmissionRefused:
    """The refusal a dropped student gets; its message is also the notice on their page."""
    return SubmissionRefused(
        "not_enrolled",
        "You are no longer enrolled in this course, so new attempts are not accepted. Your earlier "
        "attempts and their grades stay visible. If this is a mistake, ask your instructor.",
        "你已不在本课程的名单中，因此不再接受新的提交。之前的提交和成绩仍可查看。如有误，请联系老师。",
        403)


def check_policy(assignment: Assignment, student: User, now: datetime, max_pending: int) -> int:
    """Refuse attempts the course policy does not allow; return the days late."""
    from app.course import is_dropped

    if is_dropped(student.id):
        raise not_enrolled()
    days = late_days(assignment, now, student.id)
    if days > assignment.late_days_allowed:
        from app.course import student_deadline

        due = student_deadline(assignment, student.id)
        raise SubmissionRefused(
            "deadline_passed",
            f"The deadline ({due:%Y-%m-%d %H:%M} UTC) has passed and late "
            f"submissions are accepted for {assignment.late_days_allowed} day(s) only.",
            f"截止时间（{due:%Y-%m-%d %H:%M} UTC）已过，迟交只接受 "
            f"{assignment.late_days_allowed} 天。",
            403,
        )
    # The pending count and the latest attempt's time in one query. Pending are the attempts whose
    # own grading (trigger "submit") waits: runs an instructor's regrade queued are not the
    # student's doing, and counting them refused uploads after a regrade of every attempt.
    waiting = (
        select(func.count(func.distinct(GradingRun.submission_id)))
        .join(Submission, Submission.id == GradingRun.submission_id)
        .where(Submission.assignment_id == assignment.id, Submission.student_id == student.id,
               GradingRun.trigger == "submit", GradingRun.status.in_(PENDING))
        .scalar_subquery()
    )
    pending, last = db.session.execute(
        select(waiting, func.max(Submission.created_at))
        .where(Submission.assignment_id == assignment.id, Submission.student_id == student.id)
    ).one()
    pending = pending or 0
    if max_pending and pending >= max_pending:
        raise _pending_refusal(assignment, student, max_pending)
    if assignment.cooldown_seconds and last is not None:
        wait = assignment.cooldown_seconds - (now - last).total_seconds()
        if wait > 0:
            raise SubmissionRefused(
                "cooldown",
                f"Please wait {math.ceil(wait)} s before submitting again.",
                f"请等待 {math.ceil(wait)} 秒后再提交。",
                429,
                retry_after=math.ceil(wait),
            )
    return days


def _pending_refusal(assignment: Assignment, student: User, max_pending: int) -> SubmissionRefused:
    """The pending cap's refusal, saying what is known: which attempts wait, where the oldest is (being graded
    since how long, or its place in the queue), and that a new attempt is accepted once one of them is
    graded. Retry-After: what is left of the grading budget (GRADING_BUDGET_S) of the attempt being graded, else
    one budget (how fast the queue moves depends on the workers: unknown here).

    Round 35: "wait for one to finish" said neither which attempts were waiting nor how long it might be,
    and the API's 429 had no Retry-After (the cooldown's has)."""
    from app.clock import db_now, seconds_between
    from autograder import settings

    rows = db.session.execute(
        select(Submission.attempt, GradingRun, seconds_between(GradingRun.started_at, db_now()))
        .join(GradingRun, GradingRun.submission_id == Submission.id)
        .where(Submission.assignment_id == assignment.id, Submission.student_id == student.id,
               GradingRun.trigger == "submit", GradingRun.status.in_(PENDING))
        .order_by(Submission.attempt)
    ).all()
    attempts = list(dict.fromkeys(r[0] for r in rows))
    # The attempt nearest to its end: one being graded (the longest running), else the oldest queued. Reading
    # only the oldest told a student whose second attempt was 30 s into its grading, the first requeued, to wait
    # 840 s (review of round 35).
    running = [r for r in rows if r[1].status == Status.RUNNING.value]
    oldest, run, elapsed = (max(running, key=lambda r: float(r[2] or 0)) if running
                            else rows[0] if rows else (None, None, None))
    budget = float(settings.GRADING_BUDGET_S)
    listed_en = ", ".join(str(n) for n in attempts)
    listed_zh = "、".join(str(n) for n in attempts)
    lead_en = (f"You already have {len(attempts)} attempts waiting to be graded (attempt(s) {listed_en}); at most "
               f"{max_pending} may wait at once, so this upload was not stored. A new attempt is accepted as soon as "
               "one of them is graded")
    lead_zh = (f"你已有 {len(attempts)} 次提交在等待评分（第 {listed_zh} 次）；同时最多只能有 {max_pending} 次在等待，"
               "因此本次上传没有保存。其中任一次评分完成后即可再提交")
    if run is not None and run.status == Status.RUNNING.value:
        ran = max(0, int(elapsed or 0))
        # What is left of its budget; past it (a run the sweeper has yet to reap) the state is unknown: one budget.
        retry = max(5, math.ceil(budget - ran)) if ran < budget else math.ceil(budget)
        en = f"{lead_en}: attempt {oldest} is being graded now (for {ran} s)."
        zh = f"{lead_zh}：第 {oldest} 次正在评分（已 {ran} 秒）。"
    elif run is not None:
        ahead = queue_position(run) or 0
        # How fast the queue moves depends on how many workers grade: unknown here. One grading budget, a poll a
        # client can afford, never a wait of budget x runs ahead (50 ahead said 2,040 s).
        retry = math.ceil(budget)
        where_en = "next in the queue" if ahead == 0 else f"behind {ahead} other submission(s) in the queue"
        where_zh = "在队列中排在下一个" if ahead == 0 else f"在队列中前面还有 {ahead} 份提交"
        en = f"{lead_en}: the oldest, attempt {oldest}, is {where_en}."
        zh = f"{lead_zh}：最早的第 {oldest} 次{where_zh}。"
    else:  # counted, then graded meanwhile: send it again
        retry, en, zh = 1, f"{lead_en}.", f"{lead_zh}。"
    return SubmissionRefused(
        "too_many_pending",
        f"{en} Each grading takes up to {budget:g} s of your code's time; the attempt pages show their grading live. "
        "This keeps the queue fair for everyone at the deadline.",
        f"{zh}每次评分中你的代码最多运行 {budget:g} 秒；提交页面会实时显示评分进度。这样可以在截止前保持队列对所有人公平。",
        429, retry_after=retry)


@dataclass(frozen=True)
class Carried:
    """An audit or figure that a new attempt takes over from an earlier one."""

    sha256: str
    filename: str | None
    from_attempt: int
    text: str | None = None     # an audit's text as extracted at its upload


def carried_forward(assignment: Assignment, student: User) -> tuple[Carried | None, Carried | None]:
    """(audit, figure) the next attempt keeps when it uploads none: those of the latest attempt.

    Resubmitting only the fixed attention.py is the natural thing to do; the audit and figure are
    worth 15 points and must not be lost by it."""
    return _carried(_latest_attempt(assignment.id, student.id))


def _latest_attempt(assignment_id: int, student_id: int):
    """The columns of the student's latest attempt that a new attempt needs (one query, no ORM
    object), or None before the first."""
    return db.session.execute(
        select(Submission.attempt, Submission.audit_sha256, Submission.audit_filename,
               Submission.audit_from_attempt, Submission.audit_text, Submission.figure_sha256,
               Submission.figure_filename, Submission.figure_from_attempt)
        .where(Submission.assignment_id == assignment_id, Submission.student_id == student_id)
        .order_by(Submission.attempt.desc())
        .limit(1)
    ).first()


def kept_on_resubmit(assignment_id: int, student_id: int) -> tuple[int, bool, bool] | None:
    """(the newest attempt, whether its audit, whether its figure) a code-only resubmission carries forward
    (`_carried`, as `submit` does), or None before the first attempt."""
    last = _latest_attempt(assignment_id, student_id)
    if last is None:
        return None
    audit, figure = _carried(last)
    return last.attempt, audit is not None, figure is not None


def _carried(last) -> tuple[Carried | None, Carried | None]:
    if last is None:
        return None, None
    audit = (Carried(last.audit_sha256, last.audit_filename, last.audit_from_attempt or last.attempt,
                     last.audit_text) if last.audit_sha256 else None)
    figure = (Carried(last.figure_sha256, last.figure_filename, last.figure_from_attempt or last.attempt)
              if last.figure_sha256 else None)
    return audit, figure


def _store(store: BlobStore, upload: Upload | None) -> str | None:
    if upload is None:
        return None
    return store.put(upload.data)


def _lock_student(student: User) -> None:
    """PostgreSQL: a row lock on the student. SQLite has no row locks and its reads take no lock
    outside a transaction, so two uploads could both read "2 pending" and both insert: there
    the transaction starts with BEGIN IMMEDIATE, which takes the database's write lock first
    (other writers wait up to the driver's busy timeout, 5 s)."""
    if begin_write_on_sqlite():
        return
    db.session.execute(select(User.id).where(User.id == student.id).with_for_update())


def _commit_keeping_loaded() -> None:
    """Commit without expiring what the session holds: the rows just inserted are exactly what
    the caller reads next (id, attempt, carried files), so the answer to an upload does not load
    them again. Values the database computed (a run's queued_at) are still loaded on access."""
    session = db.session()
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = True


# --- idempotency ----------------------------------------------------------------------------------
#
# A double click, a browser resending a form, or an API client retrying after a timeout sends the
# same upload again. Each send carries a key (the form: a token rendered into it; the API: the
# `Idempotency-Key` header, as in Stripe's API and the IETF httpapi draft); the attempt made by the
# first send records the key and the request's sha256, and every later send with that key gets that
# attempt back: no second attempt, no second pending slot, no cooldown refusal of the retry.

# The header's value: 1-200 visible ASCII characters (a UUID is the usual choice), optionally as a
# structured-field string in double quotes ("8e03978e-...").
MAX_IDEMPOTENCY_KEY = 200
_KEY = re.compile(r'[!#-~][ !#-~]*')  # visible ASCII and inner spaces, no double quote


def idempotency_key(header: str | None) -> str | None:
    """The key of an `Idempotency-Key` header value; None when absent or empty. A key that is not
    1-200 visible ASCII characters is refused (400), never ignored: ignoring it would make the
    retry the client relies on a second attempt."""
    if header is None:
        return None
    value = header.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    if not value:
        return None
    if len(value) > MAX_IDEMPOTENCY_KEY or not _KEY.fullmatch(value) or value.endswith(" "):
        raise SubmissionRefused(
            "bad_idempotency_key",
            f"The Idempotency-Key header must be 1-{MAX_IDEMPOTENCY_KEY} visible ASCII characters "
            "(a UUID, for example); nothing was submitted.",
            f"Idempotency-Key 请求头必须是 1-{MAX_IDEMPOTENCY_KEY} 个可见 ASCII 字符（例如一个 UUID）；"
            "本次没有提交任何内容。",
            400)
    return value


def request_sha256(assignment: Assignment, code: Upload | None, audit: Upload | None,
                   figure: Upload | None, keep_audit: bool, keep_figure: bool) -> str:
    """What a send asks for, as one digest: the assignment, each file's name and bytes, and whether
    the previous audit and figure are kept."""
    h = hashlib.sha256(f"{assignment.id}\0{int(keep_audit)}{int(keep_figure)}".encode())
    for upload in (code, audit, figure):
        if upload is None:
            h.update(b"\0-")
        else:
            h.update(b"\0" + upload.filename.encode("utf-8", "surrogatepass") + b"\0")
            h.update(hashlib.sha256(upload.data).digest())
    return h.hexdigest()


@dataclass(frozen=True)
class Accepted:
    """An attempt and whether this send made it (False: an earlier send with the key did)."""

    submission: Submission
    replayed: bool


def _sent_before(student: User, key: str, digest: str) -> Submission | None:
    """The attempt an earlier send with `key` made, or None; a different request under the key is
    refused (422), as the IETF draft asks: the key names one request, not a slot to reuse."""
    # Within the retention window only (app/idempotency.py): an older attempt forgets the key.
    earlier = sent_with(Submission.idempotency_key, key, Submission.created_at,
                        where=Submission.student_id == student.id)
    if earlier is None:
        return None
    if earlier.request_sha256 != digest:
        raise SubmissionRefused(
            "idempotency_key_reused",
            f"This Idempotency-Key was already used for a different upload (attempt {earlier.attempt}); "
            "use a new key for each new attempt. Nothing was submitted.",
            f"这个 Idempotency-Key 已用于另一次不同的上传（第 {earlier.attempt} 次提交）；每次新的提交请使用"
            "新的 key。本次没有提交任何内容。",
            422)
    return earlier


def submit(
    assignment: Assignment,
    student: User,
    code: Upload | None,
    audit: Upload | None = None,
    figure: Upload | None = None,
    *,
    store: BlobStore,
    max_pending: int = 3,
    now: datetime | None = None,
    keep_audit: bool = True,
    keep_figure: bool = True,
) -> Submission:
    """Accept one attempt. With no audit (figure) uploaded, the previous attempt's is carried
    forward unless `keep_audit` (`keep_figure`) is False: the student removed it."""
    return submit_once(assignment, student, code, audit, figure, store=store, max_pending=max_pending,
                       now=now, keep_audit=keep_audit, keep_figure=keep_figure).submission


def form_key(token: str | None, digest: str) -> str | None:
    """The key of a form send: its token and the files sent. The same page sent twice with the same
    files is one attempt; sent again with other files (after the back button) it is a new one."""
    if not token or len(token) > 64 or not re.fullmatch(r"[A-Za-z0-9_-]+", token):
        return None  # a form from before tokens, or a hand-made one: no idempotency, as before
    return f"form:{token}:{digest}"


def submit_once(
    assignment: Assignment,
    student: User,
    code: Upload | None,
    audit: Upload | None = None,
    figure: Upload | None = None,
    *,
    store: BlobStore,
    max_pending: int = 3,
    now: datetime | None = None,
    keep_audit: bool = True,
    keep_figure: bool = True,
    key: str | None = None,
    digest: str | None = None,
) -> Accepted:
    """`submit`, idempotent under `key` (already namespaced: "api:..." or form_key()): the attempt
    an earlier send with the key made is returned (replayed) before any policy check or decoding,
    so a retry is never refused by the pending cap or the cooldown its first send caused."""
    now = now or utcnow()
    if key is not None:
        digest = digest or request_sha256(assignment, code, audit, figure, keep_audit, keep_figure)
        earlier = _sent_before(student, key, digest)
        if earlier is not None:
            return Accepted(earlier, True)
    # An audit or a figure is decoded (PDF, image: up to seconds of CPU) before any lock is taken,
    # so the cheap policy checks come first: a student at the pending cap or in the cooldown costs
    # one query, not a PDF parse. They are checked again, under the row lock, in the transaction
    # that inserts the attempt. A code-only attempt (validated in microseconds) is checked once,
    # under the lock, then validated: the same refusals, in the same order.
    decodes = audit is not None or figure is not None
    audit_text = None
    if decodes:
        check_policy(assignment, student, now, max_pending)
        db.session.rollback()
        if rubric_for(assignment.suite).audit_category is None:
            raise SubmissionRefused(
                "no_audit", "This assignment has no written audit or figure: submit the code only.",
                "本作业没有审计文字和图片：只需提交代码。", 422)
        with decode_budget(student, key):
            audit_text = validate_uploads(code, audit, figure)
    for _ in range(5):
        try:
            # One student's uploads are serialised: the pending cap, the cooldown and the attempt
            # number are checked and used in the transaction that inserts the attempt.
            _lock_student(student)
            if key is not None:
                # A send with the same key that got the lock first made the attempt meanwhile.
                earlier = _sent_before(student, key, digest)
                if earlier is not None:
                    _commit_keeping_loaded()  # ends the transaction (releases the lock), keeps the row
                    return Accepted(earlier, True)
            days = check_policy(assignment, student, now, max_pending)
            if not decodes:
                validate_uploads(code, None, None)
            last = _latest_attempt(assignment.id, student.id)
            attempt = 1 + (last.attempt if last is not None else 0)
            old_audit, old_figure = _carried(last)
            old_audit = old_audit if audit is None and keep_audit else None
            old_figure = old_figure if figure is None and keep_figure else None
            submission = Submission(
                assignment_id=assignment.id,
                student_id=student.id,
                attempt=attempt,
                code_sha256=_store(store, code),
                # attention.py.txt (Windows hid the .txt) is kept as attention.py: the page names the file it
                # tells the student to run, and the grader runs it as a .py file
                code_filename=code_file_name(code.filename),
                audit_sha256=old_audit.sha256 if old_audit else _store(store, audit),
                audit_filename=old_audit.filename if old_audit else (audit.filename if audit else None),
                audit_from_attempt=old_audit.from_attempt if old_audit else None,
                audit_text=old_audit.text if old_audit else audit_text,
                figure_sha256=old_figure.sha256 if old_figure else _store(store, figure),
                figure_filename=old_figure.filename if old_figure else (figure.filename if figure else None),
                figure_from_attempt=old_figure.from_attempt if old_figure else None,
                status=Status.QUEUED.value,
                late_days=days,
                created_at=now,
                idempotency_key=key,
                request_sha256=digest if key is not None else None,
            )
            run = GradingRun(submission=submission, trigger="submit")  # queued_at: the database's clock
            db.session.add_all([submission, run])
            _commit_keeping_loaded()
            break
        except (SubmissionRefused, StorageUnavailable):
            # Nothing half-written: no row names a blob that could not be stored.
            db.session.rollback()
            raise
        except IntegrityError:
            # Two first uploads of the same file raced for its blob row (or two sends of one key
            # on a database without the row lock): retry; the key's attempt is found then.
            db.session.rollback()
    else:
        raise SubmissionRefused("busy", "Please retry.", "请重试。", 503)
    # Queue only after the commit: a worker must never receive an id it cannot read yet.
    enqueue_run(run.id, priority=PRIORITY_FIRST)
    return Accepted(submission, False)
