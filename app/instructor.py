"""The instructor area: class dashboard and test drill-down, one student's attempts with audit
review and overrides, course settings and extensions, regrade batches, the course log, roster,
gradebook exports and the similarity report. Every route requires the instructor role (403
otherwise); every form carries a CSRF token."""

from __future__ import annotations

import functools
import re
import secrets
from datetime import datetime

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from markupsafe import Markup
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload, undefer

from app import course, gradebook, regrading
from app.assignments import default_assignment
from app.auth import safe_next
from app.authz import instructor_required
from app.coursework import rubric_for
from app.errors import both, error_response, one_of
from app.extensions import begin_write_on_sqlite, db
from app.idempotency import scoped_key
from app.ids import db_id
from app.models import (
    Assignment,
    AuditReview,
    CourseLog,
    DroppedStudent,
    Extension,
    GradingRun,
    RegradeBatch,
    Role,
    SimilarityReport,
    Submission,
    User,
)
from app.names import by_name
from app.queue import queue_position
from app.review_text import as_reason
from app.roster import EmptyRoster, import_roster, issue_links, links_csv
from app.roster_xlsx import WorkbookUnreadable
from app.scores import effective_for, fmt, run_tests
from app.similarity import latest_report, similarity_json, start_similarity
from app.storage import BlobStore
from app.views_helpers import (
    content_disposition,
    isolate,
    list_join,
    reveal_hidden,
    safe_filename,
    search_matches,
)
from grading.inputs import code_text, sniff_binary_kind

bp = Blueprint("instructor", __name__)


@bp.before_request
@instructor_required
def _only_instructors() -> None:
    return None


def loc() -> str:
    return str(get_locale() or "zh")


def chosen_assignment() -> Assignment:
    slug = request.values.get("a")
    a = None
    if slug:
        a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    a = a or default_assignment() or db.session.scalar(select(Assignment).order_by(Assignment.id))
    if a is None:
        # Review E, L7: an install with no assignment gave the instructor's first visit the generic "the link may
        # be mistyped, or the item belongs to someone else", which says nothing of why or what to do.
        text = both(NO_ASSIGNMENT)
        abort(make_response(error_response(404, code="no_assignment", en=text["en"], zh=text["zh"])))
    return a


NO_ASSIGNMENT = _l("No assignment exists yet, so there is nothing to show here. It is created on the server: "
                   "autograder assignment add attention --title \"…\" (or autograder demo for a demo course).")


def all_assignments() -> list[Assignment]:
    return list(db.session.scalars(select(Assignment).order_by(Assignment.id)))


# --- dashboard and drill-down --------------------------------------------------------------------


@bp.get("/")
def dashboard():
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
        assignments=all_assignments(),
        rows=shown,
        total_students=len(rows),
        dist=dist,
        dist_max=max([d["count"] for d in dist] + [1]),
        mean=(sum(graded) / len(graded)) if graded else None,
        graded_count=len(graded),
        rates=gradebook.pass_rates(rows),
        flagged=gradebook.flagged(rows),
        versions=gradebook.grader_versions(rows),
        queue=gradebook.queue_stats(),
        rubric=rubric_for(a.suite),
        q=q, status=status, sort=sort, desc=desc,
        statuses=gradebook.STATUSES,
    )


@bp.get("/tests/<test_id>")
def test_failures(test_id: str):
    """The students whose counting attempt fails one test, with the feedback they got."""
    a = chosen_assignment()
    rows = gradebook.class_rows(a)
    failures = gradebook.failing(rows, test_id)
    rubric = rubric_for(a.suite)
    # A test the suite does not have and no counted attempt ran (a mistyped or old link) is not found: the
    # page said "0 of 5 students fail this test ... Nobody fails this test." of it (round 46). A test an older
    # grader ran, renamed since, keeps its page while counted attempts hold its results.
    if test_id not in rubric.tests and not failures and not gradebook.ran_test(rows, test_id):
        abort(404)
    return render_template("instructor/test_failures.html", assignment=a, test_id=test_id, failures=failures,
                           graded=sum(1 for r in rows if r.counting is not None),
                           description=rubric.describe(test_id, loc()), rubric=rubric)


# Pygments is linear but spends ~10 us a token: 250 KB of "(" or "a." took 2.5 s of a web thread per
# page view. Real submissions are under 30 KB; a longer file is shown as plain text, just as readable.
MAX_HIGHLIGHT_CHARS = 64_000


# Characters of code one page highlights in all (a student's page shows every attempt): past it the
# older attempts are plain text too. Ten attempts of 64,000 characters took 10 s of a web thread.
PAGE_HIGHLIGHT_CHARS = 128_000


def highlight(code: str, python: bool = True) -> Markup:
    """The code with line numbers, coloured as Python (``python`` and short enough) or as plain text,
    its bidi controls and zero-width characters shown (views_helpers.reveal_hidden)."""
    return reveal_hidden(Markup(_highlighted(code, python and len(code) <= MAX_HIGHLIGHT_CHARS)))


@functools.lru_cache(maxsize=32)
def _highlighted(code: str, python: bool) -> str:
    from pygments import highlight as pyg
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer, TextLexer

    # Pygments escapes the source; the markup it adds is its own.
    return pyg(code, PythonLexer() if python else TextLexer(),
               HtmlFormatter(linenos="table", cssclass="hl", wrapcode=True))


# Attempts a student's page shows in full, newest first; older ones are folded to one line each
# (the counted attempt, the one a link or a refused form names, and all with ?show=all stay full).
# A student with 55 attempts made a page of 1.9 MB that took 1.8 s to render (bench/student_page.py).
FULL_ATTEMPTS = 5


@bp.get("/students/<int:user_id>")
def student(user_id: int):
    return _student_page(user_id, chosen_assignment())


def _student_page(user_id: int, a: Assignment, kept: dict | None = None, status: int = 200):
    """The student's page for assignment `a`. `kept`: a refused review or override form, shown
    again as it was sent (its attempt open, its fields filled), so nothing typed is lost."""
    user = db.session.get(User, user_id)
    if user is None:
        abort(404)
    # Runs without their test rows: only the attempts shown in full read those (lazily, a few).
    subs = list(
        db.session.scalars(
            select(Submission)
            .where(Submission.student_id == user.id, Submission.assignment_id == a.id)
            .options(
                selectinload(Submission.runs),
                selectinload(Submission.reviews).selectinload(AuditReview.reviewer),
                selectinload(Submission.overrides),
                selectinload(Submission.assignment),
            )
            .order_by(Submission.attempt.desc())
        )
    )
    scores = {s.id: effective_for(s, s.latest_graded_run) for s in subs}
    scored = [s for s in subs if scores[s.id] is not None]
    counting = max(scored, key=lambda s: (scores[s.id].total, s.attempt)) if scored else None
    show = request.args.get("show", "")
    full = {s.id for s in subs[:FULL_ATTEMPTS]} | {counting.id if counting else None,
                                                   (kept or {}).get("submission_id")}
    if show == "all":
        full = {s.id for s in subs}
    elif show.isdigit():
        full |= {s.id for s in subs if s.attempt == int(show)}
    # The test rows and audit texts of the attempts in full, in two queries whatever their number.
    db.session.scalars(select(GradingRun).where(GradingRun.submission_id.in_(full))
                       .options(selectinload(GradingRun.tests))).all()
    db.session.scalars(select(Submission).where(Submission.id.in_(full))
                       .options(undefer(Submission.audit_text))).all()
    store = BlobStore(current_app.config["UPLOAD_DIR"])
    rubric = rubric_for(a.suite)
    from app.student import audit_text

    attempts = []
    budget = PAGE_HIGHLIGHT_CHARS           # newest attempts first
    for s in subs:
        score, graded = scores[s.id], s.latest_graded_run
        # The grader's reasons for a person to look (result["review"]: an audit the checker failed
        # on, names the review could not follow, a fused call): only in the run's log before.
        # (either shape: {"code", "params", "text"} since round 39, a string before; app/review_text.py)
        review = [as_reason(r) for r in ((graded.result or {}).get("review") or [])] if graded else []
        if s.id not in full:
            attempts.append({"sub": s, "score": score, "full": False, "review": review,
                             "queue_position": queue_position(s.latest_run)})
            continue
        try:
            code = code_text(store.get(s.code_sha256))
        except OSError:
            code = ""
        budget -= len(code)
        attempts.append({
            "sub": s,
            "full": True,
            "score": score,
            "runs": [(r, effective_for(s, r)) for r in s.runs],
            "code": highlight(code, python=budget >= 0),
            "audit": audit_text(s),
            "queue_position": queue_position(s.latest_run),
            "tests": run_tests(graded),
            "review": review,
        })
    ext = db.session.scalar(select(Extension).where(Extension.assignment_id == a.id,
                                                    Extension.student_id == user.id))
    return render_template("instructor/student.html", user=user, assignment=a, attempts=attempts,
                           counting_id=counting.id if counting else None, extension=ext,
                           folded=sum(1 for x in attempts if not x["full"]),
                           deadline=course.student_deadline(a, user.id),
                           dropped=db.session.get(DroppedStudent, user.id) is not None,
                           rubric=rubric, kept=kept or {}), status


def _back_to_attempt(sub: Submission):
    return redirect(url_for("instructor.student", user_id=sub.student_id, a=sub.assignment.slug,
                            show=sub.attempt) + f"#attempt-{sub.attempt}")


def _refused_form(sub: Submission, form: str, status: int):
    """A review or override that was not saved: the page again, with what was sent (a redirect
    dropped the comment the instructor may have spent minutes on)."""
    sent = {name: request.form.get(name, "")[:5000] for name in ("target", "points", "score")}
    # The comment comes back whole, even when its length was the refusal: the instructor shortens it.
    sent["comment"] = request.form.get("comment", "")[:100_000]
    return _student_page(sub.student_id, sub.assignment, kept={"submission_id": sub.id, "form": form, **sent},
                         status=status)


def _changed_since_render(seen: str | None, current: int) -> bool:
    """Whether the page's form was rendered before the row now in force (`current`, 0: none): its
    hidden `seen` field holds that row's id at rendering. A form without one (a script, a page from
    before this field) is not checked, as before."""
    return seen is not None and seen.isdigit() and int(seen) != current


def _locked_submission(submission_id: int) -> Submission:
    # The row lock (PostgreSQL; SQLite: its database write lock, taken first) orders two saves on
    # one attempt: the second one sees the first's row when it checks its form, instead of both
    # passing the check at the same moment.
    begin_write_on_sqlite()
    sub = db.session.get(Submission, submission_id, with_for_update=True)
    if sub is None:
        abort(404)
    return sub


@bp.post("/submissions/<int:submission_id>/review")
def review(submission_id: int):
    sub = _locked_submission(submission_id)
    top = rubric_for(sub.assignment.suite).audit_max
    if top is None:
        abort(404)  # this assignment has no written audit to review
    refusal = None
    try:
        score = course.parse_number(request.form.get("score"))
    except course.CourseError as exc:  # says why: a comma that may be a thousands separator
        score, refusal = -1, exc.message(loc())
    except ValueError:
        score = -1
    current = sub.audit_review
    if _changed_since_render(request.form.get("seen"), current.id if current else 0):
        # Two instructors reviewing one attempt: the later save must not silently replace a review
        # its author never saw (nor bring back one that was replaced meanwhile).
        if current is None:
            said = _("The audit review of this attempt changed after you opened the page; yours was not saved. "
                     "Reload the page and save yours again if it still applies.")
        else:
            said = _("%(who)s saved an audit review of this attempt (%(s)s) after you opened the page; yours "
                     "was not saved. Read theirs below and save yours again if it should replace it.",
                     who=isolate(current.reviewer.display_name), s=fmt(current.score))
        db.session.rollback()
        flash(said, "error")
        return _refused_form(sub, "review", 409)
    elif not 0 <= score <= top:
        flash(refusal or _("The audit score must be a number from 0 to %(m)s.", m=fmt(top)), "error")
        return _refused_form(sub, "review", 422)
    else:
        try:  # cut at the limit, the end of the student's feedback was lost without a word
            comment = course.check_length(request.form.get("comment", ""), course.MAX_COMMENT, "comment", "说明")
        except course.CourseError as exc:
            db.session.rollback()
            flash(exc.message(loc()), "error")
            return _refused_form(sub, "review", 422)
        before = sub.audit_review.score if sub.audit_review else None
        db.session.add(AuditReview(submission_id=sub.id, reviewer_id=current_user.id, score=score, comment=comment))
        course.log("override", current_user, assignment=sub.assignment, student_id=sub.student_id,
                   submission_id=sub.id, subject="audit review", before=before, after=score, comment=comment)
        db.session.commit()
        flash(_("Audit review saved."), "ok")
    return _back_to_attempt(sub)


@bp.post("/submissions/<int:submission_id>/override")
def override(submission_id: int):
    sub = _locked_submission(submission_id)
    run = sub.latest_graded_run
    if run is None:
        flash(_("Only a graded attempt can be overridden."), "error")
        return _back_to_attempt(sub)
    newest = max(sub.overrides, key=lambda o: o.id, default=None)
    if _changed_since_render(request.form.get("seen"), newest.id if newest else 0):
        said = _("The overrides of this attempt changed after you opened the page (%(who)s); yours was not "
                 "saved. Read them below and save yours again if it still applies.",
                 who=isolate(newest.author.display_name) if newest and newest.author else _("another instructor"))
        db.session.rollback()
        flash(said, "error")
        return _refused_form(sub, "override", 409)
    kind, _sep, target = (request.form.get("target") or "").partition(":")
    raw = (request.form.get("points") or "").strip()
    try:
        points = None if raw == "" or request.form.get("clear") else course.parse_number(raw)
        course.set_override(sub, current_user, kind=kind, target=target, points=points,
                            comment=request.form.get("comment", ""), categories=run.categories or {},
                            tests=run_tests(run))
    except ValueError as exc:
        msg = exc.message(loc()) if isinstance(exc, course.CourseError) else _("Points must be a number.")
        flash(msg, "error")
        return _refused_form(sub, "override", 422)
    else:
        flash(_("Override cleared.") if points is None else _("Override saved."), "ok")
    return _back_to_attempt(sub)


# --- settings, extensions, course log ------------------------------------------------------------


def setting_label(name: str) -> str:
    """A course setting's name in the reader's language (the saved message said the stored field names,
    late_penalty_per_day, in zh sentences too); instructor/_labels.html says the same in the course log."""
    labels = {"deadline": _("Deadline"), "late_penalty_per_day": _("Late penalty"),
              "late_days_allowed": _("Late days accepted"), "cooldown_seconds": _("Wait between attempts"),
              "published": _("Published")}
    return labels.get(name, name)


@bp.route("/settings", methods=["GET", "POST"])
def settings():
    a = chosen_assignment()
    if request.method == "POST":
        try:
            changed = course.update_settings(a, course.parse_settings(request.form, current=a.deadline), current_user)
        except course.CourseError as exc:
            # The page again, 422, with what was typed: a redirect lost it and answered as if saved.
            db.session.rollback()
            flash(exc.message(loc()), "error")
            return _settings_page(a, _kept_form("settings"), 422)
        flash(_("Settings saved: %(f)s.", f=list_join(setting_label(n) for n in changed)) if changed
              else _("Nothing changed."), "ok")
        return redirect(url_for("instructor.settings", a=a.slug))
    return _settings_page(a)


_KEPT_FIELDS = ("deadline", "late_penalty_percent", "late_days_allowed", "cooldown_seconds", "published",
                "student", "extra_days", "reason")


def _kept_form(form: str) -> dict:
    """A refused settings or extension form as it was sent, to fill it in again."""
    return {"form": form, **{name: request.form.get(name, "")[:2000] for name in _KEPT_FIELDS}}


def _settings_page(a: Assignment, kept: dict | None = None, status: int = 200):
    exts = list(db.session.scalars(
        select(Extension).where(Extension.assignment_id == a.id)
        .options(selectinload(Extension.student), selectinload(Extension.granter)).order_by(Extension.id)))
    recent = list(db.session.scalars(
        select(CourseLog).where(CourseLog.assignment_id == a.id, CourseLog.kind.in_(["setting", "extension"]))
        .options(selectinload(CourseLog.actor)).order_by(CourseLog.id.desc()).limit(20)))
    return render_template("instructor/settings.html", assignment=a, assignments=all_assignments(),
                           extensions=[(e, course.student_deadline(a, e.student_id))
                                       for e in by_name(exts, lambda e: _user_person(e.student))],
                           recent=recent, kept=kept or {}), status


@bp.post("/extensions")
def grant_extension():
    a = chosen_assignment()
    student = None
    try:
        student = course.find_student(request.form.get("student", ""))
        days_raw = course.typed(request.form.get("extra_days"))
        try:
            days = int(days_raw) if days_raw else 0
        except ValueError:
            raise course.CourseError("bad_days", "Extra days must be a whole number.", "延长天数必须是整数。") from None
        ext = db.session.scalar(select(Extension).where(Extension.assignment_id == a.id,
                                                        Extension.student_id == student.id))
        deadline = course.parse_shown_deadline(request.form.get("deadline"), ext.deadline if ext else None)
        course.grant_extension(a, student, current_user, deadline=deadline,
                               extra_days=days, reason=request.form.get("reason", ""))
    except course.CourseError as exc:
        # The page the form was on again, 422, filled in as sent (a redirect answered as if saved).
        db.session.rollback()
        flash(exc.message(loc()), "error")
        back = safe_next(request.form.get("next")) or ""
        if student is not None and back.startswith(f"/instructor/students/{student.id}"):
            return _student_page(student.id, a, kept=_kept_form("extension"), status=422)
        return _settings_page(a, _kept_form("extension"), 422)
    flash(_("Extension saved for %(who)s.", who=isolate(student.display_name)), "ok")
    back = safe_next(request.form.get("next"))  # a path only, without control characters
    return redirect(back if back and back.startswith("/instructor/") else url_for("instructor.settings", a=a.slug))


@bp.post("/extensions/<int:student_id>/revoke")
def revoke_extension(student_id: int):
    a = chosen_assignment()
    student = db.session.get(User, student_id)
    if student is None:
        abort(404)
    if course.revoke_extension(a, student, current_user):
        flash(_("Extension removed for %(who)s.", who=isolate(student.display_name)), "ok")
    else:
        # A second click, or a page older than another instructor's removal: the page said nothing,
        # and the extension still listed on the old page read as a removal that did not happen.
        flash(_("%(who)s has no extension for this assignment: nothing was removed.", who=isolate(student.display_name)),
              "error")
    return redirect(url_for("instructor.settings", a=a.slug))


LOG_PAGE = 500


@bp.get("/log")
def course_log():
    kind = request.args.get("kind", "")
    # Round 36: the newest LOG_PAGE entries were all there was: a term's overrides, extensions and regrades
    # of a large class pass that, and the older entries could not be reached. Pages go back from `before`.
    before = request.args.get("before", type=db_id)
    q = select(CourseLog).options(selectinload(CourseLog.actor), selectinload(CourseLog.student),
                                  selectinload(CourseLog.assignment))
    if kind:
        q = q.where(CourseLog.kind == kind)
    if before is not None:
        q = q.where(CourseLog.id < before)
    entries = list(db.session.scalars(q.order_by(CourseLog.id.desc()).limit(LOG_PAGE + 1)))
    older = entries[LOG_PAGE - 1].id if len(entries) > LOG_PAGE else None
    kinds = list(db.session.scalars(select(CourseLog.kind).distinct().order_by(CourseLog.kind)))
    return render_template("instructor/log.html", entries=entries[:LOG_PAGE], kind=kind, kinds=kinds,
                           older=older, paged=before is not None,
                           # Round 36: with two labs, "deadline: before → after" did not say whose deadline.
                           several=db.session.scalar(select(func.count(Assignment.id))) > 1)


# --- regrades ------------------------------------------------------------------------------------


def _plan_from_form(a: Assignment, up_to: int | None) -> regrading.Plan:
    scope = request.values.get("scope", "")
    if scope not in regrading.SCOPES:
        abort(400)
    try:
        return regrading.plan(a, scope, student_id=request.values.get("user_id", type=db_id),
                              student_email=request.values.get("student"),
                              submission_id=request.values.get("submission_id", type=db_id), up_to=up_to)
    except regrading.RegradeError:
        abort(404)


@bp.route("/regrade", methods=["GET", "POST"])
def regrade():
    """GET (or a POST without `confirm`) shows how many runs would be queued; a POST whose
    `confirm` equals that number queues them. A class that changed meanwhile is asked again."""
    sub_id = request.values.get("submission_id", type=db_id)
    if sub_id and not request.values.get("a"):
        sub = db.session.get(Submission, sub_id)
        a = sub.assignment if sub else chosen_assignment()
    else:
        a = chosen_assignment()
    # The confirmation is of the attempts its page showed (regrading.plan's up_to): the newest attempt id
    # when it was shown, read before the plan, so that no attempt of the plan is above it.
    up_to = request.form.get("up_to", type=db_id) if request.form.get("confirm") else None
    shown_up_to = up_to if up_to is not None else db.session.scalar(select(func.max(Submission.id))) or 0
    p = _plan_from_form(a, up_to)
    confirmed = request.method == "POST" and request.form.get("confirm") == str(len(p.submission_ids))
    if confirmed:
        # What the page said of each attempt: those it showed as waiting for their first grading get no run,
        # even when a worker started that grading since (round 36b).
        p = p.keeping(int(i) for i in request.form.get("no_run", "").split() if i.isascii() and i.isdigit())
    if not confirmed or not p.submission_ids:
        if request.method == "POST" and request.form.get("confirm"):
            flash(_("The number of runs changed since the confirmation; please confirm again."), "error")
        # One token per rendering of the confirmation: confirming the same page twice queues once.
        return render_template("instructor/regrade_confirm.html", assignment=a, plan=p,
                               count=len(p.submission_ids), up_to=shown_up_to, form_token=secrets.token_urlsafe(16))
    token = request.form.get("form_token", "")[:64] or None
    earlier = regrading.confirmed_before(token)
    if earlier is None:
        try:
            batch = regrading.start(a, p, current_user, form_token=token)
        except IntegrityError:  # the same page confirmed at the same moment: that one queued it
            db.session.rollback()
            earlier = regrading.confirmed_before(token)
            if earlier is None:
                raise
        else:
            flash(_("%(n)s regrade(s) queued.", n=batch.runs_queued), "ok")
            return redirect(url_for("instructor.regrade_batch", batch_id=batch.id))
    flash(_("This regrade was already queued as batch %(b)s: the confirmation was sent twice and queued "
            "once.", b=earlier.id), "ok")
    return redirect(url_for("instructor.regrade_batch", batch_id=earlier.id))


@bp.get("/regrades")
def regrades():
    batches = list(db.session.scalars(
        select(RegradeBatch).options(selectinload(RegradeBatch.requester), selectinload(RegradeBatch.student),
                                     selectinload(RegradeBatch.assignment),
                                     selectinload(RegradeBatch.submission).selectinload(Submission.student))
        .order_by(RegradeBatch.id.desc()).limit(200)))
    counts: dict[int, dict[str, int]] = {}
    if batches:
        for trigger, status, n in db.session.execute(
            select(GradingRun.trigger, GradingRun.status, func.count(GradingRun.id))
            .where(GradingRun.trigger.in_([b.trigger for b in batches]))
            .group_by(GradingRun.trigger, GradingRun.status)
        ).all():
            counts.setdefault(int(trigger.split(":", 1)[1]), {})[status] = n
    return render_template("instructor/regrades.html", batches=batches, counts=counts)


def _batch(batch_id: int) -> RegradeBatch:
    batch = db.session.get(RegradeBatch, batch_id)
    if batch is None:
        abort(404)
    return batch


@bp.get("/regrades/<int:batch_id>")
def regrade_batch(batch_id: int):
    batch = _batch(batch_id)
    return render_template("instructor/regrade_batch.html", batch=batch, report=regrading.report(batch))


@bp.post("/regrades/<int:batch_id>/cancel")
def regrade_cancel(batch_id: int):
    """Cancel the batch's runs no worker has taken yet; those already running finish (regrading.cancel)."""
    batch = _batch(batch_id)
    done = regrading.cancel(batch, current_user)
    for text, params in regrading.cancel_outcome(batch, done)[1]:
        flash(str(text) % params if params else str(text), "ok")
    return redirect(url_for("instructor.regrade_batch", batch_id=batch_id))


@bp.get("/regrades/<int:batch_id>/progress")
def regrade_progress(batch_id: int):
    resp = jsonify(regrading.progress_json(_batch(batch_id)))
    resp.headers["Cache-Control"] = "no-store"
    return resp


# --- roster --------------------------------------------------------------------------------------


@bp.route("/roster", methods=["GET", "POST"])
def roster():
    report = None
    if request.method == "POST":
        f = request.files.get("csv")
        if f is None or not f.filename:
            flash(_("Choose a CSV file."), "error")
        else:
            data = f.read()
            try:
                report = import_roster(data, acting=current_user)
            except EmptyRoster as exc:
                if exc.workbook:
                    flash(_("The workbook %(name)s has no cell with text on any of its worksheets: nothing was "
                            "imported. Save the roster in it and import it again.",
                            name=safe_filename(f.filename)), "error")
                else:
                    flash(_("The file %(name)s holds no line with text (%(n)s bytes): nothing was imported. Choose "
                            "the roster file again.", name=safe_filename(f.filename), n=len(data)), "error")
            except ValueError as exc:
                flash(_roster_unreadable(data, exc), "error")
    q = (request.args.get("q") or "").strip()
    show = request.args.get("show", "enrolled")
    stmt = select(User)
    dropped = {d.user_id: d for d in db.session.scalars(select(DroppedStudent))}
    # Matched here, not in SQL: as the class view matches (search_key: full-width, traditional Chinese,
    # spaces); '_' and '%' in an email (li_wei@...) are letters, not LIKE wildcards.
    # Students, then instructors (as before), each in class-list order (pinyin for Chinese names: app/names.py).
    people = by_name((u for u in db.session.scalars(stmt) if search_matches(q, u.email, u.name)), _user_person)
    people.sort(key=lambda u: u.role == Role.INSTRUCTOR.value)
    if show == "dropped":
        people = [u for u in people if u.id in dropped]
    elif show != "all":
        people = [u for u in people if u.id not in dropped]
    attempts = dict(db.session.execute(
        select(Submission.student_id, func.count(Submission.id)).group_by(Submission.student_id)).all())
    return render_template("instructor/roster.html", report=report, people=people, dropped=dropped, q=q,
                           show=show, attempts=attempts, links_token=secrets.token_urlsafe(16))


def _roster_unreadable(data: bytes, exc: ValueError | None = None) -> str:
    """Why a roster file is not read, in the reader's language: what its bytes say it is when they do (the
    workbook itself is the usual mistake; "not UTF-8 text" sent instructors to change the encoding of an
    .xlsx), and for a workbook that does not read, what was found in it (WorkbookUnreadable: round 33,
    every such workbook was "not CSV text", the workbooks that are read included), else that it is not
    text in any encoding the import reads."""
    kind = sniff_binary_kind(data)
    zh_page = str(get_locale() or "").startswith("zh")
    if kind is not None:
        # zh sets a Latin word apart with a space (grading.inputs does the same): 该文件是 Excel 工作簿
        zh = (" " if kind.zh[:1].isascii() else "") + kind.zh
        if isinstance(exc, WorkbookUnreadable):
            return _("The file is %(kind)s, but its rows could not be read: %(found)s. Nothing was imported. Save "
                     "the roster as CSV (in Excel or WPS: File → Save As → CSV UTF-8) and upload that file.",
                     kind=zh if zh_page else kind.en, found=exc.zh if zh_page else exc.en)
        return _("The file is %(kind)s, not CSV text: nothing was imported. Save the roster as CSV (in Excel "
                 "or WPS: File → Save As → CSV UTF-8) and upload that file.",
                 kind=zh if zh_page else kind.en)
    return _("The file is not text in UTF-8, UTF-16 or GB18030: nothing was imported. Save the roster as "
             "CSV UTF-8 and upload that file.")


def _user_person(u: User) -> tuple[str | None, str]:
    return u.name, u.email


def _student_or_404(user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None or user.role != Role.STUDENT.value:
        abort(404)
    return user


@bp.post("/roster/<int:user_id>/drop")
def drop(user_id: int):
    user = _student_or_404(user_id)
    if course.drop(user, current_user):
        flash(_("%(who)s was dropped: their submissions and grades are kept, and they can no longer submit.", who=isolate(user.display_name)), "ok")
    else:  # a second click, an older page: say so, as a removed extension does
        flash(_("%(who)s was already dropped: nothing changed.", who=isolate(user.display_name)), "error")
    return redirect(url_for("instructor.roster", q=request.form.get("q") or None))


@bp.post("/roster/<int:user_id>/restore")
def restore(user_id: int):
    user = _student_or_404(user_id)
    if course.restore(user, current_user):
        flash(_("%(who)s is back in the class.", who=isolate(user.display_name)), "ok")
    else:
        flash(_("%(who)s is already in the class: nothing changed.", who=isolate(user.display_name)), "error")
    return redirect(url_for("instructor.roster", show="dropped"))


@bp.post("/roster/links")
def sign_in_links():
    """A CSV of one-time sign-in links for the chosen students (or every enrolled student without a
    password). Issuing new links ends the unused old ones."""
    ids = [db_id(x) for x in request.form.getlist("user_id") if x.isascii() and x.isdigit()]
    if request.form.get("who") == "no_password":
        dropped = select(DroppedStudent.user_id)
        users = list(db.session.scalars(select(User).where(
            User.role == Role.STUDENT.value, User.password_hash.is_(None), User.id.not_in(dropped))
            .order_by(User.email)))
    else:
        # Students only: a link signs in as its owner, and an instructor must not be able to act
        # in another instructor's name (the course log records who did what).
        users = list(db.session.scalars(select(User).where(
            User.id.in_(ids), User.role == Role.STUDENT.value).order_by(User.email))) if ids else []
    users = by_name(users, _user_person)  # the file lists the class as the roster page does
    if not users:
        flash(_("Choose at least one student."), "error")
        return redirect(url_for("instructor.roster"))
    # PUBLIC_URL, never the Host header: the links are mailed to students, and a Host rewritten by
    # a proxy (or sent by a client) named another site in them.
    links = issue_links(users, current_user, current_app.config.get("PUBLIC_URL") or request.host_url,
                        form_token=request.form.get("form_token", "")[:64] or None)
    # Dated in the course's zone, as the gradebook exports (round 46: the server's clock, UTC, filed links
    # issued at 00:30 in Beijing under the day before).
    name = f"sign-in-links-{datetime.now(course.course_zone()):%Y%m%d-%H%M}.csv"
    return Response(links_csv(links), content_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": content_disposition(name), "Cache-Control": "no-store"})


# --- gradebook export ----------------------------------------------------------------------------


@bp.get("/gradebook.csv")
def gradebook_csv():
    a = chosen_assignment()
    fmt_name = request.args.get("format", "csv")
    # Headed in the reader's language by default: the page is read by people; headers=keys for a script.
    headers = request.args.get("headers", "labels")
    # A hand-edited or stale link: say which value is wrong and what the right ones do (was a bare 400 page)
    if fmt_name not in gradebook.EXPORT_FORMATS:
        formats = {k: gradebook.FORMAT_TEXT[k] for k in gradebook.EXPORT_FORMATS}
        return error_response(400, code="bad_format", **one_of("format", formats, fmt_name))
    if headers not in gradebook.HEADERS:
        return error_response(400, code="bad_headers", **one_of("headers", gradebook.HEADERS, headers))
    body, name = gradebook.export(gradebook.class_rows(a), a, fmt_name, headers=headers, lang=loc())
    # Stamped in the course's zone, as every date on its pages (round 34: the server's clock, UTC, named a
    # file downloaded at 00:30 in Beijing after the day before).
    stem, _, ext = name.rpartition(".")
    name = f"{stem}-{datetime.now(course.course_zone()):%Y%m%d-%H%M}.{ext}"
    return Response(body, content_type=gradebook.media_type(name),
                    headers={"Content-Disposition": content_disposition(name), "Cache-Control": "no-store"})


# --- similarity ----------------------------------------------------------------------------------


def _names(ids: set[int]) -> dict[int, Submission]:
    if not ids:
        return {}
    return {s.id: s for s in db.session.scalars(
        select(Submission).where(Submission.id.in_(ids)).options(selectinload(Submission.student)))}


@bp.route("/similarity", methods=["GET", "POST"])
def similarity():
    a = chosen_assignment()
    if request.method == "POST":
        # The page's per-render token: the same page sent twice (a double click, a resent POST)
        # starts one check of the whole class, not two.
        token = request.form.get("form_token", "")
        key = scoped_key("form", current_user.id, token) if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", token) else None
        report, replayed = start_similarity(a, current_user, key=key)
        if replayed:
            flash(_("This similarity check was already started as report %(r)s: the page was sent twice and "
                    "started one check.", r=report.id), "ok")
            return redirect(url_for("instructor.similarity", a=db.session.get(Assignment, report.assignment_id).slug))
        flash(_("The similarity check is queued; this page updates when it is done."), "ok")
        return redirect(url_for("instructor.similarity", a=a.slug))
    report = latest_report(a)
    pairs = (report.pairs or []) if report else []
    subs = _names({p["a"] for p in pairs} | {p["b"] for p in pairs})
    return render_template("instructor/similarity.html", assignment=a, report=report, pairs=pairs, subs=subs,
                           form_token=secrets.token_urlsafe(16))


@bp.get("/similarity/<int:report_id>/pairs/<int:index>")
def similarity_pair(report_id: int, index: int):
    from grading.similarity import segments

    report = db.session.get(SimilarityReport, report_id)
    if report is None or not 0 <= index < len(report.pairs or []):
        abort(404)
    pair = report.pairs[index]
    subs = _names({pair["a"], pair["b"]})
    store = BlobStore(current_app.config["UPLOAD_DIR"])
    sides = []
    for key in ("a", "b"):
        sub = subs.get(pair[key])
        if sub is None:
            abort(404)
        code = code_text(store.get(sub.code_sha256))
        sides.append({"sub": sub, "score": pair[f"score_{key}"], "segments": segments(code, pair[f"slices_{key}"])})
    return render_template("instructor/similarity_pair.html", report=report, pair=pair, sides=sides,
                           index=index, assignment=db.session.get(Assignment, report.assignment_id))



@bp.get("/similarity/status")
def similarity_status():
    resp = jsonify(similarity_json(latest_report(chosen_assignment())))
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _log_key(key: str) -> str:
    """A key of a logged value (app/course.py, app/regrading.py) in the reader's language; as stored if unknown."""
    labels = {"deadline": _("deadline"), "extra_days": _("extra days"), "batch": _("batch"),
              "runs": _("runs queued"), "cancelled": _("cancelled"), "running": _("already running")}
    return labels.get(key, key)


@bp.app_template_filter("logval")
def log_value(value: object) -> Markup | str:
    """A course-log value for people: dates as every page shows a time (the reader's zone, UTC one
    hover away: views_helpers.fmt_dt), points as the pages write them, None as a dash."""
    import re

    from app.views_helpers import _punctuation, fmt_dt

    if value is None:
        return "—"
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?", value):
        return fmt_dt(datetime.fromisoformat(value))
    if isinstance(value, dict):
        # Round 37: the keys were shown as stored ("batch: 3, runs: 2") on zh pages too.
        colon, comma = _punctuation("colon")(), _punctuation("comma")()
        return Markup(comma).join(Markup("{}{}{}").format(_log_key(k), colon, log_value(v)) for k, v in value.items())
    if isinstance(value, list):   # the sign-in links' addresses were printed as a Python list, ['a@x', 'b@y']
        # as a list of the reader's language: a、b on zh pages (round 46: "a, b" there)
        return Markup(_punctuation("list")()).join(log_value(v) for v in value)
    if isinstance(value, float):  # points as the pages show them: 12, not 12.0 (round 47)
        return fmt(value)
    return _shown_invisibles(str(value))


def _shown_invisibles(text: str) -> Markup | str:
    """A logged value with its invisible characters named (U+200B, U+3000, a space at either end): what
    migration 0012 and app.course.typed remove from emails and typed values, so an 'email cleaned' entry
    read ' Bob@example.edu\u200b' -> 'Bob@example.edu', two values that look the same."""
    import unicodedata

    lead, trail = len(text) - len(text.lstrip(" ")), len(text.rstrip(" "))

    def invisible(i: int, ch: str) -> bool:
        cat = unicodedata.category(ch)
        return cat in ("Cf", "Cc", "Zl", "Zp") or (cat == "Zs" and (ch != " " or i < lead or i >= trail))

    if not any(invisible(i, ch) for i, ch in enumerate(text)):
        return text
    return Markup("").join(Markup('<span class="invisible-char">U+{:04X}</span>').format(ord(ch))
                           if invisible(i, ch) else ch for i, ch in enumerate(text))
