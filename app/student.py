"""The student area: the assignment, one upload form, the live submission page, attempts."""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.assignments import default_assignment
from app.authz import can_see, load_submission, rate_key, submit_limit
from app.coursework import contract_markdown, rubric_for
from app.extensions import db, limiter
from app.models import ApiToken, Assignment, AuditReview, Status, Submission, utcnow
from app.queue import queue_position
from app.scores import effective_for, student_view
from app.storage import BlobStore
from app.submitting import SubmissionRefused, late_days, submit
from app.views_helpers import uploaded

bp = Blueprint("student", __name__)



def locale() -> str:
    return str(get_locale() or "zh")


def store() -> BlobStore:
    return BlobStore(current_app.config["UPLOAD_DIR"])


@bp.before_app_request
def fresh_locale() -> None:
    # The locale is cached on the app context; a context reused across requests (tests, CLI
    # tools) must not keep the previous request's language.
    from flask_babel import refresh

    refresh()


@bp.get("/")
def index():  # noqa: ANN201
    if not current_user.is_authenticated:
        return redirect(url_for("auth.login"))
    if current_user.is_instructor:
        return redirect(url_for("instructor.dashboard"))
    assignment = default_assignment()
    if assignment is None:
        return render_template("student/no_assignment.html")
    return assignment_page(assignment)


def _my_submissions(assignment: Assignment) -> list[Submission]:
    return list(
        db.session.scalars(
            select(Submission)
            .where(Submission.assignment_id == assignment.id, Submission.student_id == current_user.id)
            .options(selectinload(Submission.runs),
                     selectinload(Submission.reviews).selectinload(AuditReview.reviewer),
                     selectinload(Submission.assignment))
            .order_by(Submission.attempt.desc())
        )
    )


def assignment_page(assignment: Assignment, error: str | None = None, status: int = 200):  # noqa: ANN201
    loc = locale()
    contract, contract_source = contract_markdown(assignment.suite, loc, assignment.description or "")
    subs = _my_submissions(assignment)
    attempts = [(s, effective_for(s, s.latest_graded_run)) for s in subs]
    now = utcnow()
    return render_template(
        "student/assignment.html",
        assignment=assignment,
        contract=contract,
        contract_source=contract_source,
        rubric=rubric_for(assignment.suite),
        assignments=list(db.session.scalars(
            select(Assignment).where(Assignment.published.is_(True)).order_by(Assignment.id))),
        attempts=attempts,
        late_now=late_days(assignment, now),
        now=now,
        error=error,
        loc=loc,
    ), status


@bp.get("/assignments/<slug>")
@login_required
def assignment(slug: str):  # noqa: ANN201
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    if a is None or (not a.published and not current_user.is_instructor):
        abort(404)
    return assignment_page(a)


@bp.post("/assignments/<slug>/submit")
@login_required
@limiter.limit(submit_limit, key_func=rate_key)
def upload(slug: str):  # noqa: ANN201
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    if a is None or (not a.published and not current_user.is_instructor):
        abort(404)
    try:
        sub = submit(
            a, current_user, uploaded("code"), uploaded("audit"), uploaded("figure"),
            store=store(), max_pending=current_app.config["MAX_PENDING_PER_STUDENT"],
        )
    except SubmissionRefused as exc:
        db.session.rollback()
        return assignment_page(a, error=exc.message(locale()), status=exc.http_status)
    flash(_("Submitted: attempt %(n)s is queued for grading.", n=sub.attempt), "ok")
    return redirect(url_for("student.submission", submission_id=sub.id))


# --- one submission -------------------------------------------------------------------------------


def shown_run(sub: Submission):  # noqa: ANN201
    """The run whose result is shown: the newest graded one, else the newest run."""
    return sub.latest_graded_run or sub.latest_run


def audit_text(sub: Submission) -> str | None:
    if not sub.audit_sha256:
        return None
    try:
        from grading.inputs import validate_audit

        return validate_audit(sub.audit_filename, store().get(sub.audit_sha256))
    except Exception:  # noqa: BLE001 - a blob that no longer validates is shown as unavailable
        return None


def result_context(sub: Submission) -> dict:
    run = shown_run(sub)
    instructor = current_user.is_instructor
    result = run.result if run is not None else None
    view = result if instructor else student_view(result)
    score = effective_for(sub, sub.latest_graded_run)
    return dict(
        sub=sub,
        run=run,
        result=view,
        score=score,
        review=sub.audit_review,
        rubric=rubric_for(sub.assignment.suite),
        audit_html=audit_text(sub),
        instructor=instructor,
        loc=locale(),
    )


def status_payload(sub: Submission) -> dict:
    latest = sub.latest_run
    graded = sub.latest_graded_run
    score = effective_for(sub, graded)
    return {
        "id": sub.id,
        "status": latest.status if latest else sub.status,
        "attempt": sub.attempt,
        "queue_position": queue_position(latest),
        "run_id": latest.id if latest else None,
        "graded_run_id": graded.id if graded else None,
        "total": score.total if score else None,
        "max_total": score.max_total if score else None,
        "reason": latest.status_reason if latest and latest.status == Status.ERROR else None,
    }


@bp.get("/submissions/<int:submission_id>")
@login_required
def submission(submission_id: int):  # noqa: ANN201
    sub = load_submission(submission_id, current_user)
    ctx = result_context(sub)
    return render_template("student/submission.html", status=status_payload(sub), **ctx)


@bp.get("/submissions/<int:submission_id>/status")
@login_required
def submission_status(submission_id: int):  # noqa: ANN201
    sub = load_submission(submission_id, current_user)
    resp = jsonify(status_payload(sub))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/submissions/<int:submission_id>/result")
@login_required
def submission_result(submission_id: int):  # noqa: ANN201
    """The result block alone, fetched by the live page when grading finishes."""
    sub = load_submission(submission_id, current_user)
    return render_template("student/_result.html", **result_context(sub))


def _file_response(data: bytes, mimetype: str, filename: str, inline: bool) -> Response:
    resp = Response(data, mimetype=mimetype)
    disposition = "inline" if inline else "attachment"
    from urllib.parse import quote

    resp.headers["Content-Disposition"] = f"{disposition}; filename*=UTF-8''{quote(filename)}"
    resp.headers["Cache-Control"] = "private, no-store"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return resp


@bp.get("/submissions/<int:submission_id>/figure")
@login_required
def figure(submission_id: int):  # noqa: ANN201
    sub = load_submission(submission_id, current_user)
    if not sub.figure_sha256:
        abort(404)
    data = store().get(sub.figure_sha256)
    mimetype = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"
    return _file_response(data, mimetype, sub.figure_filename or "figure", inline=True)


@bp.get("/submissions/<int:submission_id>/audit")
@login_required
def audit_file(submission_id: int):  # noqa: ANN201
    sub = load_submission(submission_id, current_user)
    if not sub.audit_sha256:
        abort(404)
    data = store().get(sub.audit_sha256)
    pdf = data[:1024].lstrip().startswith(b"%PDF-")
    return _file_response(data, "application/pdf" if pdf else "text/plain; charset=utf-8",
                          sub.audit_filename or "audit", inline=False)


@bp.get("/submissions/<int:submission_id>/code")
@login_required
def code_file(submission_id: int):  # noqa: ANN201
    sub = load_submission(submission_id, current_user)
    return _file_response(store().get(sub.code_sha256), "text/plain; charset=utf-8",
                          sub.code_filename or "attention.py", inline=False)


# --- API tokens (for the JSON API) ----------------------------------------------------------------


@bp.route("/account/tokens", methods=["GET", "POST"])
@login_required
def tokens():  # noqa: ANN201
    secret = None
    if request.method == "POST":
        if request.form.get("revoke"):
            row = db.session.get(ApiToken, request.form.get("revoke", type=int) or 0)
            if row is None or row.user_id != current_user.id:
                abort(404)
            row.revoked = True
            db.session.commit()
            flash(_("Token revoked."), "ok")
            return redirect(url_for("student.tokens"))
        row, secret = ApiToken.issue(current_user)
        db.session.add(row)
        db.session.commit()
    rows = list(db.session.scalars(
        select(ApiToken).where(ApiToken.user_id == current_user.id).order_by(ApiToken.id.desc())
    ))
    return render_template("student/tokens.html", tokens=rows, secret=secret)


def visible(sub: Submission) -> bool:
    return can_see(current_user, sub)


# --- template helpers -----------------------------------------------------------------------------


@bp.app_template_filter("tr")
def translate_field(value) -> str:  # noqa: ANN001
    """Pick the user's language from a {"en", "zh"} dict (grader messages); strings pass through."""
    if isinstance(value, dict):
        loc = "zh" if locale().startswith("zh") else "en"
        return str(value.get(loc) or value.get("en") or value.get("zh") or "")
    return "" if value is None else str(value)


@bp.app_template_filter("num")
def num(value, digits: int = 2) -> str:  # noqa: ANN001
    from app.scores import fmt

    if isinstance(value, int | float):
        if digits > 2 and value != 0 and abs(value) < 0.01:
            return f"{value:.2e}"
        return fmt(round(float(value), digits)) if digits <= 2 else f"{value:.{digits}g}"
    return "—" if value is None else str(value)


@bp.app_template_filter("heat")
def heat(value) -> str:  # noqa: ANN001
    """Inline style of one heatmap cell: white (0) to deep blue (1); text flips to white."""
    try:
        v = min(1.0, max(0.0, float(value)))
    except (TypeError, ValueError):
        return "background:#eee"
    lo, hi = (247, 251, 255), (8, 48, 107)
    r, g_, b = (round(a + (c - a) * v) for a, c in zip(lo, hi, strict=True))
    fg = "#fff" if v > 0.5 else "#1d2330"
    return f"background:rgb({r},{g_},{b});color:{fg}"


@bp.app_template_global("max_gap")
def max_gap(a, b) -> float | None:  # noqa: ANN001
    """Largest absolute difference of two equally shaped matrices, None if not comparable."""
    try:
        if not a or not b or len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True)):
            return None
        return max(abs(float(u) - float(v)) for x, y in zip(a, b, strict=True) for u, v in zip(x, y, strict=True))
    except (TypeError, ValueError):
        return None
