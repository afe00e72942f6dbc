"""The database is the record of truth: users, assignments, submissions and every grading run."""

from __future__ import annotations

import enum
import hashlib
import secrets
from datetime import UTC, datetime
from typing import Any

from flask_login import UserMixin
from sqlalchemy import JSON, ForeignKey, Index, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

from app.clock import db_now
from app.extensions import db
from grading.i18n import decode, stop_of


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def new_session_nonce() -> str:
    return secrets.token_urlsafe(24)


class Role(enum.StrEnum):
    STUDENT = "student"
    INSTRUCTOR = "instructor"


class Status(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    GRADED = "graded"
    ERROR = "error"


# Named groups: a run or submission still waiting for its result, and one that has it.
PENDING: tuple[Status, ...] = (Status.QUEUED, Status.RUNNING)
FINAL: tuple[Status, ...] = (Status.GRADED, Status.ERROR)


class User(UserMixin, db.Model):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True, index=True)
    name: Mapped[str] = mapped_column(String(120), default="")
    role: Mapped[str] = mapped_column(String(20), default=Role.STUDENT.value)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Part of every session and remember-me cookie (see get_id). A new value at sign-out ends
    # every session of this account, copied cookies included: the server-side revocation that
    # signed client-side cookies otherwise lack.
    session_nonce: Mapped[str] = mapped_column(String(64), default=lambda: new_session_nonce())

    submissions: Mapped[list[Submission]] = relationship(
        back_populates="student", foreign_keys="Submission.student_id"
    )

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password)
        # A new password ends the sessions opened with the old one.
        self.session_nonce = new_session_nonce()

    def get_id(self) -> str:
        """The identity Flask-Login keeps in the session and signs into the remember-me cookie."""
        return f"{self.id}.{self.session_nonce}"

    def end_all_sessions(self) -> None:
        """Invalidate every session and remember-me cookie of this user, on every device."""
        self.session_nonce = new_session_nonce()

    def check_password(self, password: str) -> bool:
        return bool(self.password_hash) and check_password_hash(self.password_hash, password)

    @property
    def is_instructor(self) -> bool:
        return self.role == Role.INSTRUCTOR.value

    @property
    def display_name(self) -> str:
        return self.name or self.email


class ApiToken(db.Model):
    """Only the sha256 of a token is stored: a leaked database does not leak working tokens."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked: Mapped[bool] = mapped_column(default=False)

    user: Mapped[User] = relationship()

    @staticmethod
    def hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @classmethod
    def issue(cls, user: User) -> tuple[ApiToken, str]:
        token = "ag_" + secrets.token_urlsafe(32)
        return cls(user=user, token_hash=cls.hash(token)), token


class Assignment(db.Model):
    """An assignment names its acceptance suite and rubric folders, so new ones need no code."""

    __tablename__ = "assignments"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    suite: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(Text, default="")
    deadline: Mapped[datetime | None]
    # Late policy: fraction of the attempt's score lost per started day late (app/scores.effective),
    # and how many days are accepted.
    late_penalty_per_day: Mapped[float] = mapped_column(default=0.1)
    late_days_allowed: Mapped[int] = mapped_column(default=3)
    cooldown_seconds: Mapped[int] = mapped_column(default=0)
    published: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Blob(db.Model):
    """An uploaded file, stored once under its sha256, its bytes in the database (app/storage.py)."""

    __tablename__ = "blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int]
    # Deferred: listing blobs never loads their bytes. NULL only for a first-release blob whose
    # file the migration could not find.
    data: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Submission(db.Model):
    __tablename__ = "submissions"
    __table_args__ = (
        UniqueConstraint("assignment_id", "student_id", "attempt", name="uq_submission_attempt"),
        # One attempt per idempotency key of a student: a retried or double-sent upload finds the
        # attempt its first send made (app/submitting.py submit_once) instead of making another.
        UniqueConstraint("student_id", "idempotency_key", name="uq_submission_idempotency_key"),
        Index("ix_submissions_status", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id"), index=True)
    student_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    attempt: Mapped[int]
    code_sha256: Mapped[str] = mapped_column(ForeignKey("blobs.sha256"))
    code_filename: Mapped[str] = mapped_column(String(255), default="attention.py")
    audit_sha256: Mapped[str | None] = mapped_column(ForeignKey("blobs.sha256"))
    audit_filename: Mapped[str | None] = mapped_column(String(255))
    # The audit's text, extracted once at upload (a PDF under the decoder's limits) and read by
    # pages and workers instead of parsing the upload again. Deferred: lists never load it.
    audit_text: Mapped[str | None] = mapped_column(Text, deferred=True)
    figure_sha256: Mapped[str | None] = mapped_column(ForeignKey("blobs.sha256"))
    figure_filename: Mapped[str | None] = mapped_column(String(255))
    # Set when the audit / figure was not uploaded with this attempt but carried forward from an
    # earlier one (the attempt number it was uploaded with): a code-only resubmission keeps them.
    audit_from_attempt: Mapped[int | None]
    figure_from_attempt: Mapped[int | None]
    status: Mapped[str] = mapped_column(String(20), default=Status.QUEUED.value)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    late_days: Mapped[int] = mapped_column(default=0)
    # The key the upload was sent with ("api:<Idempotency-Key header>" or "form:<form token>:<files>")
    # and the sha256 of what was sent with it: a second send with the key and the same request
    # gets this attempt back; with another request under the same key it is refused.
    idempotency_key: Mapped[str | None] = mapped_column(String(300))
    request_sha256: Mapped[str | None] = mapped_column(String(64))

    assignment: Mapped[Assignment] = relationship()
    student: Mapped[User] = relationship(back_populates="submissions", foreign_keys=[student_id])
    runs: Mapped[list[GradingRun]] = relationship(
        back_populates="submission", order_by="GradingRun.id", cascade="all, delete-orphan"
    )
    reviews: Mapped[list[AuditReview]] = relationship(
        back_populates="submission", order_by="AuditReview.id", cascade="all, delete-orphan"
    )
    # Every override row, oldest first; app.scores.overrides_in_force() picks the ones in force.
    overrides: Mapped[list[ScoreOverride]] = relationship(
        order_by="ScoreOverride.id", cascade="all, delete-orphan", viewonly=False
    )

    @property
    def latest_run(self) -> GradingRun | None:
        return self.runs[-1] if self.runs else None

    @property
    def latest_graded_run(self) -> GradingRun | None:
        graded = [r for r in self.runs if r.status == Status.GRADED.value]
        return graded[-1] if graded else None

    @property
    def audit_review(self) -> AuditReview | None:
        return self.reviews[-1] if self.reviews else None


class GradingRun(db.Model):
    """One grading of one submission. Regrades add runs; old runs are kept for comparison."""

    __tablename__ = "grading_runs"
    __table_args__ = (Index("ix_grading_runs_status_queued", "status", "queued_at"),
                      UniqueConstraint("idempotency_key", name="uq_grading_runs_idempotency_key"))

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    trigger: Mapped[str] = mapped_column(String(20), default="submit")
    status: Mapped[str] = mapped_column(String(20), default=Status.QUEUED.value)
    status_reason: Mapped[str | None] = mapped_column(Text)
    grader_version: Mapped[str | None] = mapped_column(String(64))
    # The database's clock (app/clock.py): the sweeper compares queue ages with that clock too.
    queued_at: Mapped[datetime] = mapped_column(default=db_now())
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    worker: Mapped[str | None] = mapped_column(String(200))
    tries: Mapped[int] = mapped_column(default=0)
    total: Mapped[float | None]
    max_total: Mapped[float | None]
    categories: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    log_excerpt: Mapped[str | None] = mapped_column(Text)
    # CPU seconds of the grading in the worker and its test process (not the jail's), for /metrics.
    cpu_s: Mapped[float | None]
    # A single-run regrade's Idempotency-Key (app/idempotency.py scoped_key): a retried request
    # answers this run instead of queuing a second one. NULL for other runs and after RETENTION.
    idempotency_key: Mapped[str | None] = mapped_column(String(64))

    submission: Mapped[Submission] = relationship(back_populates="runs")

    @property
    def is_regrade(self) -> bool:
        """Every run but an upload's own: a single regrade ("regrade") and a batch's ("batch:<id>").
        The one rule of the run tables' labels (the student's page read only "regrade*", so a class
        regrade's runs were labelled "submission" there, round 31)."""
        return self.trigger != "submit"

    tests: Mapped[list[TestResult]] = relationship(
        back_populates="run", order_by="TestResult.id", cascade="all, delete-orphan"
    )


class TestResult(db.Model):
    __tablename__ = "test_results"
    __test__ = False  # a model, not a pytest test class
    __table_args__ = (UniqueConstraint("run_id", "test_id", name="uq_test_result_run_test"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("grading_runs.id", ondelete="CASCADE"), index=True)
    test_id: Mapped[str] = mapped_column(String(200), index=True)
    category: Mapped[str] = mapped_column(String(40))
    outcome: Mapped[str] = mapped_column(String(20))
    points: Mapped[float]
    max_points: Mapped[float]
    hidden: Mapped[bool] = mapped_column(default=False)
    # A {"en", "zh"} message as JSON text (grading.i18n.encode); rows from before are plain text.
    feedback: Mapped[str] = mapped_column(Text, default="")

    run: Mapped[GradingRun] = relationship(back_populates="tests")

    @property
    def feedback_message(self) -> dict[str, str] | str:
        """The feedback as the engine produced it: a {"en", "zh"} dict (old rows: a string)."""
        return decode(self.feedback)

    @property
    def stopped(self) -> str | None:
        """How a ``timeout`` ended (grading.i18n.stop_of): the instructor's run tables say it as the
        student's result page does."""
        return stop_of({"outcome": self.outcome, "feedback": self.feedback})


class AuditReview(db.Model):
    """An instructor's audit score: overrides the automatic one and survives regrades."""

    __tablename__ = "audit_reviews"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    score: Mapped[float]
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    submission: Mapped[Submission] = relationship(back_populates="reviews")
    reviewer: Mapped[User] = relationship()


class WorkerHeartbeat(db.Model):
    """Workers write here every few seconds: health, dashboards and the sweeper read it."""

    __tablename__ = "worker_heartbeats"

    hostname: Mapped[str] = mapped_column(String(200), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(default=utcnow)
    concurrency: Mapped[int] = mapped_column(default=1)
    grader_version: Mapped[str] = mapped_column(String(64), default="")


# --- the instructor's course management (issue 12) -----------------------------------------------


class CourseLog(db.Model):
    """Who changed what, when: settings, extensions, overrides, drops, regrades, sign-in links.

    One append-only table for every instructor action that changes a grade or a rule, so one page
    answers "why did this score change?". `before`/`after` hold the changed values as JSON."""

    __tablename__ = "course_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(30))   # setting | extension | override | drop | restore | ...
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"),
                                                       index=True)
    student_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    subject: Mapped[str] = mapped_column(String(200), default="")  # field, test id or category
    before: Mapped[Any | None] = mapped_column(JSON)
    after: Mapped[Any | None] = mapped_column(JSON)
    comment: Mapped[str] = mapped_column(Text, default="")

    actor: Mapped[User | None] = relationship(foreign_keys=[actor_id])
    student: Mapped[User | None] = relationship(foreign_keys=[student_id])
    assignment: Mapped[Assignment | None] = relationship()


class Extension(db.Model):
    """A per-student deadline: a new deadline, or extra days added to the assignment's deadline."""

    __tablename__ = "extensions"
    __table_args__ = (UniqueConstraint("assignment_id", "student_id", name="uq_extension_student"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    student_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    deadline: Mapped[datetime | None]
    extra_days: Mapped[int] = mapped_column(default=0)
    reason: Mapped[str] = mapped_column(Text, default="")
    granted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    granted_at: Mapped[datetime] = mapped_column(default=utcnow)

    student: Mapped[User] = relationship(foreign_keys=[student_id])
    granter: Mapped[User | None] = relationship(foreign_keys=[granted_by])


class ScoreOverride(db.Model):
    """An instructor's points for one test or one category of one submission, with a comment.

    Rows are never edited: the newest row for (submission, kind, target) is in force, and a row
    with `points` NULL clears the override. Overrides belong to the submission, not to a run, so
    they survive regrades."""

    __tablename__ = "score_overrides"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(10))       # "test" | "category"
    target: Mapped[str] = mapped_column(String(200))    # test id or category name
    points: Mapped[float | None]
    comment: Mapped[str] = mapped_column(Text, default="")
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    author: Mapped[User | None] = relationship()


class AnsweredRegradeKey(db.Model):
    """A single regrade's Idempotency-Key and the run that answered it: the attempt's first grading when
    it was still waiting (app/regrading.request_regrade queued nothing), or the run it queued (whose
    own ``idempotency_key`` holds it too). Kept here because several requests (each with its own key)
    can be answered by one waiting run, and so that one unique index covers both kinds of answer: a
    request and its retry racing across the first grading's start cannot both commit. Round 33: the
    key of a waiting answer was not stored at all, so its retry after the first grading had started
    queued a regrade run: another answer to the same request."""

    __tablename__ = "answered_regrade_keys"
    __table_args__ = (UniqueConstraint("idempotency_key", name="uq_answered_regrade_keys_idempotency_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("grading_runs.id", ondelete="CASCADE"), index=True)
    # scoped_key(...), NULL once past app.idempotency.RETENTION (as every other key column)
    idempotency_key: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    run: Mapped[GradingRun] = relationship()


class RegradeBatch(db.Model):
    """One regrade request; its runs carry `trigger = "batch:<id>"` (the run table is unchanged)."""

    __tablename__ = "regrade_batches"
    __table_args__ = (UniqueConstraint("form_token", name="uq_regrade_batches_form_token"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    scope: Mapped[str] = mapped_column(String(20))      # counting | all | student | submission
    student_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id", ondelete="SET NULL"))
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    runs_queued: Mapped[int] = mapped_column(default=0)
    # Runs of the batch cancelled before a worker claimed them (app/regrading.py cancel): their rows are
    # deleted, so this is what the batch's pages count of them.
    runs_cancelled: Mapped[int] = mapped_column(default=0, server_default="0")
    # Effective score of each submission before the batch: {submission_id: total | null}.
    before: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The token of the confirmation page that queued it: the same page confirmed twice (a double
    # click, a resent POST) queues one batch, not every run twice.
    form_token: Mapped[str | None] = mapped_column(String(64))

    requester: Mapped[User | None] = relationship(foreign_keys=[requested_by])
    student: Mapped[User | None] = relationship(foreign_keys=[student_id])
    # A one-attempt batch's attempt: its pages name the student and the attempt's number (round 37).
    submission: Mapped[Submission | None] = relationship(foreign_keys=[submission_id])
    assignment: Mapped[Assignment] = relationship()

    @property
    def trigger(self) -> str:
        return f"batch:{self.id}"

    @property
    def already_waiting(self) -> int:
        """Planned attempts the batch left to their first grading (app/regrading.py start): none
        of its runs grades them."""
        return max(len(self.before or {}) - self.runs_queued, 0)


class SignInLink(db.Model):
    """A one-time, expiring sign-in link. Only the sha256 of its token is stored."""

    __tablename__ = "sign_in_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]

    user: Mapped[User] = relationship(foreign_keys=[user_id])


class DroppedStudent(db.Model):
    """A student who left the course: hidden from the class list and exports, submissions kept."""

    __tablename__ = "dropped_students"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    dropped_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    dropped_at: Mapped[datetime] = mapped_column(default=utcnow)


class SimilarityReport(db.Model):
    """A similarity check over the latest submissions of an assignment (worker/similarity.py)."""

    __tablename__ = "similarity_reports"
    __table_args__ = (UniqueConstraint("form_token", name="uq_similarity_reports_form_token"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(20), default=Status.QUEUED.value)
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    threshold: Mapped[float] = mapped_column(default=0.5)
    submissions_compared: Mapped[int] = mapped_column(default=0)
    # The latest submissions not compared, by reason (grading/similarity.py: empty, alone, unreadable,
    # missing): {reason: count}; None for a report of before round 37.
    left_out: Mapped[dict[str, int] | None] = mapped_column(JSON)
    # [{"a": submission_id, "b": submission_id, "score", "score_a", "score_b",
    #   "slices_a": [[start, end], ...], "slices_b": [...]}], highest first.
    pairs: Mapped[list[Any] | None] = mapped_column(JSON)
    message: Mapped[str | None] = mapped_column(Text)
    # The starting page's token or the API's Idempotency-Key (scoped_key): the same start sent
    # twice makes one report, not two checks of the whole class.
    form_token: Mapped[str | None] = mapped_column(String(64))
