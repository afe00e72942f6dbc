"""JSON API v1, token-authenticated (`Authorization: Bearer <token>`), same rules as the pages.

Errors are JSON `{"error": "...", "code": "...", "message": {"en", "zh"}}` with the HTTP status
of the refusal (400/413/415/422, 429 for cooldown or too many pending, 403 past the deadline).
"""

from __future__ import annotations

import math
import time

from flask import Blueprint, Response, current_app, g, jsonify, render_template, request
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app import gradebook
from app.assignments import default_assignment
from app.authz import api_limit, queue_position, rate_key, submit_limit, token_required
from app.extensions import db, limiter
from app.longpoll import Admission, waits
from app.models import Assignment, AuditReview, Submission
from app.openapi import spec
from app.scores import effective_for, student_view
from app.storage import BlobStore
from app.submitting import SubmissionRefused, Upload, submit

FINAL = ("graded", "error")

bp = Blueprint("api", __name__)
# Every API request counts against its user (token or session), else its address.
limiter.limit(api_limit, key_func=rate_key)(bp)


def error(text: str, status: int, **extra: object):  # noqa: ANN201
    return jsonify({"error": text, **extra}), status


@bp.errorhandler(404)
def not_found(exc):  # noqa: ANN001, ANN201
    return error("not found", 404)


@bp.errorhandler(405)
def not_allowed(exc):  # noqa: ANN001, ANN201
    return error("method not allowed", 405)


@bp.errorhandler(429)
def too_many(exc):  # noqa: ANN001, ANN201
    return error(f"rate limit exceeded: {exc.description}", 429)


def _upload(field: str) -> Upload | None:
    f = request.files.get(field)
    if f is None or not f.filename:
        return None
    return Upload(filename=f.filename, data=f.read())


def _load(submission_id: int) -> Submission | None:
    sub = db.session.scalar(
        select(Submission).where(Submission.id == submission_id).options(
            selectinload(Submission.runs), selectinload(Submission.assignment),
            selectinload(Submission.reviews).selectinload(AuditReview.reviewer),
            selectinload(Submission.student))
    )
    user = g.api_user
    if sub is None or not (user.is_instructor or sub.student_id == user.id):
        return None
    return sub


def serialise(sub: Submission, *, full: bool = False) -> dict:
    latest = sub.latest_run
    graded = sub.latest_graded_run
    shown = graded or latest
    result = shown.result if shown is not None else None
    score = effective_for(sub, graded)
    review = sub.audit_review
    body = {
        "id": sub.id,
        "assignment": sub.assignment.slug,
        "status": latest.status if latest else sub.status,
        "attempt": sub.attempt,
        "submitted_at": sub.created_at.isoformat() + "Z",
        "late_days": sub.late_days,
        "queue_position": queue_position(latest),
        "grader_version": shown.grader_version if shown else None,
        "result": result if full else student_view(result),
        "score": score.as_dict() if score else None,
        "audit_review": (
            {"score": review.score, "comment": review.comment, "reviewer": review.reviewer.display_name,
             "at": review.created_at.isoformat() + "Z"} if review else None
        ),
    }
    if full:
        body["student"] = {"id": sub.student.id, "email": sub.student.email, "name": sub.student.name}
        body["runs"] = [
            {"id": r.id, "trigger": r.trigger, "status": r.status, "grader_version": r.grader_version,
             "total": r.total, "queued_at": r.queued_at.isoformat() + "Z"} for r in sub.runs
        ]
    return body


@bp.post("/submissions")
@token_required
@limiter.limit(submit_limit, key_func=rate_key, override_defaults=False)
def create_submission():  # noqa: ANN201
    slug = request.form.get("assignment")
    if slug:
        a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
        if a is None or (not a.published and not g.api_user.is_instructor):
            return error(f"no assignment {slug!r}", 404)
    else:
        a = default_assignment()
        if a is None:
            return error("no published assignment", 404)
    try:
        sub = submit(
            a, g.api_user, _upload("code"), _upload("audit"), _upload("figure"),
            store=BlobStore(current_app.config["UPLOAD_DIR"]),
            max_pending=current_app.config["MAX_PENDING_PER_STUDENT"],
        )
    except SubmissionRefused as exc:
        db.session.rollback()
        return error(exc.en, exc.http_status, code=exc.code, message={"en": exc.en, "zh": exc.zh})
    resp = jsonify({"id": sub.id, "status": "queued", "attempt": sub.attempt,
                    "queue_position": queue_position(sub.latest_run),
                    "url": f"/api/v1/submissions/{sub.id}"})
    resp.status_code = 202
    resp.headers["Location"] = f"/api/v1/submissions/{sub.id}"
    return resp


@bp.get("/submissions")
@token_required
def list_submissions():  # noqa: ANN201
    subs = db.session.scalars(
        select(Submission).where(Submission.student_id == g.api_user.id)
        .options(selectinload(Submission.runs), selectinload(Submission.assignment),
                 selectinload(Submission.reviews).selectinload(AuditReview.reviewer))
        .order_by(Submission.id)
    )
    items = []
    for s in subs:
        score = effective_for(s, s.latest_graded_run)
        items.append({"id": s.id, "assignment": s.assignment.slug, "attempt": s.attempt,
                      "status": s.latest_run.status if s.latest_run else s.status,
                      "submitted_at": s.created_at.isoformat() + "Z", "late_days": s.late_days,
                      "total": score.total if score else None})
    return jsonify({"submissions": items})


@bp.get("/submissions/<int:submission_id>")
@token_required
def get_submission(submission_id: int):  # noqa: ANN201
    """`?wait=S` (at most LONGPOLL_MAX_WAIT_S) long-polls: the answer comes as soon as grading
    ends, or after S s. Waits are bounded per user and per process (app/longpoll.py)."""
    sub = _load(submission_id)
    if sub is None:
        return error("not found", 404)
    cfg = current_app.config
    try:
        wait = float(request.args.get("wait", 0))
    except ValueError:
        return error("wait must be a number of seconds", 400)
    if not math.isfinite(wait):
        return error("wait must be a number of seconds", 400)
    wait = min(max(wait, 0.0), cfg["LONGPOLL_MAX_WAIT_S"])
    if wait and sub.status not in FINAL:
        with waits.admit(g.api_user.id, per_user=cfg["LONGPOLL_PER_USER"],
                         slots=cfg["LONGPOLL_SLOTS"]) as admission:
            if admission is Admission.USER_BUSY:
                n = cfg["LONGPOLL_PER_USER"]
                en = f"you already have {n} long-polls open; wait for one to end"
                zh = f"你已有 {n} 个长轮询在等待，请等其中一个结束后再试"
                body, status = error(en, 429, code="too_many_waits", message={"en": en, "zh": zh})
                return body, status, {"Retry-After": "1"}
            if admission is Admission.WAIT:
                _wait_until_final(submission_id, wait)
        db.session.expire_all()
    return jsonify(serialise(sub, full=g.api_user.is_instructor))


def _wait_until_final(submission_id: int, wait: float) -> None:
    deadline = time.monotonic() + wait
    # A cheap status read every 100 ms; the full answer is built once, at the end.
    status_of = select(Submission.status).where(Submission.id == submission_id)
    while time.monotonic() < deadline:
        time.sleep(0.1)
        db.session.rollback()  # end the read transaction so the next read sees new commits
        if db.session.scalar(status_of) in FINAL:
            return


@bp.post("/submissions/<int:submission_id>/regrade")
@token_required
def regrade(submission_id: int):  # noqa: ANN201
    if not g.api_user.is_instructor:
        return error("instructors only", 403)
    sub = _load(submission_id)
    if sub is None:
        return error("not found", 404)
    from app.submitting import request_regrade

    run = request_regrade(sub)
    return jsonify({"id": sub.id, "run_id": run.id, "status": "queued",
                    "queue_position": queue_position(run)}), 202


@bp.get("/gradebook")
@token_required
def get_gradebook():  # noqa: ANN201
    if not g.api_user.is_instructor:
        return error("instructors only", 403)
    slug = request.args.get("assignment")
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug)) if slug else default_assignment()
    if a is None:
        return error("no assignment", 404)
    rows = gradebook.class_rows(a)
    if request.args.get("format") == "csv":
        return Response(gradebook.to_csv(rows), mimetype="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="gradebook-{a.slug}.csv"'})
    return jsonify({"assignment": a.slug, "score_rule": gradebook.SCORE_HEADER,
                    "students": gradebook.export_rows(rows)})


@bp.get("/openapi.json")
def openapi():  # noqa: ANN201
    return jsonify(spec())


@bp.get("/docs")
def docs():  # noqa: ANN201
    return render_template("api_docs.html", spec=spec())
