"""The `autograder` command: run the service, manage users and grading, grade offline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import click
from flask import Flask
from flask_migrate import upgrade
from sqlalchemy import select

from app import course, create_app, regrading
from app.assignments import default_assignment, ensure_assignment
from app.auth import clean_name, find_user, normalize_email
from app.authz import TokenLimitReached, issue_token
from app.extensions import db as sqla
from app.ids import MAX_ID
from app.models import Assignment, Submission, User
from autograder import batch, settings
from autograder.exiting import exit_now
from grading.i18n import localized

DEMO_PASSWORD = "demo-password"


def _app() -> Flask:
    return create_app()


@click.group(help="Autograder for the Mini-TabPFN attention lab.")
def main() -> None:
    pass


# --- serving ---------------------------------------------------------------------------------


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--workers", "processes", default=2, show_default=True, type=int, help="gunicorn worker processes.")
@click.option("--threads", default=16, show_default=True, type=int,
              help="Threads per process (decoding uploads and long-polls hold one each).")
def web(host: str, port: int, processes: int, threads: int) -> None:
    """Serve the web app with gunicorn (threads), as in production."""
    from autograder.server import serve

    click.echo(f"Autograder web on http://{host}:{port}/")
    serve(host, port, processes, threads)


@main.command()
@click.option("--concurrency", default=2, show_default=True, type=int)
@click.option("--name", default=None, help="Celery node name (defaults to grader-<pid>@<host>).")
@click.option("--supervise/--no-supervise", default=True, show_default=True,
              help="Restart the Celery worker whenever it exits without being asked to.")
@click.option("--check", is_flag=True,
              help="Exit 0 if a pool process of this host beat within HEARTBEAT_STALE_S, else 1 "
                   "(the container healthcheck).")
def worker(concurrency: int, name: str | None, supervise: bool, check: bool) -> None:
    """Run a Celery grading worker on the grading queue."""
    if check:
        sys.exit(_worker_check())
    if supervise:
        from worker.supervisor import supervise as run_supervised

        argv = [sys.executable, "-m", "autograder.cli", "worker", "--no-supervise",
                "--concurrency", str(concurrency)]
        exit_now(run_supervised(argv + (["--name", name] if name else [])))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # The worker is root on purpose: only root can build the per-job namespaces and drop each
    # jail to its own unprivileged uid. Student code never runs as root.
    warnings.filterwarnings("ignore", message="You're running the worker with superuser privileges")
    # Imported here: worker.entry builds the app and the Celery app at import, which only the
    # worker command wants.
    from worker.entry import celery_app, flask_app

    queue = flask_app.config["GRADING_QUEUE"]
    try:
        celery_app.worker_main(
            [
                "worker",
                "--loglevel=INFO",
                "-Q",
                queue,
                "--concurrency",
                str(concurrency),
                "--pool=prefork",
                "-n",
                name or f"grader-{os.getpid()}@%h",
            ]
        )
    except SystemExit as stop:  # Celery ends its command so, after its warm shutdown
        exit_now(stop.code)  # nothing left to finish: no interpreter teardown (autograder/exiting.py)
    exit_now(0)


def _worker_check() -> int:
    """The worker container's healthcheck: a fresh heartbeat of this host, by the database's clock."""
    from worker.heartbeat import host_age_s

    app = _app()
    try:
        with app.app_context():
            age = host_age_s()
    except Exception as exc:  # noqa: BLE001 - an unreachable database is an unhealthy worker too
        click.echo(f"unhealthy: database unreachable ({exc.__class__.__name__})", err=True)
        return 1
    limit = float(app.config["HEARTBEAT_STALE_S"])
    if age is None or age > limit:
        click.echo(f"unhealthy: no heartbeat of this host within {limit:g} s (last: {age})", err=True)
        return 1
    click.echo(f"healthy: last heartbeat {age:.1f} s ago")
    return 0


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--concurrency", default=2, show_default=True, type=int)
def run(host: str, port: int, concurrency: int) -> None:
    """Web server and a worker together (what `make run` starts).

    SIGTERM (systemd, `docker stop`) stops everything as Ctrl-C does: web, worker, pool and
    sandbox processes, then exits; a second Ctrl-C (or the terminal closed) while it waits for
    them stops them at once."""
    exe = [sys.executable, "-m", "autograder.cli"]
    procs: list[subprocess.Popen] = []
    # Signals only set a flag, whenever they come: an exception raised by a handler landed inside
    # Popen (a child started but never recorded, so never stopped) or inside the stop below (a
    # terminal closed while stopping sent SIGHUP, which cut the stop short and left the Celery worker,
    # its pool and a zygote running after `run` exited).
    signals: list[int] = []

    def note_signal(signum: int, _frame: object) -> None:
        signals.append(signum)

    # SIGINT too: a shell starts a background job (`autograder run &` in a script, a CI runner) with
    # SIGINT ignored, and Python then keeps it ignored, so Ctrl-C or `kill -INT` did nothing.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, note_signal)
    from worker.supervisor import die_with_parent

    def start(*args: str) -> subprocess.Popen:
        # Each child leads its own process group: a terminal's Ctrl-C (SIGINT to the whole foreground
        # group) reaches this process only, which stops each child in order below, instead of landing
        # at once on Celery's pool processes mid-task, which left the Celery worker blocked on a pool
        # lock and running after `make run` exited. The child still gets SIGTERM if this process dies.
        return subprocess.Popen([*exe, *args], start_new_session=True, preexec_fn=die_with_parent)

    try:
        procs.append(start("worker", "--concurrency", str(concurrency)))
        _say(f"\n  Autograder is starting: open http://{host}:{port}/  (Ctrl-C stops web and worker)\n")
        if not signals:
            procs.append(start("web", "--host", host, "--port", str(port)))
        while not signals and all(p.poll() is None for p in procs):
            time.sleep(0.2)
        if not signals:
            _say("a child process exited; stopping the others", err=True)
    finally:
        _stop_children(procs, signals)
    exit_now(0)


RUN_STOP_WAIT_S = 30.0  # a graceful stop of web and worker (a grading finishing, a pool warming up)


def _say(text: str, err: bool = False) -> None:
    """Print, but never fail: after a hang-up the terminal answers every write with EIO."""
    try:
        click.echo(text, err=err)
    except OSError:
        pass


def _stop_children(procs: list[subprocess.Popen], signals: list[int]) -> None:
    """Stop `run`'s children: SIGTERM to each main process, up to RUN_STOP_WAIT_S for them to end,
    then SIGKILL to each child's whole process group (a pool process, a zygote that outlived it).

    A signal that comes while waiting (Ctrl-C again, the terminal closed) ends the wait at once, as a
    second Ctrl-C does to Celery itself: a worker still warming its pool, or in the middle of a
    grading, made the first Ctrl-C wait the whole 30 s, and a second one was ignored. Nothing is lost
    by hurrying: a grading cut short is sent again (acks_late) and taken over at the next start."""
    # Signal each main process only: the supervisor passes it to Celery, whose warm shutdown
    # stops its pool and sandboxes; gunicorn's arbiter stops its workers.
    for proc in procs:
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    seen = len(signals)
    if any(p.poll() is None for p in procs):
        _say("stopping web and worker (Ctrl-C again stops them at once)", err=True)
    deadline = time.monotonic() + RUN_STOP_WAIT_S
    while (any(p.poll() is None for p in procs) and len(signals) == seen
           and time.monotonic() < deadline):
        time.sleep(0.1)
    for proc in procs:
        # Whatever of a child's group is still there (the child itself when it did not stop in
        # time or a second signal came, a pool process, a zygote) goes now.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    _wait_groups_gone({proc.pid for proc in procs})


def _wait_groups_gone(pgids: set[int], timeout_s: float = 5.0) -> None:
    """Return once no process of these groups is left (or after ``timeout_s``). SIGKILL lands when
    the process next runs: one in the middle of a disk read (a zygote importing numpy) ends a moment
    later, and `run` must not exit before it (whoever waits for `run`, systemd, docker or a script,
    reuses what it held). Its interpreter's teardown used to cover that moment (round 31 removed it,
    autograder/exiting.py)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _live_in_groups(pgids):
        time.sleep(0.02)


def _live_in_groups(pgids: set[int]) -> bool:
    """Whether a process of ``pgids`` is running (a zombie is not); False where /proc is not readable."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            # After the command's closing bracket: state, ppid, process group.
            fields = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in (b"Z", b"X") and int(fields[2]) in pgids:
            return True
    return False


# --- database --------------------------------------------------------------------------------


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str) -> None:
    """Apply Alembic migrations (SQLite or PostgreSQL, from DATABASE_URL)."""
    app = _app()
    with app.app_context():
        upgrade(revision=revision)
    click.echo(f"database at {revision}: {app.config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]}")


@db.command("purge-keys")
def db_purge_keys() -> None:
    """Forget idempotency keys older than their 24 hours (the worker's sweeper does it hourly)."""
    from app.idempotency import purge

    with _app().app_context():
        forgotten = purge()
    click.echo(f"forgot {sum(forgotten.values())} expired key(s): "
               + ", ".join(f"{table} {n}" for table, n in forgotten.items()))


# --- users and tokens ------------------------------------------------------------------------


@main.group()
def user() -> None:
    """Users."""


@user.command("add")
@click.argument("email")
@click.option("--role", type=click.Choice(["student", "instructor"]), default="student", show_default=True)
@click.option("--name", default="")
@click.option("--password", default=None, help="Prompted for when omitted.")
def user_add(email: str, role: str, name: str, password: str | None) -> None:
    """Create a user, or update the role/name/password of an existing one."""
    if password is None:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    app = _app()
    with app.app_context():
        u = find_user(email)
        created = u is None
        if u is None:
            u = User(email=normalize_email(email))
            sqla.session.add(u)
        u.role, u.name = role, clean_name(name) or u.name
        u.set_password(password)
        sqla.session.commit()
        click.echo(f"{'created' if created else 'updated'} {role} {u.email} (id {u.id})")


@main.command()
@click.argument("email")
def token(email: str) -> None:
    """Issue a new API token for EMAIL (printed once, as the last line)."""
    app = _app()
    with app.app_context():
        u = find_user(email)
        if u is None:
            raise click.ClickException(f"no user {email}")
        try:
            secret = issue_token(u)
        except TokenLimitReached as exc:
            raise click.ClickException(f"{email}: {exc}") from None
    click.echo("Use it as:  Authorization: Bearer <token>")
    click.echo(secret)


# --- assignments and grading -----------------------------------------------------------------


def _deadline_text(value) -> str:
    """A stored deadline as UTC and as the course's wall time: `2026-12-20 15:59 UTC (2026-12-20 23:59 Asia/Shanghai)`."""
    if value is None:
        return "none"
    zone = course.course_zone()
    return f"{value:%Y-%m-%d %H:%M} UTC ({course.to_zone(value, zone):%Y-%m-%d %H:%M} {zone.key})"


@main.group()
def assignment() -> None:
    """Assignments (each names a folder of grader_tests/ and rubric/)."""


@assignment.command("add")
@click.argument("slug")
@click.option("--title", required=True)
@click.option("--suite", default=None, help="Folder under grader_tests/ (defaults to SLUG).")
@click.option("--deadline", default=None,
              help=f"ISO 8601, e.g. 2026-12-20T23:59; without an offset it is read in the course's time zone, "
                   f"COURSE_TIMEZONE ({settings.COURSE_TIMEZONE}), as the instructor pages read it. Stored in UTC.")
@click.option("--cooldown", default=0, type=int, help="Seconds between attempts (0 = off).")
@click.option("--late-penalty", default=None, type=float, help="Fraction of the attempt's score lost per started day late (0.1: 85 two days late counts 68).")
@click.option("--late-days", default=None, type=int, help="Days after the deadline attempts are accepted.")
def assignment_add(
    slug: str, title: str, suite: str | None, deadline: str | None, cooldown: int,
    late_penalty: float | None, late_days: int | None,
) -> None:
    """Create or update an assignment (deadline, late policy, cooldown)."""
    if late_penalty is not None and not 0 <= late_penalty <= 1:
        raise click.BadParameter("must be between 0 and 1", param_hint="--late-penalty")
    app = _app()
    with app.app_context():
        try:
            a = ensure_assignment(
                slug, title, suite or slug, course.parse_deadline(deadline, None), cooldown,
                late_penalty_per_day=late_penalty, late_days_allowed=late_days,
            )
        except ValueError as exc:
            raise click.ClickException(str(exc)) from exc
        click.echo(
            f"assignment {a.slug} (id {a.id}) uses grader_tests/{a.suite}; deadline {_deadline_text(a.deadline)}, "
            f"late: -{a.late_penalty_per_day:.0%}/day for {a.late_days_allowed} day(s), cooldown {a.cooldown_seconds} s"
        )


@main.command()
@click.option("--scope", type=click.Choice(regrading.SCOPES), default=None,
              help="counting: the attempt that counts for each enrolled student (after fixing a test); "
                   "all: every attempt of every enrolled student; student: every attempt of --student; "
                   "submission: the attempt --submission.")
@click.option("--student", default=None, help="Email: every attempt of this student (scope student).")
@click.option("--submission", type=int, default=None, help="One attempt by id (scope submission).")
@click.option("--assignment", "slug", default=None,
              help="Assignment slug (default: the submission's, or the only or first published one).")
@click.option("--all", "all_", is_flag=True, hidden=True, help="Old spelling of --scope counting.")
@click.option("--wait", "wait_s", type=float, default=None, metavar="SECONDS",
              help="Wait up to SECONDS for the runs to finish, then print old and new scores.")
@click.option("--cancel", "cancel_id", type=int, default=None, metavar="BATCH",
              help="Cancel batch BATCH's runs no worker has taken yet (as its page's Cancel); runs already "
                   "running finish. Takes no other option.")
def regrade(scope: str | None, student: str | None, submission: int | None, slug: str | None, all_: bool,
            wait_s: float | None, cancel_id: int | None) -> None:
    """Grade again, as the instructor's Regrade page does: one batch that keeps the old runs and
    each submission's score before, for the old-vs-new report (/instructor/regrades/ID).
    `--cancel BATCH` cancels a batch's runs still queued instead."""
    if cancel_id is not None:
        # "Given", not truthy: `--student ""` was accepted and ignored.
        if (scope, student, submission, slug, wait_s) != (None,) * 5 or all_:
            raise click.UsageError("--cancel BATCH takes no other option")
        _cancel_batch(cancel_id)
        return
    if all_:
        # It used to mean each student's latest attempt, which is not the attempt that counts.
        click.echo("note: --all is now --scope counting (the attempt that counts for each student)", err=True)
        scope = scope or "counting"
    if scope is None:
        scope = "student" if student else "submission" if submission is not None else None
    if scope is None or (scope == "student") != bool(student) or (scope == "submission") != (submission is not None):
        raise click.UsageError("give exactly one of --scope counting, --scope all, --student EMAIL, --submission ID")
    if submission is not None and not 1 <= submission <= MAX_ID:
        # No row has such an id; PostgreSQL raised DataError (integer out of range) on the lookup, exit 1
        # with no message.
        raise click.ClickException(f"no submission {submission}")
    app = _app()
    with app.app_context():
        if slug is not None:
            a = sqla.session.scalar(select(Assignment).where(Assignment.slug == slug))
            if a is None:
                raise click.ClickException(f"no assignment {slug!r}")
        elif submission is not None and (sub := sqla.session.get(Submission, submission)) is not None:
            a = sub.assignment
        else:
            a = default_assignment() or sqla.session.scalar(select(Assignment).order_by(Assignment.id))
            if a is None:
                raise click.ClickException("no assignment: add one with `autograder assignment add`")
        try:
            p = regrading.plan(a, scope, student_email=student, submission_id=submission)
        except regrading.RegradeError as exc:
            raise click.ClickException(str(exc)) from exc
        if not p.submission_ids:
            click.echo(f"nothing to regrade in {a.slug} (scope {scope})")
            return
        batch = regrading.start(a, p, None)
        waiting = batch.already_waiting
        # Attempts still waiting for their first grading get no second run (regrading.start): say so,
        # or "queued 0 run(s)" reads as a regrade that did nothing.
        also = (f" ({waiting} attempt(s) still waiting for their first grading: that run grades them "
                f"with the current grader)") if waiting else ""
        click.echo(f"regrade batch {batch.id} ({a.slug}, scope {scope}): queued {batch.runs_queued} run(s){also}; "
                   f"report at /instructor/regrades/{batch.id}")
        if wait_s is None:
            return
        deadline = time.monotonic() + wait_s
        while True:
            sqla.session.expire_all()
            r = regrading.report(batch)
            if not r["pending"] or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        for row in r["rows"]:
            click.echo(f"submission {row.sub.id} ({row.sub.student.email}, attempt {row.sub.attempt}): "
                       f"{row.run.status}, {_score(row.old)} -> {_score(row.new)}")
        if r["pending"]:
            raise click.ClickException(f"{r['pending']} run(s) still waiting after {wait_s:g} s: is a worker running?")
        click.echo(f"changed: {', '.join(r['changed']) if r['changed'] else 'nobody'}")


def _cancel_batch(batch_id: int) -> None:
    """`autograder regrade --cancel BATCH`: regrading.cancel, said as the batch page says it (in English, as
    every message of this command). Exit status 1 when there was nothing to cancel (workers took every run, or
    the batch queued none) or no such batch; 0 when runs were cancelled now or by an earlier cancel (a retry)."""
    from flask_babel import force_locale

    from app.models import RegradeBatch

    app = _app()
    with app.app_context(), app.test_request_context(), force_locale("en"):
        # An id past MAX_ID names no batch (PostgreSQL raised DataError on it: exit 1, no message).
        batch = sqla.session.get(RegradeBatch, batch_id) if 1 <= batch_id <= MAX_ID else None
        if batch is None:
            raise click.ClickException(f"no regrade batch {batch_id} (the Regrades page lists them)")
        done = regrading.cancel(batch, None)
        outcome, said = regrading.cancel_outcome(batch, done)
        text = " ".join(str(t) % params if params else str(t) for t, params in said)
        if outcome in ("taken", "none_queued"):
            raise click.ClickException(f"batch {batch_id}: {text}")
        click.echo(f"batch {batch_id}: {text} Report at /instructor/regrades/{batch_id}")


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--audit", type=click.Path(dir_okay=False), default=None, help="With one CODE file only.")
@click.option("--figure", type=click.Path(dir_okay=False), default=None, help="With one CODE file only.")
@click.option("--suite", "--assignment", "suite", default="attention", show_default=True,
              help="The assignment plug-in: a folder of grader_tests/ and rubric/.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (a batch always prints JSON lines).")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="Language of the feedback and messages.")
def grade(paths: tuple[str, ...], audit: str | None, figure: str | None, suite: str, as_json: bool,
          lang: str) -> None:
    """Grade offline with the same sandbox, suite and rubric the workers use.

    PATHS is one code file (with --audit/--figure), or many files, folders or LMS zips: a batch,
    graded with one warm sandbox, one JSON object per student per line (see autograder/batch.py).

    Exit 0 when everything was graded (whatever the scores), 1 when grading itself failed for
    any submission, 2 for unusable input.
    """
    settings.check()
    if len(paths) == 1 and Path(paths[0]).is_file() and not zipfile.is_zipfile(paths[0]):
        _grade_one(paths[0], audit, figure, suite, as_json, lang)
    if audit or figure:
        click.echo("error: --audit and --figure go with one code file; in a batch each student's audit "
                   "and figure are found beside their code", err=True)
        sys.exit(2)
    _grade_batch([Path(p) for p in paths], suite, lang)


def _read(path: str | Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        click.echo(f"error: cannot read {path}: {exc.strerror}", err=True)
        sys.exit(2)


def _grade_one(code: str, audit: str | None, figure: str | None, suite: str, as_json: bool,
               lang: str = "en") -> None:
    # The engine is imported only by `grade`: it loads torch, which the other commands never need.
    from grading.decode import DecodeBusy
    from grading.inputs import InputError, validate_audit, validate_code, validate_figure
    from grading.runner import GradeInput
    from grading.runner import grade as run_grade

    code_b, audit_b, figure_b = _read(code), _read(audit), _read(figure)
    try:
        validate_code(Path(code).name, code_b)
        if audit:
            validate_audit(Path(audit).name, audit_b)
        if figure:
            validate_figure(Path(figure).name, figure_b)
    except (InputError, DecodeBusy) as exc:
        click.echo(f"error: {exc.zh if lang == 'zh' else exc.en}", err=True)
        sys.exit(2)

    result = run_grade(
        GradeInput(
            code=code_b,
            audit=audit_b,
            audit_filename=Path(audit).name if audit else None,
            figure=figure_b,
            figure_filename=Path(figure).name if figure else None,
        ),
        assignment=suite,
    )
    result = localized(result, lang)
    if as_json:
        click.echo(json.dumps({k: v for k, v in result.items() if k != "log"}, ensure_ascii=False))
    else:
        click.echo(format_result(result))
    sys.exit(0 if result.get("status") == "graded" else 1)


def _grade_batch(paths: list[Path], suite_name: str, lang: str = "en") -> None:
    """One warm executor for the whole batch: N submissions cost one start plus N warm gradings."""
    from grading.runner import GradeInput
    from grading.runner import grade as run_grade
    from grading.sandbox import Executor, Limits, SandboxError
    from grading.suite import SuiteError, load_suite

    try:
        student_file = load_suite(suite_name).student_file
    except SuiteError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="autograder-batch-") as tmp:
        notes: list[str] = []
        try:
            found = batch.collect(paths, student_file, Path(tmp), notes)
        except batch.BatchError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        for note in notes:
            click.echo(f"warning: {note}", err=True)
        if not found:
            click.echo("error: no submissions found", err=True)
            sys.exit(2)
        try:
            executor = Executor(Limits())
        except SandboxError as exc:
            click.echo(f"error: sandbox unavailable: {exc}", err=True)
            sys.exit(1)
        failed = False
        with executor:
            for item in found:
                head = {"student": item.student, **({"lms_id": item.lms_id} if item.lms_id else {}),
                        "files": {k: getattr(item, k).name for k in ("code", "audit", "figure") if getattr(item, k)},
                        "ignored": item.extra}
                if item.code is None:
                    notebooks = [n for n in item.extra if n.lower().endswith(".ipynb")]
                    why = (f"; {', '.join(notebooks)} is a notebook: export it as {student_file}" if notebooks
                           else f"; files found: {', '.join(item.extra)}" if item.extra else "")
                    click.echo(json.dumps({**head, "status": "unusable",
                                           "message": f"no {student_file} (no .py file) found{why}"},
                                          ensure_ascii=False))
                    continue
                result = run_grade(
                    GradeInput(code=_read(item.code), audit=_read(item.audit),
                               audit_filename=item.audit.name if item.audit else None,
                               figure=_read(item.figure), figure_filename=item.figure.name if item.figure else None),
                    assignment=suite_name, executor=executor,
                )
                failed |= result.get("status") != "graded"
                body = {k: v for k, v in localized(result, lang).items() if k != "log"}
                click.echo(json.dumps({**head, **body}, ensure_ascii=False), nl=True)
                sys.stdout.flush()
    sys.exit(1 if failed else 0)


STOP_MARKS = {"time_limit": "time", "idle": "idle", "not_run": "skip"}


def format_result(result: dict) -> str:
    """Plain text of a result already localised (grading.i18n.localized)."""
    if result.get("status") != "graded":
        return f"grading failed: {result.get('message')}"
    lines = [f"total {result['total']:g} / {result['max_total']:g}"]
    if result.get("message"):
        lines.append(f"note: {result['message']}")
    for name, cat in result["categories"].items():
        lines.append(f"  {name:<15} {cat['score']:g} / {cat['max']:g}")
    # A file that did not load (or defines nothing) gives every test the same "not run: ..." text:
    # it is printed once, and the tests after it point back to it instead of repeating it 31 times.
    first_with: dict[str, str] = {}
    for t in result["tests"]:
        # A timeout says how it ended ("stopped", grading.i18n.stop_of): an idle stop met no time limit.
        mark = "ok " if t["outcome"] == "passed" else STOP_MARKS.get(t.get("stopped"), t["outcome"][:4])
        lines.append(f"  [{mark}] {t['id']} ({t['points']:g}/{t['max_points']:g})")
        feedback = t.get("feedback")
        if t["outcome"] != "passed" and feedback:
            key = str(feedback)
            if key in first_with:
                lines.append(f"         (as {first_with[key]})")
            else:
                first_with[key] = t["id"]
                lines.append(f"         {feedback}")
    return "\n".join(lines)


@main.command()
def demo() -> None:
    """Seed a demo course: one instructor, two students, the attention assignment."""
    app = _app()
    with app.app_context():
        ensure_assignment("attention", "Lesson 2 · Attention / 第 2 课：Attention", "attention")
        people = [
            ("teacher@example.edu", "instructor", "Teacher Li"),
            ("alice@example.edu", "student", "Alice Wang"),
            ("bob@example.edu", "student", "Bob Zhang"),
        ]
        for email, role, name in people:
            if find_user(email) is None:
                u = User(email=email, role=role, name=name)
                u.set_password(DEMO_PASSWORD)
                sqla.session.add(u)
        sqla.session.commit()
    click.echo(f"Demo course ready. Sign in with (password for all: {DEMO_PASSWORD}):")
    for email, role, _ in people:
        click.echo(f"  {role:<10} {email}")


if __name__ == "__main__":
    main()
