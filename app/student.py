"""The student area: the assignment, one upload form, the live submission page, attempts."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

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
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from sqlalchemy import Select, select
from sqlalchemy.orm import selectinload

from app.assignments import default_assignment
from app.attempts_wait import tab_wait, wait_for_list_change
from app.authz import (
    TokenLimitReached,
    can_see,
    issue_token,
    load_submission,
    rate_key,
    submit_limit,
)
from app.course import is_dropped, student_deadline
from app.coursework import contract_markdown, rubric_for
from app.errors import api_error
from app.extensions import db, limiter
from app.ids import db_id
from app.longpoll import Admission, list_waits, parse_wait
from app.models import ApiToken, Assignment, AuditReview, Status, Submission, TestResult, utcnow
from app.monitoring import any_worker_live, stall_checks
from app.queue import queue_position
from app.scores import (
    best_of,
    counted_tests,
    effective,
    effective_for,
    failure_for_student,
    fmt,
    student_view,
)
from app.storage import BlobStore
from app.submitting import (
    SubmissionRefused,
    carried_forward,
    form_key,
    kept_on_resubmit,
    late_days,
    not_enrolled,
    request_sha256,
    submit_once,
)
from app.upload_names import renamed
from app.views_helpers import content_disposition, safe_filename, uploaded
from grading.i18n import not_run, stop_of
from grading.inputs import PDF_MAGIC, PNG_MAGIC, code_file_name, code_text
from grading.load_hints import python_lines

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
def index():
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
                     selectinload(Submission.assignment),
                     # effective_for reads each attempt's overrides: lazy, one query per attempt.
                     selectinload(Submission.overrides))
            .order_by(Submission.attempt.desc())
        )
    )


# A worked example of the late policy, computed by the same function as every score (app/scores.py),
# so the policy text can never again disagree with the arithmetic.
LATE_EXAMPLE_RAW, LATE_EXAMPLE_DAYS = 85.0, 2


def assignment_page(assignment: Assignment, error: str | None = None, status: int = 200,
                    *, confirm_no_audit: bool = False, pick_again: list[str] | None = None):
    loc = locale()
    contract, contract_source = contract_markdown(assignment.suite, loc, assignment.description or "")
    subs = _my_submissions(assignment)
    attempts = [(s, effective_for(s, s.latest_graded_run)) for s in subs]
    counted = best_of([(s, score) for s, score in attempts if score is not None])
    now = utcnow()
    carried_audit, carried_figure = carried_forward(assignment, current_user)
    rubric = rubric_for(assignment.suite)
    example = effective(LATE_EXAMPLE_RAW, rubric.max_total, {}, rubric=rubric, late_days=LATE_EXAMPLE_DAYS,
                        penalty_per_day=assignment.late_penalty_per_day)
    return render_template(
        "student/assignment.html",
        assignment=assignment,
        contract=contract,
        contract_source=contract_source,
        rubric=rubric,
        assignments=list(db.session.scalars(
            select(Assignment).where(Assignment.published.is_(True)).order_by(Assignment.id))),
        attempts=attempts,
        counted=counted[0] if counted else None,
        late_now=late_days(assignment, now, current_user.id),
        my_deadline=student_deadline(assignment, current_user.id),
        late_example=example,
        ext_advice=_ext_advice(),
        now=now,
        error=error,
        confirm_no_audit=confirm_no_audit,
        pick_again=pick_again or [],
        carried_audit=carried_audit,
        carried_figure=carried_figure,
        # the list's tag as rendered: the page's first request is already the long poll (no request for the tag)
        attempts_tag=_attempts_answer(assignment, conditional=False, subs=subs).headers["ETag"],
        max_upload_bytes=current_app.config["MAX_CONTENT_LENGTH"],
        not_enrolled=not_enrolled().message(loc) if is_dropped(current_user.id) else None,
        # One token per rendering of the form: a double click or a resent POST of this page is one
        # attempt (app/submitting.py form_key); a page rendered again gets a new token.
        form_token=secrets.token_urlsafe(16),
        loc=loc,
    ), status


@bp.get("/assignments/<slug>")
@login_required
def assignment(slug: str):
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    if a is None or (not a.published and not current_user.is_instructor):
        abort(404)
    return assignment_page(a)


@bp.get("/assignments/<slug>/attempts")
@login_required
def attempts_status(slug: str):
    """The status and score of each of the student's attempts, in one answer: the assignment page's list
    watches its attempts with it (an instructor's regrade, an override, a review change a score after grading
    ended), one request for the whole list instead of one per row. With If-None-Match and nothing changed, a 304.
    Round 38: `?wait=S` (at most LONGPOLL_MAX_WAIT_S) with If-None-Match holds the answer until it changes, as the
    API's long poll (app/attempts_wait.py), in a pool of its own (LONGPOLL_LIST_*); `X-Long-Poll: held` says it
    waited, `now` that the process had no slot free (or it was another user's turn, or the process is stopping) and
    answered at once: the page then asks again within seconds, backing off to a try each 60-70 s (round 39). Deleted or hidden during the wait: a 404, as a fresh
    request."""
    since = time.monotonic()  # before anything is read: a later final status wakes the wait
    a = _visible_assignment(select(Assignment).where(Assignment.slug == slug))
    if a is None:
        abort(404)
    cfg = current_app.config
    wait = parse_wait(request.args.get("wait"), cfg["LONGPOLL_MAX_WAIT_S"])
    if wait is None:
        return api_error("bad_wait", 400, _l("wait must be a number of seconds (at most 20)."))
    if not wait or not request.if_none_match:
        return _attempts_answer(a)
    user_id, a_id = current_user.id, a.id
    tab = request.args.get("tab")
    tab = tab if tab and len(tab) <= 40 and tab.isascii() and tab.isalnum() else None
    # The lists' own pool (LONGPOLL_LIST_*): a page never takes a slot of the API's waits, and users take turns.
    with (tab_wait(user_id, tab) as superseded,
          list_waits.admit(user_id, per_user=cfg["LONGPOLL_LIST_PER_USER"],
                           slots=cfg["LONGPOLL_LIST_SLOTS"]) as admission):
        if admission is Admission.USER_BUSY:   # other tabs already wait: this one checks once a minute
            n = cfg["LONGPOLL_LIST_PER_USER"]
            return api_error("too_many_waits", 429,
                             {"en": f"Your other tabs already follow {n} attempts lists (the most one account "
                                    "follows at once); this one checks its list once a minute.",
                              "zh": f"你的其他标签页已在跟踪 {n} 个提交列表（一个账号同时跟踪的上限），"
                                    "这一页每分钟检查一次。"},
                             headers={"Retry-After": "60", "Cache-Control": "private, no-store"})
        if admission is Admission.WAIT:
            def still_current() -> bool:
                # read again: deleted or hidden meanwhile (the row expired at the wait's rollback), the wait ends
                # and is answered as a fresh request is (404), not with an error of the expired row
                now_a = _visible_assignment(select(Assignment).where(Assignment.id == a_id))
                if now_a is None:
                    return False
                answer = _attempts_answer(now_a, conditional=False)
                return request.if_none_match.contains_weak(answer.get_etag()[0])

            signed_in = wait_for_list_change(user_id, a_id, since, wait, still_current, _end_read_transaction,
                                             superseded, current_user.session_nonce)
            if not signed_in:   # as login_required answers a fetch: 401, and the page says it is signed out
                return api_error("signed_out", 401, _l("You are signed out, so this list no longer updates."))
        ended = superseded.is_set()
    a = _visible_assignment(select(Assignment).where(Assignment.id == a_id)) if admission is Admission.WAIT else a
    if a is None:
        abort(404)
    resp = _attempts_answer(a)
    # superseded: this tab's newer wait took over (nobody reads this answer but a duplicated tab, which then takes a
    # tab id of its own and waits again: round 39)
    resp.headers["X-Long-Poll"] = "superseded" if ended else "held" if admission is Admission.WAIT else "now"
    return resp


def _visible_assignment(query: Select) -> Assignment | None:
    """The assignment the query finds if the signed-in user may see its list (a student: published only)."""
    a = db.session.scalar(query)
    return a if a is not None and (a.published or current_user.is_instructor) else None


def _end_read_transaction() -> None:
    """End the request's read transaction while a list wait is parked (no pooled connection held, the next read
    sees new commits), keeping the signed-in user loaded (its expiry would read it again)."""
    user = current_user._get_current_object()
    db.session.expunge(user)
    try:
        db.session.rollback()
    finally:
        db.session.add(user)


def _attempts_answer(a: Assignment, *, conditional: bool = True, subs: list[Submission] | None = None) -> Response:
    rows = []
    for sub in _my_submissions(a) if subs is None else subs:
        latest, graded = sub.latest_run, sub.latest_graded_run
        score = effective_for(sub, graded)
        # run_id: a final row back to the run it showed had its regrade cancelled (the page says nothing then)
        rows.append({"id": sub.id, "attempt": sub.attempt, "status": latest.status if latest else sub.status,
                     "run_id": latest.id if latest else None, "graded_run_id": graded.id if graded else None,
                     "total": score.total if score else None, "max_total": score.max_total if score else None})
    resp = jsonify({"attempts": rows})
    # Personal data: never stored by a cache. The page keeps the ETag itself and sends it (If-None-Match).
    resp.headers["Cache-Control"] = "private, no-store"
    resp.add_etag()
    return resp.make_conditional(request) if conditional else resp


@bp.post("/assignments/<slug>/submit")
@login_required
@limiter.limit(submit_limit, key_func=rate_key)
def upload(slug: str):
    a = db.session.scalar(select(Assignment).where(Assignment.slug == slug))
    if a is None or (not a.published and not current_user.is_instructor):
        abort(404)
    try:
        code, audit, figure = uploaded("code"), uploaded("audit"), uploaded("figure")
    except SubmissionRefused as exc:
        return _refused(a, exc, [safe_filename(f.filename) for _k, f in request.files.items(multi=True) if f.filename])
    keep_audit = not request.form.get("remove_audit")
    keep_figure = not request.form.get("remove_figure")
    # A browser cannot put files back into a form: after a refusal the page names what to pick
    # again (the script on the page submits in the background and keeps them instead).
    chosen = [u.filename for u in (code, audit, figure) if u is not None]
    rubric = rubric_for(a.suite)
    if (rubric.audit_category and code is not None and audit is None
            and not request.form.get("confirm_no_audit")):
        old_audit, _old_figure = carried_forward(a, current_user)
        if old_audit is None or not keep_audit:
            return assignment_page(
                a, error=_("You are submitting without an audit: the audit and the figure carry %(a)s of the "
                           "%(t)s points. Add your audit, or tick the box to confirm that you submit without one.",
                           a=fmt(rubric.audit_max), t=fmt(rubric.max_total)),
                status=400, confirm_no_audit=True, pick_again=chosen)
    digest = request_sha256(a, code, audit, figure, keep_audit, keep_figure)
    try:
        accepted = submit_once(
            a, current_user, code, audit, figure,
            store=store(), max_pending=current_app.config["MAX_PENDING_PER_STUDENT"],
            keep_audit=keep_audit, keep_figure=keep_figure,
            key=form_key(request.form.get("form_token"), digest), digest=digest,
        )
    except SubmissionRefused as exc:
        db.session.rollback()
        return _refused(a, exc, chosen)
    sub = accepted.submission
    if accepted.replayed:
        flash(_("This upload was already received as attempt %(n)s: it was sent twice (a double click or a "
                "resent page) and counted once.", n=sub.attempt), "submitted")
    else:
        flash(_("Submitted: attempt %(n)s is queued for grading.", n=sub.attempt), "submitted")
    # Every name kept otherwise than sent (app.upload_names), kept on the page after grading ends
    for note in renamed({"code": code, "audit": audit, "figure": figure}):
        flash(note.message("zh" if locale().startswith("zh") else "en"), "renamed")
    target = url_for("student.submission", submission_id=sub.id)
    if request.headers.get("X-Upload") == "fetch":
        # The page's script uploaded in the background; it goes to the new attempt itself.
        return jsonify({"id": sub.id, "url": target}), 201
    return redirect(target)


def _refused(a: Assignment, exc: SubmissionRefused, chosen: list[str]):
    """The assignment page with the refusal, naming the files to pick again (Retry-After when given)."""
    page, status = assignment_page(a, error=exc.message(locale()), status=exc.http_status, pick_again=chosen)
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
    return page, status, headers


# --- one submission -------------------------------------------------------------------------------


def shown_run(sub: Submission):
    """The run whose result is shown: the newest graded one, else the newest run."""
    return sub.latest_graded_run or sub.latest_run


def audit_text(sub: Submission) -> str | None:
    """The audit text stored at upload. A page view never parses an upload (a hostile PDF costs
    seconds of CPU per parse); None for a PDF uploaded before the text was stored."""
    if not sub.audit_sha256:
        return None
    return sub.audit_text


def _en(value: object) -> str:
    """The English text of a grader message (a {"en", "zh"} dict or a plain string)."""
    if isinstance(value, dict):
        return str(value.get("en") or "")
    return "" if value is None else str(value)


# The engine's load messages (grading/proxy.py load_error_text), rendered in the student's language
# when the engine sent English only. A {"en", "zh"} message is used as it is.
_LOAD_PATTERNS: list[tuple[re.Pattern[str], object]] = [
    (re.compile(r"^(?P<kind>\w+) at line (?P<line>\d+): (?P<msg>.*)$", re.S),
     lambda m: _("%(kind)s at line %(line)s: %(msg)s", **m.groupdict())),
    (re.compile(r"^timed out after (?P<s>[\d.?]+) s while importing (?P<file>\S+)$"),
     lambda m: _("Importing %(file)s took longer than %(s)s s and was stopped.", **m.groupdict())),
    (re.compile(r"^(?P<file>\S+) crashed while importing: (?P<msg>.*)$", re.S),
     lambda m: _("%(file)s crashed while it was being imported: %(msg)s", **m.groupdict())),
    (re.compile(r"^(?P<kind>\w+) while importing (?P<file>\S+): (?P<msg>.*)$", re.S),
     lambda m: _("%(kind)s while importing %(file)s: %(msg)s", **m.groupdict())),
]


def _load_detail(text: str, marker: str) -> str:
    """The load error itself, without the "<file> did not load:" lead and the audit's note."""
    match = re.search(re.escape(marker) + r"(.*)", text, re.S)
    return (match.group(1) if match else text).split("; ")[0].strip()


def _column_mark(text: str, column: int | None) -> tuple[str, str, str] | None:
    """The line split around the character Python's caret points at (column 1-based, characters):
    (before, at, after). One past the end is where something is missing (``expected ':'``): a blank
    is marked there. None when the column is unknown or not on this line (the caret would lie)."""
    if not column or column > len(text) + 1:
        return None
    at = text[column - 1:column] or "\u00a0"
    return text[:column - 1], at, text[column:]


def load_failure(result: dict | None, sub: Submission) -> dict | None:
    """When attention.py did not load, what the student must see first: the message in their
    language, the line and the offending source line when known, and how many tests did not run.

    None when the code loaded (some test ran)."""
    if not result or result.get("status") != Status.GRADED:
        return None
    tests = result.get("tests") or []
    # Hidden tests carry no feedback in the student's view: judge by the visible ones.
    visible = [t for t in tests if not t.get("hidden")]
    # Code that did not load marks every test `failed` "not run: ... did not load"; tests skipped once the
    # budget was used up or the code hung too often are `timeout`, and are no load failure.
    if (not visible or any(t.get("outcome") == "passed" for t in tests)
            or not all(not_run(t.get("feedback")) and t.get("outcome") != "timeout" for t in visible)):
        return None
    whole = result.get("load_error")
    message = whole or result.get("message") or ""
    # "attention.py did not load: SyntaxError at line 2: expected ':'; <audit note>"
    detail_en = _en(whole).strip() if whole else _load_detail(_en(message), "did not load: ")
    if isinstance(whole, dict):
        # the load error alone (results since the runner stores it): shown whole, hint and notes
        shown = detail_en if locale().startswith("en") else str(whole.get("zh") or "").strip()
    elif isinstance(message, dict):
        # {"en", "zh"} from the engine: "attention.py 无法导入：第 2 行出现 SyntaxError：…"
        shown = detail_en if locale().startswith("en") else _load_detail(str(message.get("zh") or ""), "无法导入：")
    else:  # results stored before the engine's messages were bilingual
        shown = detail_en
        for pattern, render in _LOAD_PATTERNS:
            m = pattern.match(detail_en)
            if m:
                shown = str(render(m))
                break
    # "SyntaxError at line 32, column 9: ..." (grading.proxy.load_error_text: the column is a SyntaxError's)
    line_match = re.search(r"\bline (\d+)\b(?:, column (\d+)\b)?", detail_en)
    line = int(line_match.group(1)) if line_match else None
    column = int(line_match.group(2)) if line_match and line_match.group(2) else None
    excerpt: list[tuple[int, str, bool, tuple[str, str, str] | None]] = []
    if line:
        try:
            source = python_lines(code_text(store().get(sub.code_sha256)))
        except OSError:
            source = []
        if 1 <= line <= len(source):
            excerpt = [(n, source[n - 1], n == line, _column_mark(source[n - 1], column) if n == line else None)
                       for n in range(max(1, line - 2), line + 1)]
    # Not run at all (the runner's Suite.nothing_defined: only comments, docstrings and imports): no
    # "<file> did not load:" lead in the message, and nothing to run on the student's computer.
    loaded = "did not load: " in _en(result.get("message"))
    return {"message": shown or _("The file could not be imported."), "line": line, "column": column,
            "excerpt": excerpt,
            "not_run": len(tests), "filename": code_file_name(sub.code_filename), "imported": loaded}


def siblings(sub: Submission) -> list[tuple[int, int]]:
    """(submission id, attempt) of every attempt of this student on this assignment, oldest first."""
    return list(db.session.execute(
        select(Submission.id, Submission.attempt)
        .where(Submission.assignment_id == sub.assignment_id, Submission.student_id == sub.student_id)
        .order_by(Submission.attempt)
    ).all())


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
        load=load_failure(view, sub),
        keeps=_kept_on_resubmit(sub),
        review=sub.audit_review,
        rubric=rubric_for(sub.assignment.suite),
        audit_html=audit_text(sub),
        instructor=instructor,
        failed=failure_for_student(run),
        loc=locale(),
    )


def _kept_on_resubmit(sub: Submission) -> tuple[bool, bool] | None:
    """(audit, figure) a code-only resubmission would keep (app.submitting.kept_on_resubmit): the newest
    attempt's, so said only on that attempt's page; None on an older attempt's, whose files may not be the ones
    kept."""
    kept = kept_on_resubmit(sub.assignment_id, sub.student_id)
    return (kept[1], kept[2]) if kept is not None and kept[0] == sub.attempt else None


def _reason(run) -> str | None:
    if current_user.is_authenticated and current_user.is_instructor:
        return run.status_reason if run is not None and run.status == Status.ERROR else None
    failed = failure_for_student(run)
    return failed["zh" if locale().startswith("zh") else "en"] if failed else None


def _stall(run) -> dict:
    """What the status says of a run no worker is known to grade (mend round 48, review E M1): ``worker_silent``
    (its worker has no heartbeat within HEARTBEAT_STALE_S), ``overdue`` (claimed more than RUN_DEADLINE_S ago),
    ``workers_live`` (any heartbeat that fresh; also while queued), ``tries_left`` (below MAX_TRIES), and
    ``stalled``: the words the page shows instead of "a worker is running the tests", what was checked and then
    what the sweeper's rules do with such a run (worker/sweeper.py): sent again to a live worker, which takes it
    over, or closed as an error when its tries are used up."""
    running = run is not None and run.status == Status.RUNNING
    silent, overdue = stall_checks(run) if running else (None, None)
    overdue = overdue and not silent if running else None     # a silent worker is said first
    queued = run is not None and run.status == Status.QUEUED
    live = any_worker_live() if queued or silent or overdue else None
    out = {"worker_silent": silent, "overdue": overdue, "workers_live": live, "tries_left": None, "stalled": None}
    if not (silent or overdue):
        return out
    cfg = current_app.config
    out["tries_left"] = tries_left = run.tries < int(cfg["MAX_TRIES"])
    seen = (_("The grader that took this submission has given no sign of life for over %(s)s seconds.",
              s=f"{float(cfg['HEARTBEAT_STALE_S']):g}") if silent else
            _("Grading of this submission started more than %(m)s minutes ago, longer than any grading may take.",
              m=f"{float(cfg['RUN_DEADLINE_S']) / 60:g}"))
    if not tries_left:
        then = _("Grading it has been started %(n)s times, the most allowed: it is not started again by itself; an "
                 "instructor can regrade it.", n=int(cfg["MAX_TRIES"]))
    elif live:
        then = _("A grader that is running takes it over and grades it again.")
    else:
        then = _("No grader is running right now: it is graded again when one starts.")
    # Each part is a whole sentence in both languages: zh sentences end in 。 and join without a space.
    out["stalled"] = ("" if locale().startswith("zh") else " ").join((seen, then))
    return out


def status_payload(sub: Submission) -> dict:
    latest = sub.latest_run
    graded = sub.latest_graded_run
    score = effective_for(sub, graded)
    return {
        "id": sub.id,
        "status": latest.status if latest else sub.status,
        "attempt": sub.attempt,
        "queue_position": queue_position(latest),
        # Round 48: while queued with no grading worker alive (no heartbeat within HEARTBEAT_STALE_S), the page
        # said only "3 submissions ahead of yours" under a spinner that never ended; the instructor's dashboard
        # says "none: runs wait in the queue", the student now reads it too. None when not queued.
        # Mend: a running run whose worker has given no sign of life, or that outlived any task (the rules by which
        # the sweeper takes a run over: app.monitoring), said "a worker is running the tests" until some worker's
        # sweeper sent it again, and for ever with none alive. Each is null unless the run is running.
        **_stall(latest),
        "run_id": latest.id if latest else None,
        "graded_run_id": graded.id if graded else None,
        "total": score.total if score else None,
        "max_total": score.max_total if score else None,
        # the staff's reason stays on the instructor's pages; the student reads what was seen
        "reason": _reason(latest),
    }


@bp.get("/submissions/<int:submission_id>")
@login_required
def submission(submission_id: int):
    sub = load_submission(submission_id, current_user)
    ctx = result_context(sub)
    others = siblings(sub)
    ids = [i for i, _n in others]
    at = ids.index(sub.id)
    nav = {"previous": others[at - 1] if at > 0 else None,
           "next": others[at + 1] if at + 1 < len(others) else None}
    return render_template("student/submission.html", status=status_payload(sub), nav=nav, **ctx)


@bp.get("/submissions/compare")
@login_required
def compare():
    """Two attempts side by side: scores, categories, and the tests whose result changed."""
    b = load_submission(request.args.get("b", type=db_id) or 0, current_user)
    a_id = request.args.get("a", type=db_id)
    if a_id is None:
        earlier = [i for i, n in siblings(b) if n < b.attempt]
        if not earlier:
            abort(404)
        a_id = earlier[-1]
    a = load_submission(a_id, current_user)
    if a.assignment_id != b.assignment_id or a.student_id != b.student_id:
        abort(404)
    if a.attempt > b.attempt:
        a, b = b, a
    return render_template("student/compare.html", **comparison(a, b))


def comparison(a: Submission, b: Submission) -> dict:
    instructor = current_user.is_instructor
    rubric = rubric_for(a.assignment.suite)

    def view(sub: Submission) -> tuple[dict | None, object]:
        run = sub.latest_graded_run
        result = run.result if run is not None else None
        return (result if instructor else student_view(result)), effective_for(sub, run)

    (ra, sa), (rb, sb) = view(a), view(b)
    categories = []
    for name in rubric.categories:
        ca = (sa.categories.get(name) if sa else None) or {}
        cb = (sb.categories.get(name) if sb else None) or {}
        x, y = ca.get("score"), cb.get("score")
        categories.append({"name": name, "a": x, "b": y, "max": cb.get("max") or ca.get("max"),
                           "delta": (y - x) if x is not None and y is not None else None})
    # Each test's points as they count, an override of the test replacing them as in the categories
    # above (the rows compared the automatic points: an override changed no row).
    tests_a = counted_tests({t["id"]: t for t in (ra or {}).get("tests") or []}, sa)
    tests_b = counted_tests({t["id"]: t for t in (rb or {}).get("tests") or []}, sb)
    changed = []
    for tid in list(tests_b) + [t for t in tests_a if t not in tests_b]:
        ta, tb = tests_a.get(tid), tests_b.get(tid)
        # How a timeout ended counts too: a time limit one attempt, an idle stop the next is a change.
        if ta and tb and (ta["outcome"], stop_of(ta), ta["counted"]) == (tb["outcome"], stop_of(tb), tb["counted"]):
            continue
        changed.append({"id": tid, "a": ta, "b": tb,
                        "delta": (tb["counted"] - ta["counted"]) if ta and tb else None})
    changed.sort(key=lambda c: (c["delta"] is None, c["delta"] or 0))
    same = len([t for t in tests_b if t in tests_a]) - len([c for c in changed if c["a"] and c["b"]])
    # An attempt whose file did not load: its error first, as on its result page (the rows alone listed
    # every test as failed with "not run", and the SyntaxError with its line was one click away).
    loads = [(sub, load) for sub, r in ((a, ra), (b, rb)) if (load := load_failure(r, sub))]
    return dict(a=a, b=b, score_a=sa, score_b=sb, categories=categories, changed=changed, same=same,
                rubric=rubric, instructor=instructor, loc=locale(), attempts=siblings(b), loads=loads,
                audit_changed=audit_changes(ra, rb))


def _audit_items(result: Mapping[str, Any] | None) -> dict[str, dict]:
    audit = (result or {}).get("audit")
    items = audit.get("items") if isinstance(audit, dict) else None
    return {str(it["id"]): it for it in items or [] if isinstance(it, dict) and it.get("id") is not None}


def audit_changes(ra: Mapping[str, Any] | None, rb: Mapping[str, Any] | None) -> list[dict]:
    """The audit checklist items whose result differs between two attempts' results, biggest loss first.

    Round 31, walked in Chromium: two attempts whose audits differed compared as "Audit explanation 14 -> 11"
    and "32 tests unchanged", with nothing saying which audit item moved; the checklist was on each attempt's
    page, two clicks apart. An item graded in only one of the two attempts has no change (None)."""
    items_a, items_b = _audit_items(ra), _audit_items(rb)
    out = []
    for iid in list(items_b) + [i for i in items_a if i not in items_b]:
        ia, ib = items_a.get(iid), items_b.get(iid)
        if ia and ib and (bool(ia.get("found")), ia.get("points")) == (bool(ib.get("found")), ib.get("points")):
            continue
        pa, pb = (ia or {}).get("points"), (ib or {}).get("points")
        numeric = isinstance(pa, int | float) and isinstance(pb, int | float)
        out.append({"id": iid, "a": ia, "b": ib, "label": (ib or ia or {}).get("label"),
                    "delta": (pb - pa) if ia and ib and numeric else None})
    out.sort(key=lambda c: (c["delta"] is None, c["delta"] or 0))
    return out


@bp.get("/submissions/<int:submission_id>/status")
@login_required
def submission_status(submission_id: int):
    sub = load_submission(submission_id, current_user)
    resp = jsonify(status_payload(sub))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/submissions/<int:submission_id>/result")
@login_required
def submission_result(submission_id: int):
    """The result block and the grading history, fetched by the live page when grading finishes."""
    sub = load_submission(submission_id, current_user)
    return render_template("student/_result_parts.html", **result_context(sub))


def _file_response(data: bytes, mimetype: str, filename: str, inline: bool) -> Response:
    resp = Response(data, content_type=mimetype)   # as given: a text/* mimetype gets a second charset
    resp.headers["Content-Disposition"] = content_disposition(filename, inline=inline)
    resp.headers["Cache-Control"] = "private, no-store"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return resp


@bp.get("/submissions/<int:submission_id>/figure")
@login_required
def figure(submission_id: int):
    sub = load_submission(submission_id, current_user)
    if not sub.figure_sha256:
        abort(404)
    data = store().get(sub.figure_sha256)
    mimetype = "image/png" if data.startswith(PNG_MAGIC) else "image/jpeg"
    return _file_response(data, mimetype, sub.figure_filename or "figure", inline=True)


@bp.get("/submissions/<int:submission_id>/audit")
@login_required
def audit_file(submission_id: int):
    sub = load_submission(submission_id, current_user)
    if not sub.audit_sha256:
        abort(404)
    data = store().get(sub.audit_sha256)
    pdf = data[:1024].lstrip().startswith(PDF_MAGIC)
    return _file_response(data, "application/pdf" if pdf else "text/plain; charset=utf-8",
                          sub.audit_filename or "audit", inline=False)


@bp.get("/submissions/<int:submission_id>/code")
@login_required
def code_file(submission_id: int):
    sub = load_submission(submission_id, current_user)
    return _file_response(store().get(sub.code_sha256), "text/plain; charset=utf-8",
                          sub.code_filename or "attention.py", inline=False)


# --- API tokens (for the JSON API) ----------------------------------------------------------------


@bp.route("/account/tokens", methods=["GET", "POST"])
@login_required
def tokens():
    secret = None
    if request.method == "POST":
        if request.form.get("revoke"):
            row = db.session.get(ApiToken, request.form.get("revoke", type=db_id) or 0)
            if row is None or row.user_id != current_user.id:
                abort(404)
            row.revoked = True
            db.session.commit()
            flash(_("Token revoked."), "ok")
            return redirect(url_for("student.tokens"))
        try:
            secret = issue_token(current_user)
        except TokenLimitReached as exc:
            flash(_("You already have %(n)s active tokens: revoke one before creating another.",
                    n=exc.limit), "error")
    rows = list(db.session.scalars(
        select(ApiToken).where(ApiToken.user_id == current_user.id).order_by(ApiToken.id.desc())
    ))
    return render_template("student/tokens.html", tokens=rows, secret=secret)


def visible(sub: Submission) -> bool:
    return can_see(current_user, sub)


def _ext_advice() -> dict[str, dict[str, str]]:
    """The server's refusal of files picked by mistake ({field: {extension: text}}, in the user's language), which
    the page's own check shows when it stops a wrong extension before uploading (grading.inputs.wrong_extension_advice)."""
    from grading.i18n import pick
    from grading.inputs import wrong_extension_advice

    lang = "zh" if locale().startswith("zh") else "en"
    return {field: {ext: pick(m, lang) for ext, m in picks.items()} for field, picks in wrong_extension_advice().items()}


# --- template helpers -----------------------------------------------------------------------------


@bp.app_template_filter("tr")
def translate_field(value) -> str:
    """Pick the user's language from a {"en", "zh"} grader message (the engine's one convention,
    grading/i18n.py; a JSON-encoded one too); plain strings pass through."""
    from grading.i18n import pick

    return pick(value, "zh" if locale().startswith("zh") else "en")


@bp.app_template_filter("sentence")
def sentence(text: str) -> str:
    """``text`` as a sentence: the engine's notes are clauses joined with "; " (grading.i18n.cat), each starting in
    lower case with no full stop, and one shown alone was a paragraph "your code printed ... before you submit"
    (zh "……删掉调试用的 print", no 。). First letter capitalised, and the reader's full stop when none ends it."""
    text = text.strip()
    if not text:
        return text
    # a plain word only: "attention.py defines neither ..." and "test_x ..." are names, kept as written
    if text.split(" ", 1)[0].isalpha() and text[:1].islower():
        text = text[:1].upper() + text[1:]
    if text[-1] not in ".!?。！？":
        text += "。" if locale().startswith("zh") else "."
    return text


@bp.app_template_test("not_run")
def test_not_run(test: dict) -> bool:
    """A test the engine never ran: its feedback says so (grading.i18n.NOT_RUN), or, hidden from a
    student, the view kept only that fact (rubric.scoring.student_view)."""
    return bool(test.get("not_run")) or not_run(test.get("feedback"))


@bp.app_template_test("idle")
def test_idle(test: Mapping[str, Any] | TestResult) -> bool:
    """A `timeout` test whose call the sandbox stopped because the code sat idle (grading.i18n.IDLE_SEEN),
    not at its time limit; hidden from a student, the view kept only that fact (rubric.scoring.student_view).
    A result's test (a dict) or a stored row (the instructor's run tables): one rule for every page."""
    return (stop_of(test) if isinstance(test, Mapping) else test.stopped) == "idle"


@bp.app_template_filter("num")
def num(value, digits: int = 2) -> str:
    from app.scores import fmt

    if isinstance(value, int | float):
        if digits > 2 and value != 0 and abs(value) < 0.01:
            return f"{value:.2e}"
        return fmt(round(float(value), digits)) if digits <= 2 else f"{value:.{digits}g}"
    return "—" if value is None else str(value)


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@bp.app_template_filter("heat")
def heat(value) -> str:
    """Inline style of one heatmap cell: white (0) to deep blue (1). The text colour is whichever
    of near-black and white contrasts more with the cell (WCAG), so every value stays readable."""
    try:
        v = min(1.0, max(0.0, float(value)))
    except (TypeError, ValueError):
        return "background:#eee"
    lo, hi = (247, 251, 255), (8, 48, 107)
    r, g_, b = (round(a + (c - a) * v) for a, c in zip(lo, hi, strict=True))
    lum = _luminance((r, g_, b))
    on_white = 1.05 / (lum + 0.05)
    on_black = (lum + 0.05) / 0.05
    fg = "#fff" if on_white >= on_black else "#000"
    return f"background:rgb({r},{g_},{b});color:{fg}"


MEASUREMENTS: list[tuple[re.Pattern[str], object]] = [
    (re.compile(r"^max_abs_error$"), lambda m: _("Largest difference from PyTorch's reference output")),
    (re.compile(r"^row_sum_error$"), lambda m: _("Largest distance of a row of weights from summing to 1")),
    (re.compile(r"^entropy_dk(\d+)$"),
     lambda m: _("Average entropy of your weights with d_k = %(n)s", n=m.group(1))),
    (re.compile(r"^entropy_reference_dk(\d+)$"),
     lambda m: _("Average entropy of the reference weights with d_k = %(n)s", n=m.group(1))),
    (re.compile(r"^entropy_unscaled_dk(\d+)$"),
     lambda m: _("Average entropy without the 1/√d_k scale, d_k = %(n)s", n=m.group(1))),
]


@bp.app_template_global("measurement_label")
def measurement_label(key: str) -> str | None:
    """A human label, in the user's language, for a measurement the grader recorded; None for a key this
    list does not know (a grader newer than the pages): its key is shown alone, as code. Round 48: the key's
    words were shown as the label ("masked weight max:"), an English phrase in a zh page's list."""
    for pattern, label in MEASUREMENTS:
        m = pattern.match(key)
        if m:
            return str(label(m))
    return None


@bp.app_template_global("max_gap")
def max_gap(a, b) -> float | None:
    """Largest absolute difference of two equally shaped matrices, None if not comparable."""
    try:
        if not a or not b or len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True)):
            return None
        return max(abs(float(u) - float(v)) for x, y in zip(a, b, strict=True) for u, v in zip(x, y, strict=True))
    except (TypeError, ValueError):
        return None
