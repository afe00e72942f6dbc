"""Grading again: choosing what, and queueing it. Each regrade is a new run; old runs stay
for the old-vs-new comparison."""

from __future__ import annotations

from sqlalchemy import func, select

from app.auth import find_user
from app.extensions import db
from app.models import GradingRun, Status, Submission
from app.queue import enqueue_run


def latest_submissions() -> list[Submission]:
    newest = (
        select(func.max(Submission.id))
        .group_by(Submission.assignment_id, Submission.student_id)
        .scalar_subquery()
    )
    return list(db.session.scalars(select(Submission).where(Submission.id.in_(newest)).order_by(Submission.id)))


def select_for_regrade(
    *, all_latest: bool = False, submission_id: int | None = None, student_email: str | None = None
) -> list[GradingRun]:
    if submission_id is not None:
        sub = db.session.get(Submission, submission_id)
        if sub is None:
            raise LookupError(f"no submission {submission_id}")
        subs = [sub]
    elif student_email is not None:
        student = find_user(student_email)
        if student is None:
            raise LookupError(f"no user {student_email}")
        subs = list(db.session.scalars(select(Submission).where(Submission.student_id == student.id)))
    elif all_latest:
        subs = latest_submissions()
    else:
        subs = []
    return [request_regrade(s) for s in subs]


def request_regrade(submission: Submission, trigger: str = "regrade") -> GradingRun:
    """Add a new run for a submission; the old runs stay for the old-vs-new comparison."""
    run = GradingRun(submission=submission, trigger=trigger)
    submission.status = Status.QUEUED.value
    db.session.add(run)
    db.session.commit()
    enqueue_run(run.id)
    return run
