"""The similarity task: compare the latest submission of every enrolled student of an assignment
(grading/similarity.py, on copydetect) and store the pairs above the threshold in the report row."""

from __future__ import annotations

import logging

from celery import shared_task
from flask import current_app
from sqlalchemy import func, select

from app.extensions import db
from app.models import PENDING, DroppedStudent, Role, SimilarityReport, Submission, User, utcnow
from app.queue import SIMILARITY_TASK
from app.storage import BlobStore
from grading.inputs import code_text
from grading.similarity import MISSING, boilerplate_source, comparison

log = logging.getLogger(__name__)


def latest_sources(assignment_id: int, store: BlobStore, missing: list[int] | None = None) -> dict[int, str]:
    """submission id → code of each enrolled student's latest attempt; the ids whose code the store lacks
    are added to `missing`."""
    newest = (
        select(func.max(Submission.id))
        .join(User, User.id == Submission.student_id)
        .where(Submission.assignment_id == assignment_id, User.role == Role.STUDENT.value,
               User.id.not_in(select(DroppedStudent.user_id)))
        .group_by(Submission.student_id)
    )
    rows = db.session.execute(select(Submission.id, Submission.code_sha256).where(Submission.id.in_(newest))).all()
    out = {}
    for sid, sha in rows:
        try:
            out[sid] = code_text(store.get(sha))
        except OSError:
            log.warning("similarity: code of submission %s is missing from the store", sid)
            if missing is not None:
                missing.append(sid)
    return out


def run_report(report_id: int) -> str:
    """Compute one report (callable without Celery, e.g. from tests). Returns its final status."""
    report = db.session.get(SimilarityReport, report_id)
    if report is None or report.status not in PENDING:
        return "skipped"
    report.status = "running"
    db.session.commit()
    try:
        cfg = current_app.config
        missing: list[int] = []
        sources = latest_sources(report.assignment_id, BlobStore(cfg["UPLOAD_DIR"]), missing)
        suite = report_suite(report)
        found = comparison(sources, boilerplate=boilerplate_source(suite), threshold=report.threshold,
                           k=int(cfg["SIMILARITY_NOISE_K"]), win=int(cfg["SIMILARITY_WINDOW"]))
        report.pairs = [p.as_dict() for p in found.pairs]
        # Only the files compared with another (round 37: a file with nothing left once the handout
        # code is removed, or the only one, was counted as compared); the others, by reason.
        report.submissions_compared = len(found.compared)
        reasons = [*found.left_out.values(), *[MISSING] * len(missing)]
        report.left_out = {r: reasons.count(r) for r in sorted(set(reasons))}
        report.status = "done"
    except Exception as exc:
        log.exception("similarity report %s failed", report_id)
        db.session.rollback()
        report = db.session.get(SimilarityReport, report_id)
        report.status, report.message = "error", f"{exc.__class__.__name__}: {exc}"
    report.finished_at = utcnow()
    db.session.commit()
    return report.status


def report_suite(report: SimilarityReport) -> str:
    from app.models import Assignment

    return db.session.get(Assignment, report.assignment_id).suite


@shared_task(name=SIMILARITY_TASK, acks_late=True, ignore_result=True)
def similarity(report_id: int) -> str:
    return run_report(report_id)
