"""Choosing what to grade again, and reporting what changed. Each regrade is a new run; old runs
stay for comparison. A batch records its scope, who asked, and each submission's effective score
before, so its report shows old and new effective scores (after late penalty and overrides).

Scopes:
- `counting`: the attempt that counts for each enrolled student (their best graded attempt, or
  their latest attempt when none is graded): after a broken test is fixed, these are the grades
  the gradebook exports;
- `all`: every attempt of every enrolled student;
- `student`: every attempt of one student;
- `submission`: one attempt.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from flask_babel import lazy_gettext as _l
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import selectinload

from app import gradebook
from app.auth import find_user
from app.errors import echoed, one_of
from app.extensions import db
from app.idempotency import earlier
from app.models import (
    PENDING,
    AnsweredRegradeKey,
    Assignment,
    AuditReview,
    GradingRun,
    RegradeBatch,
    Status,
    Submission,
    User,
)
from app.names import by_name
from app.queue import (
    PRIORITY_BATCH,
    broker_has_priorities,
    enqueue_run,
    first_waiting,
    priority_of,
    send_oldest_queued,
)
from app.scores import effective_for

# What each scope regrades, in both languages: the refusal of another scope says it (errors.one_of).
SCOPE_TEXT: dict[str, tuple[str, str]] = {
    "counting": ("the attempt that counts for each enrolled student", "每位在册学生计分的那次提交"),
    "all": ("every attempt of every enrolled student", "每位在册学生的所有提交"),
    "student": ("every attempt of one student, whose email is sent as 'student'", "某位学生的所有提交，其邮箱以「student」发送"),
    "submission": ("one attempt, whose id is sent as 'submission'", "某一次提交，其编号以「submission」发送"),
}
SCOPES = tuple(SCOPE_TEXT)


class RegradeError(LookupError):
    def __init__(self, code: str, en: str, zh: str) -> None:
        super().__init__(en)
        self.code, self.en, self.zh = code, en, zh


def first_gradings_waiting(submission_ids: Iterable[int]) -> dict[int, GradingRun]:
    """The upload runs still queued for their first grading, by submission id. The one rule of every
    regrade entry point (the page, `autograder regrade`, the API's batch and single regrade): such
    an attempt is graded by that run, with the grader the workers have then, and a regrade run would
    grade it twice at the deadline, when workers are scarcest. (A run of an earlier regrade is
    another matter: asking again is a new decision, app/instructor.py.)"""
    ids = list(submission_ids)
    if not ids:
        return {}
    return {run.submission_id: run for run in db.session.scalars(select(GradingRun).where(
        GradingRun.submission_id.in_(ids), GradingRun.trigger == "submit",
        GradingRun.status == Status.QUEUED.value))}


def request_regrade(submission: Submission, trigger: str = "regrade", *, key: str | None = None) -> GradingRun:
    """Add a new run for a submission; the old runs stay for the old-vs-new comparison. An attempt
    still waiting for its first grading gets none: its waiting run is answered (trigger "submit",
    first_gradings_waiting) and `key` is kept with that answer (AnsweredRegradeKey), so a retry
    gets it too once the grading has started. With the `key` of an earlier request (unique) the
    commit fails (IntegrityError) and nothing is queued: the caller answers that run
    (regrade_requested_before). Every key is also an AnsweredRegradeKey, whose one unique index
    covers both answers."""
    waiting = first_gradings_waiting([submission.id]).get(submission.id)
    if waiting is not None:
        if key is not None:
            db.session.add(AnsweredRegradeKey(run=waiting, idempotency_key=key))
            db.session.commit()
        return waiting
    run = GradingRun(submission=submission, trigger=trigger, idempotency_key=key)
    submission.status = Status.QUEUED.value
    db.session.add(run)
    if key is not None:
        # The key is kept here too, under the one unique index every single-regrade key shares: a request
        # that met the waiting run and its retry that met the started one (a race of milliseconds at the
        # deadline) would otherwise both commit, two answers to one key, the attempt graded twice.
        db.session.add(AnsweredRegradeKey(run=run, idempotency_key=key))
    db.session.commit()
    enqueue_run(run.id, priority=priority_of(trigger))
    return run


def regrade_requested_before(key: str | None) -> GradingRun | None:
    """The run that answered a single-run regrade request with `key` within the retention window:
    the run it queued, or the first grading it was answered with (AnsweredRegradeKey); else None."""
    run = earlier(GradingRun.idempotency_key, key, GradingRun.queued_at)
    if run is None:
        answered = earlier(AnsweredRegradeKey.idempotency_key, key, AnsweredRegradeKey.created_at)
        run = answered.run if answered is not None else None
    return run


@dataclass
class Plan:
    scope: str
    submission_ids: list[int]
    before: dict[str, float | None]       # submission id (str, JSON key) -> effective total
    student: User | None = None
    submission: Submission | None = None
    # Planned attempts still waiting for their first grading: `start` queues no run for them.
    waiting_ids: frozenset[int] = frozenset()

    @property
    def waiting(self) -> int:
        return len(self.waiting_ids)

    @property
    def runs(self) -> int:
        """How many runs `start` would queue now."""
        return len(self.submission_ids) - self.waiting

    def keeping(self, no_run: Iterable[int]) -> Plan:
        """This plan, with no run for the attempts a confirmation page said get none (round 36b: an attempt
        shown as waiting for its first grading, claimed by a worker before the confirmation, got a second
        run without anyone being asked: its first grading uses the current grader all the same)."""
        said = set(no_run) & set(self.submission_ids)
        return Plan(self.scope, self.submission_ids, self.before, self.student, self.submission,
                    waiting_ids=self.waiting_ids | said)


def plan(assignment: Assignment, scope: str, *, student_email: str | None = None,
         submission_id: int | None = None, student_id: int | None = None, up_to: int | None = None) -> Plan:
    """What a regrade would queue, without queuing anything (the confirmation shows this). `up_to`: only
    attempts with an id up to it, those the confirmation page showed (round 36: at a deadline every upload
    between showing the page and confirming changed the count, and the page asked again, and again; an
    attempt uploaded since is graded by its own first grading, with the grader the workers have)."""
    if scope not in SCOPES:
        text = one_of("scope", SCOPE_TEXT, scope)
        raise RegradeError("bad_scope", text["en"], text["zh"])
    rows = gradebook.class_rows(assignment)
    if up_to is not None:
        rows = [gradebook.StudentRow(r.id, r.email, r.name, [s for s in r.submissions if s.id <= up_to]) for r in rows]
    scores = {s.id: (s.score.total if s.score else None) for r in rows for s in r.submissions}
    student = submission = None
    if scope == "counting":
        ids = [(r.counting or r.latest).id for r in rows if r.latest is not None]
    elif scope == "all":
        ids = [s.id for r in rows for s in r.submissions]
    elif scope == "student":
        student = db.session.get(User, student_id) if student_id else find_user(student_email or "")
        if student is None:
            raise RegradeError("no_student", f"no student {echoed(student_email or student_id)}",
                               f"没有学生 {echoed(student_email or student_id)}")
        ids = list(db.session.scalars(select(Submission.id).where(
            Submission.assignment_id == assignment.id, Submission.student_id == student.id).order_by(Submission.id)))
    else:
        submission = db.session.get(Submission, submission_id or 0)
        if submission is None or submission.assignment_id != assignment.id:
            raise RegradeError("no_submission", f"no submission {echoed(submission_id)} in {assignment.slug}",
                               f"{assignment.slug} 中没有提交 {echoed(submission_id)}")
        ids = [submission.id]
    if up_to is not None:
        ids = [i for i in ids if i <= up_to]
    if scope in ("student", "submission"):
        # Scores of attempts outside the class list (a dropped student) are computed directly.
        for sub in db.session.scalars(select(Submission).where(Submission.id.in_(ids))
                                      .options(selectinload(Submission.runs))):
            if sub.id not in scores:
                score = effective_for(sub, sub.latest_graded_run)
                scores[sub.id] = score.total if score else None
    return Plan(scope, sorted(ids), {str(i): scores.get(i) for i in ids}, student, submission,
                waiting_ids=frozenset(first_gradings_waiting(ids)))


def confirmed_before(form_token: str | None) -> RegradeBatch | None:
    """The batch the confirmation page (or API key) with this token queued within the retention
    window (app/idempotency.py), if any."""
    return earlier(RegradeBatch.form_token, form_token, RegradeBatch.created_at)


def start(assignment: Assignment, p: Plan, actor: User | None, *, form_token: str | None = None) -> RegradeBatch:
    """Queue one new run per planned submission not waiting for its first grading, all tagged with
    the batch (``actor`` None: the command line). Commits before it queues: a worker never receives a run it cannot read. With
    the `form_token` of a page that already queued a batch, the commit fails (IntegrityError,
    unique token) and nothing is queued: the caller shows that batch (confirmed_before)."""
    subs = db.session.scalars(select(Submission).where(Submission.id.in_(p.submission_ids))
                              .order_by(Submission.id)).all()
    waiting = p.waiting_ids | set(first_gradings_waiting(p.submission_ids))
    subs = [sub for sub in subs if sub.id not in waiting]
    batch = RegradeBatch(assignment_id=assignment.id, scope=p.scope, requested_by=actor.id if actor else None,
                         student_id=p.student.id if p.student else None,
                         submission_id=p.submission.id if p.submission else None,
                         runs_queued=len(subs), before=p.before, form_token=form_token)
    db.session.add(batch)
    db.session.flush()
    runs = []
    for sub in subs:
        sub.status = Status.QUEUED.value
        run = GradingRun(submission=sub, trigger=batch.trigger)
        db.session.add(run)
        runs.append(run)
    from app.course import log

    log("regrade", actor, assignment=assignment, student_id=batch.student_id, submission_id=batch.submission_id,
        subject=p.scope, after={"batch": batch.id, "runs": len(runs)})
    db.session.commit()
    for run in runs:
        enqueue_run(run.id, priority=PRIORITY_BATCH)
    return batch


@dataclass(frozen=True)
class Cancelled:
    """What cancelling a batch did: runs no worker had claimed (deleted, never graded) and runs already
    running (left to finish; their results are stored as any run's)."""
    cancelled: int
    running: int


_RUNS = GradingRun.__table__
_SUBMISSIONS = Submission.__table__
# A submission shows the state of its newest run (worker/runs.py's rule, which app/ cannot import):
# once a cancelled run is gone, the attempt shows again the status it had before the batch.
_NEWEST_STATUS = (select(_RUNS.c.status).where(_RUNS.c.submission_id == _SUBMISSIONS.c.id)
                  .order_by(_RUNS.c.id.desc()).limit(1).scalar_subquery())


def cancel(batch: RegradeBatch, actor: User | None) -> Cancelled:
    """Cancel the batch's runs no worker has claimed yet. One guarded DELETE decides, row by row, against
    the worker's guarded claim UPDATE (worker/runs.py claim: `status = 'queued'`): the database serialises
    the two on each row, so a run is either claimed (running, and it finishes as usual) or deleted, never
    both. A deleted run's message still reaches a worker, whose claim finds no run and skips it; nothing
    can store a result for it (store_result needs a running run held by that worker). The attempts keep
    their scores (a cancelled run was never graded) and show again the status of their newest run left."""
    gone = db.session.execute(
        delete(_RUNS).where(_RUNS.c.trigger == batch.trigger, _RUNS.c.status == Status.QUEUED.value)
        .returning(_RUNS.c.id, _RUNS.c.submission_id)).all()
    sub_ids = sorted({sub_id for _, sub_id in gone})
    students: list[int] = []
    if sub_ids:
        # Lock the attempts first, in their own statement: a worker storing a newer run of one of them
        # holds its row until it commits, and under READ COMMITTED the UPDATE below takes its snapshot
        # only once this wait is over, so its newest-run subquery sees that store (read in the UPDATE's
        # own snapshot, it wrote the status from before the store over it: the attempt stayed running).
        students = db.session.scalars(select(_SUBMISSIONS.c.student_id).where(_SUBMISSIONS.c.id.in_(sub_ids))
                                      .order_by(_SUBMISSIONS.c.id).with_for_update()).all()
        db.session.execute(update(_SUBMISSIONS).where(_SUBMISSIONS.c.id.in_(sub_ids))
                           .values(status=_NEWEST_STATUS))
        # Counted in SQL: two instructors cancelling at once each add what their own DELETE removed.
        db.session.execute(update(RegradeBatch.__table__).where(RegradeBatch.__table__.c.id == batch.id)
                           .values(runs_cancelled=RegradeBatch.__table__.c.runs_cancelled + len(gone)))
    running = db.session.scalar(select(func.count(GradingRun.id)).where(
        GradingRun.trigger == batch.trigger, GradingRun.status == Status.RUNNING.value)) or 0
    from app.course import log

    log("regrade_cancel", actor, assignment=batch.assignment, student_id=batch.student_id,
        submission_id=batch.submission_id, subject=batch.scope,
        after={"batch": batch.id, "cancelled": len(gone), "running": running})
    db.session.commit()
    # A worker may have sent one of the deleted runs as a student's next (worker/runs.py next_of_student),
    # the student's upload held back behind it: sent now, not when the sweeper finds it.
    send_oldest_queued(students)
    db.session.refresh(batch)
    return Cancelled(len(gone), running)


# What a cancel found, as the batch page, the API and the CLI say it: `cancelled` (runs removed now),
# `already_cancelled` (an earlier cancel removed every run: a retry, a second tab), `partly_taken` (an earlier
# cancel removed some, workers took the others) and `taken` (workers took every run: nothing was cancelled,
# ever) and `none_queued` (the batch queued no run: its attempts were all waiting for their first grading);
# the API answers the last two 409 `nothing_to_cancel`.
CANCEL_OUTCOMES = ("cancelled", "already_cancelled", "partly_taken", "taken", "none_queued")


def cancel_outcome(batch: RegradeBatch, done: Cancelled) -> tuple[str, list[tuple[object, dict[str, int]]]]:
    """(outcome, messages): what `cancel` did to `batch` (refreshed by it), each message a lazy UI string and
    its parameters, in the order the page shows them. A second tab's cancel, or a page shown before the
    workers took the last runs, is told apart from the batch's counts, so a retry never reads as workers
    having taken runs an earlier cancel removed."""
    taken = batch.runs_queued - batch.runs_cancelled
    said: list[tuple[object, dict[str, int]]] = []
    if done.cancelled:
        outcome = "cancelled"
        said.append((_l("%(n)s run(s) cancelled before any worker took them: those attempts keep their score and "
                        "status."), {"n": done.cancelled}))
    elif not batch.runs_queued:
        # Not "a worker took every run": there was none to take (round 38, a real server's batch over attempts
        # still waiting for their first grading).
        outcome = "none_queued"
        if batch.already_waiting:
            said.append((_l("No run was left to cancel: this batch queued none, since its %(n)s attempt(s) were "
                            "still waiting for their first grading."), {"n": batch.already_waiting}))
        else:
            # A batch over no attempt (queued by the API before it refused them, round 38): "its 0 attempt(s)
            # were still waiting" named a cause that was not there.
            said.append((_l("No run was left to cancel: this batch planned no attempt."), {}))
    elif not batch.runs_cancelled:
        outcome = "taken"
        said.append((_l("No run was left to cancel: a worker had already taken every run of this batch."), {}))
    elif taken <= 0:
        outcome = "already_cancelled"
        said.append((_l("No run was left to cancel: every run of this batch (%(n)s) had already been cancelled."),
                     {"n": batch.runs_cancelled}))
    else:
        outcome = "partly_taken"
        said.append((_l("No run was left to cancel: %(n)s run(s) of this batch had already been cancelled, and a "
                        "worker had taken the other %(m)s."), {"n": batch.runs_cancelled, "m": taken}))
    if done.running:
        said.append((_l("%(n)s run(s) were already running: they finish and their results are stored."),
                     {"n": done.running}))
    return outcome, said


@dataclass
class ReportRow:
    run: GradingRun
    sub: Submission
    old: float | None
    new: float | None

    @property
    def delta(self) -> float | None:
        if self.old is None or self.new is None:
            return None
        return round(self.new - self.old, 2)


def report(batch: RegradeBatch) -> dict:
    """Rows (one per run of the batch), progress counts, the students whose score changed, and the
    runs served before this batch's queued ones. Five queries whatever the batch size."""
    runs = list(db.session.scalars(
        select(GradingRun).where(GradingRun.trigger == batch.trigger)
        .options(selectinload(GradingRun.submission).selectinload(Submission.student),
                 selectinload(GradingRun.submission).selectinload(Submission.assignment),
                 selectinload(GradingRun.submission).selectinload(Submission.reviews)
                 .selectinload(AuditReview.reviewer),
                 selectinload(GradingRun.submission).selectinload(Submission.overrides))
        .order_by(GradingRun.id)
    ))
    rows = []
    for run in runs:
        new = effective_for(run.submission, run) if run.status == Status.GRADED else None
        rows.append(ReportRow(run, run.submission, (batch.before or {}).get(str(run.submission_id)),
                              new.total if new else None))
    # By student in class-list order (pinyin for Chinese names), each student's attempts in order: the queue's
    # order (run ids) scattered a class of 60 over the table (round 47).
    rows = by_name(sorted(rows, key=lambda r: (r.sub.attempt, r.run.id)),
                   lambda r: (r.sub.student.name, r.sub.student.email))
    counts = {s: sum(1 for r in rows if r.run.status == s) for s in Status}
    changed = _changed_names(rows)
    pending = sum(counts[s] for s in PENDING)
    # Uploads go first (app/queue.py): while they wait, this batch's progress pauses; the page says why.
    # None: the broker serves in arrival order (no Redis), and the page says that instead.
    ahead = first_waiting() if counts[Status.QUEUED] or not broker_has_priorities() else 0
    return {"rows": rows, "counts": counts, "total": len(rows), "already_waiting": batch.already_waiting,
            "cancelled": batch.runs_cancelled,
            "pending": pending, "changed": changed, "uploads_ahead": ahead}


def _changed_names(rows: list[ReportRow]) -> list[str]:
    """The students whose score changed, each once, by name; a name two of them share is followed by each one's
    email: a set of names made two 王伟 one. (The page isolates each for bidi; the CLI and JSON get them plain.)"""
    students = {r.sub.student.id: r.sub.student for r in rows if r.delta not in (None, 0)}
    names = [s.display_name for s in students.values()]
    shared = {n for n in names if names.count(n) > 1}
    return [s.display_name + (f" ({s.email})" if s.display_name in shared and s.name else "")
            for s in by_name(students.values(), lambda s: (s.name, s.email))]


def progress_json(batch: RegradeBatch) -> dict:
    r = report(batch)
    return {
        "batch": batch.id, "total": r["total"], "pending": r["pending"], "counts": r["counts"],
        "already_waiting": r["already_waiting"], "uploads_ahead": r["uploads_ahead"], "cancelled": r["cancelled"],
        "changed": r["changed"],
        "runs": [{"run": x.run.id, "submission": x.sub.id, "status": x.run.status, "old": x.old, "new": x.new,
                  "delta": x.delta, "grader": x.run.grader_version} for x in r["rows"]],
    }
