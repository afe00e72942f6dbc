"""The instructor area: class dashboard, one student's attempts, audit review, regrades,
roster import and gradebook export. Every route requires the instructor role (403 otherwise)."""

from __future__ import annotations

import secrets
from datetime import datetime

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user
from markupsafe import Markup
from sqlalchemy import select, update
from sqlalchemy.orm import selectinload

from app import gradebook
from app.assignments import default_assignment
from app.authz import instructor_required, queue_position, queue_positions
from app.coursework import rubric_for
from app.extensions import db
from app.models import Assignment, AuditReview, GradingRun, Submission, User
from app.regrading import select_for_regrade
from app.roster import import_roster
from app.scores import effective, effective_for, fmt
from app.storage import BlobStore

bp = Blueprint("instructor", __name__)

REGRADE_PREFIX = "regrade:"


@bp.before_request
@instructor_required
def _only_instructors() -> None:
    return None


def chosen_assignment() -> Assignment:
    slug = request.args.get("a")
    a = None
    if slug:
        a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    a = a or default_assignment()
    if a is None:
        abort(404)
    return a


@bp.get("/")
def dashboard():  # noqa: ANN201
    a = chosen_assignment()
    rows = gradebook.class_rows(a)
    q, status = request.args.get("q", ""), request.args.get("status", "")
    sort = request.args.get("sort", "name")
    desc = request.args.get("dir") == "desc"
    shown = gradebook.filter_sort(rows, q=q, status=status, sort=sort, desc=desc)
    dist = gradebook.distribution(rows)
    graded = [r.best_total for r in rows if r.best_total is not None]
    return render_template(
        "instructor/dashboard.html",
        assignment=a,
        assignments=list(db.session.scalars(select(Assignment).order_by(Assignment.id))),
        rows=shown,
        total_students=len(rows),
        dist=dist,
        dist_max=max([d["count"] for d in dist] + [1]),
        mean=(sum(graded) / len(graded)) if graded else None,
        graded_count=len(graded),
        rates=gradebook.pass_rates(rows),
        queue=gradebook.queue_stats(),
        rubric=rubric_for(a.suite),
        q=q, status=status, sort=sort, desc=desc,
        statuses=gradebook.STATUSES,
    )


def highlight(code: str) -> Markup:
    from pygments import highlight as pyg
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    # Pygments escapes the source; the markup it adds is its own.
    return Markup(pyg(code, PythonLexer(), HtmlFormatter(linenos="table", cssclass="hl", wrapcode=True)))  # noqa: S704


@bp.get("/students/<int:user_id>")
def student(user_id: int):  # noqa: ANN201
    user = db.session.get(User, user_id)
    if user is None:
        abort(404)
    a = chosen_assignment()
    subs = list(
        db.session.scalars(
            select(Submission)
            .where(Submission.student_id == user.id, Submission.assignment_id == a.id)
            .options(
                selectinload(Submission.runs).selectinload(GradingRun.tests),
                selectinload(Submission.reviews).selectinload(AuditReview.reviewer),
                selectinload(Submission.assignment),
            )
            .order_by(Submission.attempt.desc())
        )
    )
    store = BlobStore(current_app.config["UPLOAD_DIR"])
    rubric = rubric_for(a.suite)
    from app.student import audit_text

    attempts = []
    for s in subs:
        try:
            code = store.get(s.code_sha256).decode("utf-8", "replace")
        except OSError:
            code = ""
        runs = []
        for r in s.runs:
            runs.append((r, effective(r.total, r.max_total, r.categories, rubric=rubric, late_days=s.late_days,
                                      penalty_per_day=a.late_penalty_per_day,
                                      audit_override=s.audit_review.score if s.audit_review else None)))
        attempts.append({
            "sub": s,
            "score": effective_for(s, s.latest_graded_run),
            "runs": runs,
            "code": highlight(code),
            "audit": audit_text(s),
            "queue_position": queue_position(s.latest_run),
        })
    return render_template("instructor/student.html", user=user, assignment=a, attempts=attempts,
                           rubric=rubric)


@bp.post("/submissions/<int:submission_id>/review")
def review(submission_id: int):  # noqa: ANN201
    sub = db.session.get(Submission, submission_id)
    if sub is None:
        abort(404)
    top = rubric_for(sub.assignment.suite).audit_max
    if top is None:
        abort(404)  # this assignment has no written audit to review
    try:
        score = float(request.form.get("score", ""))
    except ValueError:
        score = -1
    if not 0 <= score <= top:
        flash(_("The audit score must be a number from 0 to %(m)s.", m=fmt(top)), "error")
    else:
        db.session.add(AuditReview(submission_id=sub.id, reviewer_id=current_user.id, score=score,
                                   comment=request.form.get("comment", "")[:5000]))
        db.session.commit()
        flash(_("Audit review saved."), "ok")
    return redirect(url_for("instructor.student", user_id=sub.student_id, a=sub.assignment.slug)
                    + f"#attempt-{sub.attempt}")


@bp.post("/regrade")
def regrade():  # noqa: ANN201
    scope = request.form.get("scope")
    try:
        if scope == "submission":
            runs = select_for_regrade(submission_id=int(request.form.get("submission_id", "0")))
        elif scope == "student":
            user = db.session.get(User, int(request.form.get("user_id", "0")))
            if user is None:
                abort(404)
            runs = select_for_regrade(student_email=user.email)
        elif scope == "all":
            runs = select_for_regrade(all_latest=True)
        else:
            abort(400)
    except (LookupError, ValueError):
        abort(404)
    if runs:
        batch = REGRADE_PREFIX + secrets.token_hex(4)
        db.session.execute(
            update(GradingRun).where(GradingRun.id.in_([r.id for r in runs])).values(trigger=batch)
            .execution_options(synchronize_session=False)
        )
        db.session.commit()
    flash(_("%(n)s regrade(s) queued.", n=len(runs)), "ok")
    return redirect(url_for("instructor.regrades"))


def last_batch() -> str | None:
    return db.session.scalar(
        select(GradingRun.trigger).where(GradingRun.trigger.like(REGRADE_PREFIX + "%"))
        .order_by(GradingRun.id.desc()).limit(1)
    )


def regrade_report(batch: str) -> list[dict]:
    new_runs = list(db.session.scalars(
        select(GradingRun).where(GradingRun.trigger == batch)
        .options(selectinload(GradingRun.submission).selectinload(Submission.student),
                 selectinload(GradingRun.submission).selectinload(Submission.assignment),
                 selectinload(GradingRun.submission).selectinload(Submission.reviews))
        .order_by(GradingRun.id)
    ))
    sub_ids = [r.submission_id for r in new_runs]
    earlier = db.session.execute(
        select(GradingRun.submission_id, GradingRun.id, GradingRun.total, GradingRun.grader_version)
        .where(GradingRun.submission_id.in_(sub_ids), GradingRun.status == "graded")
        .order_by(GradingRun.id)
    ).all()
    positions = queue_positions()
    out = []
    for run in new_runs:
        olds = [e for e in earlier if e.submission_id == run.submission_id and e.id < run.id]
        old = olds[-1] if olds else None
        delta = None
        if old is not None and old.total is not None and run.status == "graded" and run.total is not None:
            delta = round(run.total - old.total, 2)
        out.append({"run": run, "sub": run.submission, "old": old, "delta": delta,
                    "position": positions.get(run.id)})
    return out


@bp.get("/regrades")
def regrades():  # noqa: ANN201
    batch = request.args.get("batch") or last_batch()
    rows = regrade_report(batch) if batch else []
    changed = sorted({r["sub"].student.display_name for r in rows if r["delta"] not in (None, 0)})
    pending = sum(1 for r in rows if r["run"].status in ("queued", "running"))
    started = min((r["run"].queued_at for r in rows), default=None)
    return render_template("instructor/regrades.html", rows=rows, batch=batch, changed=changed,
                           pending=pending, started=started)


@bp.route("/roster", methods=["GET", "POST"])
def roster():  # noqa: ANN201
    report = None
    if request.method == "POST":
        f = request.files.get("csv")
        if f is None or not f.filename:
            flash(_("Choose a CSV file."), "error")
        else:
            try:
                report = import_roster(f.read(), acting=current_user)
            except ValueError:
                flash(_("The file is not UTF-8 text."), "error")
    return render_template("instructor/roster.html", report=report)


@bp.get("/gradebook.csv")
def gradebook_csv():  # noqa: ANN201
    a = chosen_assignment()
    body = gradebook.to_csv(gradebook.class_rows(a), rubric_for(a.suite))
    name = f"gradebook-{a.slug}-{datetime.now():%Y%m%d-%H%M}.csv"
    return Response(body, mimetype="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"',
                             "Cache-Control": "no-store"})
