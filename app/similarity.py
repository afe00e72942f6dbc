"""The similarity report, seen from the web side: start one (the worker computes it, see
worker/similarity.py), find the latest, and its JSON for the page poller and the API."""

from __future__ import annotations

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, SimilarityReport, User
from app.queue import enqueue_similarity


def latest_report(a: Assignment) -> SimilarityReport | None:
    return db.session.scalar(select(SimilarityReport).where(SimilarityReport.assignment_id == a.id)
                             .order_by(SimilarityReport.id.desc()).limit(1))


def start_similarity(a: Assignment, actor: User) -> SimilarityReport:
    report = SimilarityReport(assignment_id=a.id, requested_by=actor.id,
                              threshold=float(current_app.config["SIMILARITY_THRESHOLD"]))
    db.session.add(report)
    db.session.commit()
    enqueue_similarity(report.id)
    return report


def similarity_json(report: SimilarityReport | None) -> dict:
    """The similarity answer of the page poller and of `GET /api/v1/similarity`."""
    if report is None:
        return {"status": "none", "pairs": []}
    return {"id": report.id, "status": report.status, "threshold": report.threshold,
            "submissions_compared": report.submissions_compared, "message": report.message,
            "created_at": report.created_at.isoformat() + "Z",
            "finished_at": report.finished_at.isoformat() + "Z" if report.finished_at else None,
            "pairs": [{"a": p["a"], "b": p["b"], "score": p["score"]} for p in (report.pairs or [])]}
