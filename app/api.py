"""JSON API v1, token-authenticated (`Authorization: Bearer <token>`), same rules as the pages.

Every error is JSON `{"error": "...", "code": "...", "message": {"en", "zh"}}` with the HTTP status
of the refusal (400/401/403/404/405/413/415/422, 429 for cooldown, too many pending or a rate
limit, with `Retry-After`; 500 and 503 too), built by `app.errors.api_error`.
"""

from __future__ import annotations

import functools
import time

from flask import Blueprint, Response, abort, current_app, g, jsonify, render_template, request
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased, selectinload

from app import gradebook
from app.api_input import BadInput, check_form_fields, json_object, refuse_repeated
from app.assignments import default_assignment
from app.authz import api_limit, can_see, load_submission, rate_key, submit_limit, token_required
from app.coursework import rubric_for, rubric_stamp
from app.errors import api_error, both, echoed, one_of
from app.extensions import db, limiter
from app.idempotency import scoped_key
from app.ids import MAX_ID
from app.longpoll import Admission, final_listener, parse_wait, pause, stopping, waits
from app.models import FINAL, Assignment, AuditReview, GradingRun, ScoreOverride, Status, Submission, User
from app.openapi import spec
from app.queue import queue_position
from app.regrading import regrade_requested_before, request_regrade
from app.review_text import for_api
from app.scores import effective_for, fmt, student_view
from app.storage import BlobStore
from app.submitting import SubmissionRefused, idempotency_key, submit_once
from app.upload_names import renamed
from app.views_helpers import content_disposition, uploaded
from grading.i18n import localized

bp = Blueprint("api", __name__)
# Every API request counts against its user (token or session), else its address.
limiter.limit(api_limit, key_func=rate_key)(bp)


# Errors: 404/405/413/429/500 raised anywhere under /api/ are answered by app/errors.py in the
# shape above; the views below name their own refusals with api_error().


@bp.before_request
def one_value_per_parameter() -> None:
    refuse_repeated(request.args, "query parameter", "查询参数")


@bp.after_request
def conditional(resp: Response) -> Response:
    """Every successful GET (and HEAD) of the API carries an ETag of its body, and a client that sends it
    back in If-None-Match gets 304 Not Modified without the body: a script polling a submission or the
    gradebook downloads the same result only once. Strong tags: the same bytes, the same tag."""
    if request.method in ("GET", "HEAD") and resp.status_code == 200 and not resp.is_streamed:
        resp.add_etag()
        resp.make_conditional(request)
    return resp


@bp.errorhandler(BadInput)
def bad_input(exc: BadInput) -> Response:
    """A body the API cannot take as sent (app/api_input.py): refused before anything is done."""
    db.session.rollback()
    return api_error(exc.code, exc.status, {"en": exc.en, "zh": exc.zh}, accepted=exc.accepted)


def api_lang() -> str:
    return "zh" if str(get_locale() or "zh").startswith("zh") else "en"


def _reasons_shaped(result: dict | None) -> dict | None:
    """``result`` with each review reason in the one shape the API documents (``ReviewReason``): a row stored
    before round 39 holds plain strings, read back to their code (app/review_text.py)."""
    if result is not None and isinstance(result.get("review"), list):
        result["review"] = [for_api(r) for r in result["review"]]
    return result


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
        "audit_from_attempt": sub.audit_from_attempt,
        "figure_from_attempt": sub.figure_from_attempt,
        "queue_position": queue_position(latest),
        "grader_version": shown.grader_version if shown else None,
        # the run whose result is shown: a later regrade's result changes it (and the answer's ETag)
        "graded_run_id": graded.id if graded else None,
        # grader messages in the caller's language (?lang=, Accept-Language; app.select_locale)
        "result": _reasons_shaped(localized(result if full else student_view(result), api_lang())),
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
def create_submission():
    check_form_fields("/submissions")
    slug = request.form.get("assignment")
    if slug:
        a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
        if a is None or (not a.published and not g.api_user.is_instructor):
            return _no_assignment(slug)
    else:
        a = default_assignment()
        if a is None:
            return api_error("assignment_not_found", 404, _l("No assignment is published yet."))
    try:
        # A retry with the key of an earlier send gets that send's attempt back (docs/contracts.md).
        key = idempotency_key(request.headers.get("Idempotency-Key"))
        code, audit, figure = uploaded("code"), uploaded("audit"), uploaded("figure")
        accepted = submit_once(
            a, g.api_user, code, audit, figure,
            store=BlobStore(current_app.config["UPLOAD_DIR"]),
            max_pending=current_app.config["MAX_PENDING_PER_STUDENT"],
            keep_audit=not request.form.get("remove_audit"),
            keep_figure=not request.form.get("remove_figure"),
            key=f"api:{key}" if key is not None else None,
        )
    except SubmissionRefused as exc:
        db.session.rollback()
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return api_error(exc.code, exc.http_status, {"en": exc.en, "zh": exc.zh}, headers=headers)
    sub = accepted.submission
    latest = sub.latest_run
    body = {"id": sub.id, "status": latest.status if latest else sub.status, "attempt": sub.attempt,
            "queue_position": queue_position(latest),
            "url": f"/api/v1/submissions/{sub.id}",
            # A code-only resubmission keeps the previous audit and figure; say which were kept.
            "carried_forward": {"audit": sub.audit_from_attempt, "figure": sub.figure_from_attempt},
            # Each file kept under another name than the one sent, and why (app.upload_names), as the page says
            "renamed": [note.as_json() for note in renamed(
                {"code": code, "audit": audit, "figure": figure})],
            "replayed": accepted.replayed}
    rubric = rubric_for(sub.assignment.suite)
    if rubric.audit_category and not sub.audit_sha256:
        body["warnings"] = [{"code": "no_audit", "message": both(_l(
            "No audit was submitted or kept: the audit and the figure carry %(a)s of the %(t)s points."),
            a=fmt(rubric.audit_max), t=fmt(rubric.max_total))}]
    resp = jsonify(body)
    resp.status_code = 202
    resp.headers["Location"] = f"/api/v1/submissions/{sub.id}"
    if accepted.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


# Pages of GET /submissions: oldest first, `?after=<last id seen>&limit=N`. The default page holds
# what one client received before pages existed for every realistic student (README: pagination).
LIST_DEFAULT_LIMIT = 100
LIST_MAX_LIMIT = 500


def _whole_arg(name: str, lo: int, hi: int, default: int) -> int | None:
    """A whole-number query argument within [lo, hi]; None when it is not one."""
    raw = request.args.get(name)
    if raw is None:
        return default
    raw = raw.strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        return None
    value = int(raw)
    return value if lo <= value <= hi else None


@bp.get("/submissions")
@token_required
def list_submissions():
    """Own submissions, oldest first, one page at a time: `next` (and the `Link: rel="next"` header)
    names the next page, null on the last one. A cursor (the last id seen), so attempts made while
    a client pages are neither skipped nor listed twice."""
    limit = _whole_arg("limit", 1, LIST_MAX_LIMIT, LIST_DEFAULT_LIMIT)
    if limit is None:
        return api_error("bad_limit", 400, _l("limit must be a whole number from 1 to %(n)s.", n=LIST_MAX_LIMIT))
    after = _whole_arg("after", 0, MAX_ID, 0)  # ids are 32-bit integers
    if after is None:
        return api_error("bad_cursor", 400, _l(
            "after must be the id of a submission: use the 'next' link of the previous page."))
    subs = list(db.session.scalars(
        select(Submission).where(Submission.student_id == g.api_user.id, Submission.id > after)
        .options(selectinload(Submission.runs), selectinload(Submission.assignment),
                 selectinload(Submission.reviews).selectinload(AuditReview.reviewer))
        .order_by(Submission.id).limit(limit + 1)
    ))
    more, subs = len(subs) > limit, subs[:limit]
    items = []
    for s in subs:
        score = effective_for(s, s.latest_graded_run)
        items.append({"id": s.id, "assignment": s.assignment.slug, "attempt": s.attempt,
                      "status": s.latest_run.status if s.latest_run else s.status,
                      "submitted_at": s.created_at.isoformat() + "Z", "late_days": s.late_days,
                      "total": score.total if score else None})
    next_url = f"/api/v1/submissions?after={subs[-1].id}&limit={limit}" if more else None
    resp = jsonify({"submissions": items, "next": next_url})
    if next_url:
        resp.headers["Link"] = f'<{next_url}>; rel="next"'
    return resp


@bp.get("/submissions/<int:submission_id>")
@token_required
def get_submission(submission_id: int):
    """`?wait=S` (at most LONGPOLL_MAX_WAIT_S) long-polls: the answer comes as soon as grading
    ends, or after S s; with If-None-Match, as soon as the answer is another than the one tagged (a
    regrade of a graded attempt included), else 304 after S s. Waits are bounded per user and per
    process (app/longpoll.py)."""
    if "wait" not in request.args:
        sub = load_submission(submission_id, g.api_user)  # 404 (JSON) when absent or not theirs
        return jsonify(serialise(sub, full=g.api_user.is_instructor))
    since = time.monotonic()  # before the status is read: a later final status wakes the wait
    # Who may see it and its status only: the full submission is read once, after the wait.
    row = db.session.execute(
        select(Submission.student_id, Submission.status).where(Submission.id == submission_id)
    ).first()
    if row is None or not can_see(g.api_user, row):
        abort(404)  # JSON, as every error under /api/
    cfg = current_app.config
    wait = parse_wait(request.args.get("wait"), cfg["LONGPOLL_MAX_WAIT_S"])
    if wait is None:
        return api_error("bad_wait", 400, _l("wait must be a number of seconds (at most 20)."))
    # With If-None-Match the wait is for a change of the answer (its ETag), whatever the status: a graded
    # attempt's regrade, an override or a review, not only the first grading's end.
    for_change = bool(request.if_none_match)
    if wait and (for_change or row.status not in FINAL):
        # A wait on a final status waits for a regrade that may never come: such waits hold at most half of the
        # slots, so that they never crowd out the waits of students whose grading is under way (round 36b).
        slots = cfg["LONGPOLL_SLOTS"] if row.status not in FINAL else cfg["LONGPOLL_SLOTS"] // 2
        with waits.admit(g.api_user.id, per_user=cfg["LONGPOLL_PER_USER"], slots=slots) as admission:
            if admission is Admission.USER_BUSY:
                # what is counted is said: the API's waits only (an assignment page's list waits apart)
                n = cfg["LONGPOLL_PER_USER"]
                return api_error("too_many_waits", 429,
                                 {"en": f"you already have {n} API long polls open (?wait on /api/v1/submissions; "
                                        "open assignment pages are not counted); wait for one to end",
                                  "zh": f"你已有 {n} 个接口长轮询在等待（/api/v1/submissions 的 ?wait，"
                                        "打开的作业页面不计在内），请等其中一个结束后再试"},
                                 headers={"Retry-After": "1"})
            if admission is Admission.WAIT and for_change:
                _wait_for_change(submission_id, since, wait)
            elif admission is Admission.WAIT:
                _wait_until_final(submission_id, since, wait)
    sub = load_submission(submission_id, g.api_user)
    return jsonify(serialise(sub, full=g.api_user.is_instructor))


def _end_read_transaction() -> None:
    """End the request's read transaction, so a wait holds no pooled connection and the next read
    sees new commits, without expiring the signed-in user (read again otherwise)."""
    user = g.api_user
    db.session.expunge(user)
    try:
        db.session.rollback()
    finally:
        db.session.add(user)


def _wait_until_final(submission_id: int, since: float, wait: float) -> None:
    """Return when the submission's status is final or after `wait` s. On PostgreSQL the
    process's listener wakes the wait when the grading is stored (no query meanwhile); elsewhere
    a cheap status read every 100 ms. The full answer is built once, at the end."""
    status_of = select(Submission.status).where(Submission.id == submission_id)

    def is_final() -> bool:
        _end_read_transaction()
        return db.session.scalar(status_of) in FINAL

    _end_read_transaction()
    deadline = time.monotonic() + wait
    listener = final_listener(db.engine)
    if listener is not None:
        listener.wait_final(submission_id, since, deadline, is_final)
    else:
        while time.monotonic() < deadline:
            if pause(0.1):   # the process is stopping: answer the current status now
                break
            if is_final():
                break
    _end_read_transaction()


# How often a wait for a change (If-None-Match) reads the answer again: a regrade queued or started, an
# override or a review sends no notification (only a final status does, which wakes the wait at once).
CHANGE_CHECK_S = 1.0


def _current_answer(submission_id: int) -> Response:
    sub = load_submission(submission_id, g.api_user)
    return jsonify(serialise(sub, full=g.api_user.is_instructor))


def _still_current(submission_id: int) -> bool:
    """Whether the answer now would carry a tag the client sent (If-None-Match, weak comparison, as the
    304 of `conditional`)."""
    _end_read_transaction()
    resp = _current_answer(submission_id)
    resp.add_etag()
    tag, _weak = resp.get_etag()
    return request.if_none_match.contains_weak(tag)


@functools.cache
def _version_statement():
    """`_answer_version`'s statement, built once (its submission id a bound parameter). Built at each check it
    took most of the read's time (aliases, subqueries): 25 ms a read measured, 3.8 ms built once (the round 36
    statement, smaller and built each time: 6 ms)."""
    sid = bindparam("sid")
    run_states = case(*((GradingRun.status == s.value, i + 1) for i, s in enumerate(Status)), else_=0)
    student, reviewer, author = aliased(User), aliased(User), aliased(User)

    def of(model, column):
        return select(column).where(model.submission_id == sid).scalar_subquery()

    latest_reviewer = (select(func.coalesce(reviewer.name, "") + "\n" + reviewer.email)
                       .join(AuditReview, AuditReview.reviewer_id == reviewer.id)
                       .where(AuditReview.submission_id == sid)
                       .order_by(AuditReview.id.desc()).limit(1).scalar_subquery())
    # Order does not matter: a different order costs one rebuild of the answer, never a wrong one.
    authors = (select(func.aggregate_strings(func.coalesce(author.name, "") + "\n" + author.email, "\n"))
               .join(ScoreOverride, ScoreOverride.author_id == author.id)
               .where(ScoreOverride.submission_id == sid).scalar_subquery())
    return (select(
        Submission.status, Submission.late_days, Assignment.late_penalty_per_day, Assignment.suite,
        Assignment.slug, student.name, student.email,
        of(GradingRun, func.count(GradingRun.id)), of(GradingRun, func.max(GradingRun.id)),
        of(GradingRun, func.sum(GradingRun.id * run_states)),
        of(ScoreOverride, func.count(ScoreOverride.id)), of(ScoreOverride, func.max(ScoreOverride.id)),
        of(AuditReview, func.count(AuditReview.id)), of(AuditReview, func.max(AuditReview.id)),
        latest_reviewer, authors,
    ).join(Assignment, Assignment.id == Submission.assignment_id).join(student, student.id == Submission.student_id)
        .where(Submission.id == sid))


def _answer_version(submission_id: int) -> tuple:
    """What the answer is made of, in one small read: the status and late days, the runs (how many, the
    newest, each one's status), the overrides and audit reviews (rows are added, never edited), the
    assignment's late penalty and suite, the names the answer shows (the student's, the latest reviewer's,
    the override authors': a roster import renames people) and the stamp of the suite's rubric file (its audit
    category decides whether a review counts; an instructor edits it in place). The same version, the same
    answer, except a queued attempt's queue position, which only a pending status shows (`_wait_for_change`
    rebuilds those every time)."""
    row = db.session.execute(_version_statement(), {"sid": submission_id}).first()
    return (*row, rubric_stamp(row.suite)) if row is not None else ()


def _wait_for_change(submission_id: int, since: float, wait: float) -> None:
    """Return when the answer's ETag is none of those sent in If-None-Match, or after `wait` s: read
    again every CHANGE_CHECK_S, and at once when the listener is told of a final status. The answer is
    rebuilt only when its version (`_answer_version`, one statement) changed, or while it is pending
    (its queue position moves): a graded attempt waiting for a regrade rebuilt it every second."""
    deadline = time.monotonic() + wait
    listener = final_listener(db.engine)
    seen: tuple | None = None
    while not _stopping_or_past(deadline):
        checked = time.monotonic()
        _end_read_transaction()
        version = _answer_version(submission_id)
        if version != seen or not version or version[0] not in FINAL:
            if not _still_current(submission_id):
                break
            seen = version
        _end_read_transaction()
        step = min(deadline, checked + CHANGE_CHECK_S)
        if listener is not None:
            listener.wait_final(submission_id, max(since, checked), step, lambda: False)
        elif pause(max(0.0, step - time.monotonic())):
            break
    _end_read_transaction()


def _stopping_or_past(deadline: float) -> bool:
    return stopping() or time.monotonic() >= deadline


@bp.post("/submissions/<int:submission_id>/regrade")
@token_required
def regrade(submission_id: int):
    if not g.api_user.is_instructor:
        return api_error("forbidden", 403, _l("Only instructors may do this."))
    sub = load_submission(submission_id, g.api_user)  # 404 (JSON) when absent or not theirs
    try:
        key = scoped_key("api", g.api_user.id, idempotency_key(request.headers.get("Idempotency-Key")))
    except SubmissionRefused as exc:
        return api_error(exc.code, exc.http_status, {"en": exc.en, "zh": exc.zh})
    # A retry with the key of an earlier request answers its run: never a second run queued.
    run = regrade_requested_before(key)
    replayed = run is not None
    if run is None:
        try:
            run = request_regrade(sub, key=key)
        except IntegrityError:  # the same key at the same moment: that request queued the run
            db.session.rollback()
            run, replayed = regrade_requested_before(key), True
            if run is None:
                raise
    if replayed and run.submission_id != sub.id:
        return api_error("idempotency_key_reused", 422, {
            "en": f"This Idempotency-Key was already used to regrade another submission ({run.submission_id}); "
                  "use a new key for each new regrade. Nothing was queued.",
            "zh": f"这个 Idempotency-Key 已用于重新评分另一份提交（{run.submission_id}）；每次新的重新评分请使用"
                  "新的 key。本次没有排队任何内容。"})
    # An attempt still waiting for its first grading is answered with that run (request_regrade):
    # the same rule as the page's, the CLI's and a batch's, and the answer says so.
    waiting = not run.is_regrade
    body = {"id": sub.id, "run_id": run.id, "status": run.status, "replayed": replayed,
            "queue_position": queue_position(run), "already_waiting": waiting}
    if waiting and run.status == Status.QUEUED.value:
        body["message"] = {
            "en": "This attempt is still waiting for its first grading: that run grades it with the current "
                  "grader. No second run was queued.",
            "zh": "这次提交仍在等待第一次评分：那次评分使用当前的评分程序。没有再排队第二次。"}
    elif waiting:
        # A retry of a request answered while the attempt waited (regrading.AnsweredRegradeKey): the
        # same run as the first answer, no longer waiting, so the answer no longer says it waits.
        body["message"] = {
            "en": "This request was answered with this attempt's first grading, which was still waiting when the "
                  "request was first sent. No regrade run was queued; to grade the attempt again, send a new "
                  "request with a new Idempotency-Key.",
            "zh": "这次请求首次发送时，这次提交仍在等待第一次评分，因此由那次评分作答，没有排队重新评分。"
                  "若要再次评分，请用新的 Idempotency-Key 发送新的请求。"}
    resp = jsonify(body)
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp, 202


def _no_assignment(slug: str) -> Response:
    """404 for an assignment slug that names none the user may use, listing those they may (every
    assignment for an instructor, the published ones for a student) with their titles, and in
    "accepted" (round 33: "No assignment 'lab1'." left a script's author to guess the slug)."""
    stmt = select(Assignment).order_by(Assignment.id)
    if not g.api_user.is_instructor:
        stmt = stmt.where(Assignment.published.is_(True))
    usable = list(db.session.scalars(stmt))
    if not usable:
        return api_error("assignment_not_found", 404, _l("No assignment is published yet."))
    return api_error("assignment_not_found", 404, {
        "en": f"No assignment {echoed(slug)}. 'assignment' takes the slug of one of these: "
              + "; ".join(f"'{a.slug}' ({echoed(a.title)})" for a in usable) + ".",
        "zh": f"没有作业 {echoed(slug)}。「assignment」应为以下作业之一的 slug（简称）："
              + "；".join(f"'{a.slug}'（{echoed(a.title)}）" for a in usable) + "。"},
        accepted=[a.slug for a in usable])


def _instructor_assignment(slug: str | None):
    """(assignment, None) for an instructor, else (None, the refusal): 403, or 404 for a bad slug."""
    if not g.api_user.is_instructor:
        return None, api_error("forbidden", 403, _l("Only instructors may do this."))
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug)) if slug else default_assignment()
    if a is None:
        if slug:
            return None, _no_assignment(slug)
        return None, api_error("assignment_not_found", 404, _l("No assignment is published yet."))
    return a, None


@bp.get("/gradebook")
@token_required
def get_gradebook():
    a, refused = _instructor_assignment(request.args.get("assignment"))
    if refused is not None:
        return refused
    rows, rubric = gradebook.class_rows(a), rubric_for(a.suite)
    fmt_name = request.args.get("format", "json")
    # The fixed keys by default: scripts read the API's files by column name since before round 47.
    headers = request.args.get("headers", "keys")
    if headers not in gradebook.HEADERS:
        return api_error("bad_headers", 400, one_of("headers", gradebook.HEADERS, headers),
                         accepted=list(gradebook.HEADERS))
    if fmt_name in gradebook.EXPORT_FORMATS:
        body, name = gradebook.export(rows, a, fmt_name, headers=headers, lang=api_lang())
        return Response(body, content_type=gradebook.media_type(name),
                        headers={"Content-Disposition": content_disposition(name)})
    if fmt_name != "json":
        return api_error("bad_format", 400, one_of("format", gradebook.FORMAT_TEXT, fmt_name),
                         accepted=list(gradebook.FORMAT_TEXT))
    return jsonify({"assignment": a.slug, "score_rule": gradebook.SCORE_HEADER,
                    # A list: JSON objects are sorted by key, the rubric's order is the columns'.
                    "categories": [{"name": name, "max": c["max"], "label": c["label"]}
                                   for name, c in rubric.categories.items()],
                    "students": gradebook.export_rows(rows, rubric)})


@bp.post("/regrades")
@token_required
def create_regrade():
    """Queue a regrade batch at once (a script has already decided); answers the batch id and the
    number of runs queued."""
    from app import regrading

    body = json_object("/regrades")
    a, refused = _instructor_assignment(body.get("assignment"))
    if refused is not None:
        return refused
    scope = body.get("scope")
    if scope not in regrading.SCOPES:
        return api_error("bad_scope", 400, one_of("scope", regrading.SCOPE_TEXT, scope), accepted=regrading.SCOPES)
    if scope == "student" and not body.get("student"):
        return api_error("student_missing", 400, _l("The scope 'student' needs 'student': an email."))
    if scope == "submission" and not isinstance(body.get("submission"), int):
        return api_error("submission_missing", 400, _l("The scope 'submission' needs 'submission': an id."))
    try:
        key = idempotency_key(request.headers.get("Idempotency-Key"))
        plan = regrading.plan(a, scope, student_email=body.get("student"), submission_id=body.get("submission"))
    except SubmissionRefused as exc:
        return api_error(exc.code, exc.http_status, {"en": exc.en, "zh": exc.zh})
    except regrading.RegradeError as exc:
        return api_error(exc.code, 404, {"en": exc.en, "zh": exc.zh})
    # A retry with the key of an earlier request answers its batch: never every run queued twice.
    # The key is kept (hashed with the user, in the column the confirmation page's token uses).
    token = scoped_key("api", g.api_user.id, key)
    batch = regrading.confirmed_before(token)
    replayed = batch is not None
    if batch is None and not plan.submission_ids:
        # As the page and the CLI: an empty batch answered 202 "runs_queued": 0, and its cancel then said
        # "0 attempt(s) were still waiting" (round 38, review RF).
        scope_en, scope_zh = regrading.SCOPE_TEXT[scope]
        return api_error("nothing_to_regrade", 409, {
            "en": f"Nothing to regrade: {a.slug} has no attempt in scope '{scope}' ({scope_en}). Nothing was queued.",
            "zh": f"没有可重新评分的提交：{a.slug} 在范围「{scope}」（{scope_zh}）中没有提交。本次没有排队任何内容。"})
    if batch is None:
        try:
            batch = regrading.start(a, plan, g.api_user, form_token=token)
        except IntegrityError:  # the same key at the same moment: that request queued it
            db.session.rollback()
            batch, replayed = regrading.confirmed_before(token), True
            if batch is None:
                raise
    if replayed and (batch.assignment_id, batch.scope, batch.student_id, batch.submission_id) != (
            a.id, plan.scope, plan.student.id if plan.student else None,
            plan.submission.id if plan.submission else None):
        return api_error("idempotency_key_reused", 422, {
            "en": f"This Idempotency-Key was already used for another regrade (batch {batch.id}); use a new key "
                  "for each new regrade. Nothing was queued.",
            "zh": f"这个 Idempotency-Key 已用于另一次重新评分（第 {batch.id} 批）；每次新的重新评分请使用新的 key。"
                  "本次没有排队任何内容。"})
    # Attempts left to their first grading (regrading.start): "runs_queued": 0 alone read as a
    # regrade that did nothing.
    resp = jsonify({"batch": batch.id, "runs_queued": batch.runs_queued,
                    "already_waiting": batch.already_waiting, "replayed": replayed,
                    "url": f"/instructor/regrades/{batch.id}"})
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp, 202


@bp.delete("/regrades/<int:batch_id>")
@token_required
def cancel_regrade(batch_id: int):
    """Cancel a batch's runs no worker has claimed yet, as the batch page's Cancel does (regrading.cancel: one
    guarded DELETE; runs already running finish). Idempotent: a retry removes nothing more and answers 200
    with `outcome` `already_cancelled`; 409 `nothing_to_cancel` when workers had taken every run or the batch
    queued none."""
    from app import regrading
    from app.models import RegradeBatch

    if not g.api_user.is_instructor:
        return api_error("forbidden", 403, {
            "en": "Only instructors may cancel a regrade: a regrade batch belongs to the course's staff.",
            "zh": "只有教师可以取消重新评分：重新评分批次属于课程教师。"})
    batch = db.session.get(RegradeBatch, batch_id)
    if batch is None:
        return api_error("batch_not_found", 404, {
            "en": f"No regrade batch {batch_id}: GET /instructor/regrades lists the batches; POST /api/v1/regrades "
                  "answers the id of the batch it queued.",
            "zh": f"没有第 {batch_id} 批重新评分：/instructor/regrades 页面列出所有批次；POST /api/v1/regrades "
                  "的回答给出它排队的批次编号。"})
    done = regrading.cancel(batch, g.api_user)
    outcome, said = regrading.cancel_outcome(batch, done)
    # zh sentences end in "。" and follow each other without a space; en ones are joined with one.
    message = {lang: sep.join(both(text, **params)[lang] for text, params in said)
               for lang, sep in (("en", " "), ("zh", ""))}
    if outcome in ("taken", "none_queued"):
        return api_error("nothing_to_cancel", 409, message)
    return jsonify({"batch": batch.id, "outcome": outcome, "cancelled": done.cancelled, "running": done.running,
                    "cancelled_in_all": batch.runs_cancelled, "runs_queued": batch.runs_queued,
                    "url": f"/instructor/regrades/{batch.id}", "message": message})


@bp.post("/extensions")
@token_required
def create_extension():
    from app import course

    body = json_object("/extensions")
    a, refused = _instructor_assignment(body.get("assignment"))
    if refused is not None:
        return refused
    try:
        student = course.find_student(str(body.get("student") or ""))
        days = body.get("extra_days") or 0
        if not isinstance(days, int):
            raise course.CourseError("bad_days", "extra_days must be a whole number.", "extra_days 必须是整数。")
        ext = course.grant_extension(a, student, g.api_user, deadline=course.parse_deadline(body.get("deadline")),
                                     extra_days=days, reason=str(body.get("reason") or ""))
    except course.CourseError as exc:
        return api_error(exc.code, 404 if exc.code == "no_student" else 422, {"en": exc.en, "zh": exc.zh})
    due = course.student_deadline(a, student.id)
    return jsonify({"assignment": a.slug, "student": student.email, "deadline": due.isoformat() + "Z" if due else None,
                    "extra_days": ext.extra_days}), 201


@bp.post("/similarity")
@token_required
def start_similarity():
    from app.similarity import start_similarity as start

    a, refused = _instructor_assignment(json_object("/similarity").get("assignment"))
    if refused is not None:
        return refused
    try:
        key = scoped_key("api", g.api_user.id, idempotency_key(request.headers.get("Idempotency-Key")))
    except SubmissionRefused as exc:
        return api_error(exc.code, exc.http_status, {"en": exc.en, "zh": exc.zh})
    report, replayed = start(a, g.api_user, key=key)
    if replayed and report.assignment_id != a.id:
        return api_error("idempotency_key_reused", 422, {
            "en": f"This Idempotency-Key was already used to start another similarity check (report {report.id}); "
                  "use a new key for each new check. Nothing was started.",
            "zh": f"这个 Idempotency-Key 已用于启动另一次相似度检查（报告 {report.id}）；每次新的检查请使用新的 key。"
                  "本次没有启动任何检查。"})
    resp = jsonify({"id": report.id, "status": report.status, "replayed": replayed})
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp, 202


@bp.get("/similarity")
@token_required
def get_similarity():
    from app.similarity import latest_report, similarity_json

    a, refused = _instructor_assignment(request.args.get("assignment"))
    if refused is not None:
        return refused
    return jsonify(similarity_json(latest_report(a)))


@bp.get("/openapi.json")
def openapi():
    return jsonify(spec())


@bp.get("/docs")
def docs():
    return render_template("api_docs.html", spec=spec())
