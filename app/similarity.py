"""The similarity report, seen from the web side: start one (the worker computes it, see
worker/similarity.py), find the latest, and its JSON for the page poller and the API."""

from __future__ import annotations

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.idempotency import earlier
from app.models import Assignment, SimilarityReport, User
from app.queue import enqueue_similarity


def latest_report(a: Assignment) -> SimilarityReport | None:
    return db.session.scalar(select(SimilarityReport).where(SimilarityReport.assignment_id == a.id)
                             .order_by(SimilarityReport.id.desc()).limit(1))


def start_similarity(a: Assignment, actor: User, *, key: str | None = None) -> tuple[SimilarityReport, bool]:
    """(the report, replayed): a new check queued, or, for a `key` (app/idempotency.scoped_key)
    that started one within the retention window, that check (replayed, nothing queued). The
    caller compares the report's assignment with the one asked for."""
    report = earlier(SimilarityReport.form_token, key, SimilarityReport.created_at)
    if report is not None:
        return report, True
    report = SimilarityReport(assignment_id=a.id, requested_by=actor.id, form_token=key,
                              threshold=float(current_app.config["SIMILARITY_THRESHOLD"]))
    db.session.add(report)
    try:
        db.session.commit()
    except IntegrityError:  # the same key at the same moment: that request started the check
        db.session.rollback()
        report = earlier(SimilarityReport.form_token, key, SimilarityReport.created_at)
        if report is None:
            raise
        return report, True
    enqueue_similarity(report.id)
    return report, False


def similarity_json(report: SimilarityReport | None) -> dict:
    """The similarity answer of the page poller and of `GET /api/v1/similarity`."""
    if report is None:
        return {"status": "none", "pairs": []}
    # left_out is null for a report from before round 37 (docs/contracts.md): {} would say that nothing was
    # left out, which such a report never recorded.
    return {"id": report.id, "status": report.status, "threshold": report.threshold,
            "submissions_compared": report.submissions_compared, "left_out": report.left_out,
            "message": report.message,
            "created_at": report.created_at.isoformat() + "Z",
            "finished_at": report.finished_at.isoformat() + "Z" if report.finished_at else None,
            "pairs": [{"a": p["a"], "b": p["b"], "score": p["score"]} for p in (report.pairs or [])]}
