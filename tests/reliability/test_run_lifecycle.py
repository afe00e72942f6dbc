"""The database side of reliability, without worker processes: takeover, give-up, idempotent store.

Fast (no sandbox, no broker): these pin the rules worker/runs.py and worker/sweeper.py apply when
a worker dies, a pid is reused, or a task is delivered twice.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import GradingRun, Submission, WorkerHeartbeat, utcnow
from app.models import TestResult as ResultRow
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.reliability.helpers import CORRECT
from worker import runs, sweeper

pytestmark = [pytest.mark.postgres]

RESULT = {
    "status": "graded", "message": None, "total": 85, "max_total": 100, "grader_version": "t",
    "categories": {"formula_shape": {"score": 25, "max": 25}}, "log": "",
    "tests": [{"id": f"test_{i}", "category": "formula_shape", "outcome": "passed", "points": 1,
               "max_points": 1, "hidden": False, "feedback": "ok"} for i in range(5)],
}


@pytest.fixture
def run_id(app, factory):
    sub = submit(factory.assignment(), factory.student(), Upload("attention.py", CORRECT),
                 store=BlobStore(app.config["UPLOAD_DIR"]))
    return sub.runs[0].id


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def store(app):
    return BlobStore(app.config["UPLOAD_DIR"])


def test_duplicate_deliveries_and_repeated_stores_add_nothing(app, run_id):
    assert runs.claim(run_id, "host-a:1", store(app)) is not None
    assert runs.claim(run_id, "host-b:2", store(app)) is None  # held (the claim is brand new)
    assert runs.store_result(run_id, "host-a:1", RESULT)
    assert not runs.store_result(run_id, "host-a:1", RESULT)  # e.g. a retry after a lost commit ack
    assert runs.claim(run_id, "host-b:2", store(app)) is None  # graded: a redelivery is skipped
    assert db.session.scalar(select(func.count()).where(ResultRow.run_id == run_id)) == 5
    run = db.session.get(GradingRun, run_id)
    assert (run.status, run.tries, run.total, run.submission.status) == ("graded", 1, 85, "graded")


def test_a_claim_whose_reply_was_lost_is_claimed_again_by_the_same_process(app, run_id):
    # The UPDATE committed but the database went away before the worker heard back: the worker
    # sends the run again, and its next delivery to the same process must not be skipped as
    # "held by a live worker" until the run deadline.
    me = runs.worker_name()
    assert runs.claim(run_id, me, store(app)) is not None
    again = runs.claim(run_id, me, store(app))
    assert again is not None and again.run_id == run_id
    assert db.session.get(GradingRun, run_id).tries == 2
    assert runs.claim(run_id, "host-b:2", store(app)) is None, "another process still sees it held"


def test_a_run_of_a_dead_local_process_is_taken_over_at_once(app, run_id):
    holder = f"{socket.gethostname()}:{dead_pid()}"
    assert runs.claim(run_id, holder, store(app)) is not None
    # Its heartbeat is still fresh (it died a moment ago), but the pid is gone: no waiting.
    db.session.add(WorkerHeartbeat(hostname=holder, started_at=utcnow() - timedelta(minutes=1), last_seen=utcnow()))
    db.session.commit()
    me = runs.worker_name()
    assert runs.claim(run_id, me, store(app)) is not None
    run = db.session.get(GradingRun, run_id)
    assert (run.worker, run.tries) == (me, 2)
    assert not runs.store_result(run_id, holder, RESULT)  # the old holder can no longer write
    assert runs.store_result(run_id, me, RESULT)


def test_remote_holder_is_trusted_while_it_beats_and_not_after(app, run_id, monkeypatch):
    app.config["HEARTBEAT_STALE_S"] = 30
    holder = "other-host:4242"
    assert runs.claim(run_id, holder, store(app)) is not None
    run = db.session.get(GradingRun, run_id)
    run.started_at = utcnow() - timedelta(minutes=5)
    db.session.add(WorkerHeartbeat(hostname=holder, started_at=run.started_at - timedelta(minutes=1),
                                   last_seen=utcnow()))
    db.session.commit()
    assert runs.claim(run_id, "me:1", store(app)) is None  # alive: a duplicate delivery
    # The same name now beats for a process started after the claim: the pid was reused.
    hb = db.session.get(WorkerHeartbeat, holder)
    hb.started_at = utcnow() - timedelta(seconds=10)
    db.session.commit()
    assert runs.claim(run_id, "me:1", store(app)) is not None


def held_by_a_silent_worker(app, run_id: int) -> None:
    """Claim ``run_id`` for a remote worker whose last heartbeat is a minute old (stale at 30 s)."""
    app.config["HEARTBEAT_STALE_S"] = 30
    holder = "other-host:4242"
    assert runs.claim(run_id, holder, store(app)) is not None
    run = db.session.get(GradingRun, run_id)
    run.started_at = utcnow() - timedelta(minutes=2)
    db.session.add(WorkerHeartbeat(hostname=holder, started_at=run.started_at - timedelta(minutes=1),
                                   last_seen=utcnow() - timedelta(minutes=1)))
    db.session.commit()


def test_stale_heartbeat_means_abandoned_and_the_sweeper_resends(app, run_id, monkeypatch):
    held_by_a_silent_worker(app, run_id)
    sent = []
    monkeypatch.setattr("worker.sweeper.enqueue_run", lambda rid, countdown=None, priority=None: sent.append(rid) or True)
    assert sweeper.sweep() == [run_id] and sent == [run_id]


def test_a_run_interrupted_max_tries_times_ends_in_error_with_a_reason(app, run_id, monkeypatch):
    monkeypatch.setattr("worker.sweeper.enqueue_run", lambda rid, countdown=None, priority=None: True)
    host = socket.gethostname()
    for _ in range(runs.max_tries()):
        assert runs.claim(run_id, f"{host}:{dead_pid()}", store(app)) is not None
    assert db.session.get(GradingRun, run_id).tries == 3
    assert runs.claim(run_id, runs.worker_name(), store(app)) is None  # no fourth try
    db.session.expire_all()
    run = db.session.get(GradingRun, run_id)
    assert run.status == "error" and "interrupted 3 times" in run.status_reason
    assert db.session.get(Submission, run.submission_id).status == "error"
    assert sweeper.sweep() == []


def test_grader_failures_retry_then_error_and_only_the_holder_may_requeue(app, run_id):
    reason = "grader configuration error: no suite"
    for attempt in range(1, 4):
        assert runs.claim(run_id, "w:1", store(app)) is not None
        assert not runs.requeue_for_retry(run_id, "w:2", reason)  # not the holder
        again = runs.requeue_for_retry(run_id, "w:1", reason, {"status": "error", "message": reason, "log": "x"})
        assert again == (attempt < 3)
    run = db.session.get(GradingRun, run_id)
    assert run.status == "error" and run.tries == 3
    assert run.status_reason == f"{reason} (gave up after 3 tries)" and run.log_excerpt == "x"
    assert run.submission.status == "error"


def test_a_run_older_than_the_hard_time_limit_is_abandoned_even_if_its_worker_beats(app, run_id, monkeypatch):
    app.config["RUN_DEADLINE_S"] = 60
    holder = "other-host:4242"
    assert runs.claim(run_id, holder, store(app)) is not None
    run = db.session.get(GradingRun, run_id)
    run.started_at = utcnow() - timedelta(minutes=2)
    db.session.add(WorkerHeartbeat(hostname=holder, started_at=run.started_at - timedelta(minutes=1),
                                   last_seen=utcnow()))
    db.session.commit()
    assert runs.claim(run_id, "me:1", store(app)) is not None


def test_claim_returns_the_submissions_files_suite_and_audit_text(app, factory):
    from app.models import Submission as Sub

    blobs = store(app)
    sub = Sub(assignment_id=factory.assignment().id, student_id=factory.student().id, attempt=1,
              code_sha256=blobs.put(CORRECT), audit_sha256=blobs.put(b"%PDF audit"), audit_filename="audit.pdf",
              audit_text="row sums are 1", figure_sha256=blobs.put(b"\x89PNG figure"), figure_filename="fig.png")
    run = GradingRun(submission=sub)
    db.session.add_all([sub, run])
    db.session.commit()
    inputs = runs.claim(run.id, "w:1", store(app))
    assert inputs == runs.RunInputs(
        run_id=run.id, submission_id=sub.id, suite="attention", code=CORRECT, audit=b"%PDF audit",
        audit_filename="audit.pdf", figure=b"\x89PNG figure", figure_filename="fig.png",
        audit_text="row sums are 1")
    db.session.expire_all()
    assert (db.session.get(GradingRun, run.id).status, db.session.get(Sub, sub.id).status) == ("running", "running")


def test_claim_and_store_take_three_statements_each_whatever_the_number_of_tests(app, run_id):
    from sqlalchemy import event

    many = {**RESULT, "tests": [{"id": f"test_{i}", "category": "formula_shape", "outcome": "failed",
                                 "points": 0, "max_points": 1, "hidden": i % 2 == 0,
                                 "feedback": {"en": f"case {i}", "zh": f"用例 {i}"}} for i in range(40)]}
    statements: list[str] = []

    def count(conn, cursor, statement, *_):
        statements.append(statement.split()[0])

    engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        assert runs.claim(run_id, "w:1", store(app)) is not None
        claimed, statements[:] = list(statements), []
        assert runs.store_result(run_id, "w:1", many)
        stored = list(statements)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert claimed == ["SELECT", "UPDATE", "UPDATE"]
    # The 40 test rows are one executemany. On PostgreSQL the guarded UPDATE is a WITH that also locks the
    # submission's row, so the sync reads the runs a concurrent regrade cancel committed (round 37).
    first = "WITH" if engine.dialect.name == "postgresql" else "UPDATE"
    assert stored == [first, "INSERT", "UPDATE"]
    rows = db.session.scalars(select(ResultRow).where(ResultRow.run_id == run_id).order_by(ResultRow.id)).all()
    assert [(r.test_id, r.hidden, r.feedback_message) for r in rows] == [
        (f"test_{i}", i % 2 == 0, {"en": f"case {i}", "zh": f"用例 {i}"}) for i in range(40)]
    run = db.session.get(GradingRun, run_id)
    assert (run.status, run.total, run.result["tests"][3]["id"], run.submission.status) == (
        "graded", 85, "test_3", "graded")


def test_claim_reads_code_left_on_disk_by_the_first_release_and_requeues_a_run_whose_code_is_lost(app, factory):
    from app.models import Blob
    from app.models import Submission as Sub

    blobs = store(app)
    kept, lost = b"x = 1\n", b"x = 2\n"
    subs = []
    for attempt, code in enumerate((kept, lost), start=1):
        sha = __import__("hashlib").sha256(code).hexdigest()
        db.session.add(Blob(sha256=sha, size=len(code), data=None))  # the migration found no bytes
        subs.append(Sub(assignment_id=factory.assignment().id, student_id=factory.student().id,
                        attempt=attempt, code_sha256=sha))
    path = blobs.cache_path(subs[0].code_sha256)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(kept)
    run_ids = []
    for sub in subs:
        run = GradingRun(submission=sub)
        db.session.add_all([sub, run])
        db.session.commit()
        run_ids.append(run.id)
    assert runs.claim(run_ids[0], "w:1", blobs).code == kept
    assert runs.claim(run_ids[1], "w:1", blobs) is None
    db.session.expire_all()
    run = db.session.get(GradingRun, run_ids[1])
    assert run.status == "queued" and run.status_reason.startswith("submission files unreadable")


def _attempts(app, factory, student, n: int, assignment=None) -> list[int]:
    assignment = assignment or factory.assignment()
    return [submit(assignment, student, Upload("attention.py", CORRECT), store=store(app)).runs[0].id
            for _ in range(n)]


def test_a_students_next_attempt_waits_while_one_is_graded_and_others_are_not_held_up(app, factory):
    """One grading per student at a time: a student whose attempts each use the whole budget takes
    one pool process, not all of them."""
    student = factory.student()
    first, second = _attempts(app, factory, student, 2)
    someone_else = _attempts(app, factory, factory.student(), 1)[0]
    assert runs.claim(first, "w:1", store(app)) is not None
    assert runs.claim(second, "w:2", store(app)) is None        # deferred, still queued
    assert db.session.get(GradingRun, second).status == "queued"
    assert runs.claim(someone_else, "w:2", store(app)) is not None
    # The worker that finishes the first attempt sends the second.
    assert runs.next_of_student(first) == second
    assert runs.store_result(first, "w:1", RESULT)
    assert runs.claim(second, "w:2", store(app)) is not None
    assert runs.next_of_student(second) is None


def test_a_students_attempts_in_two_assignments_are_graded_one_at_a_time_too(app, factory):
    student = factory.student()
    lab1 = _attempts(app, factory, student, 1)[0]
    lab2 = _attempts(app, factory, student, 1)[0]
    assert runs.claim(lab1, "w:1", store(app)) is not None
    assert runs.claim(lab2, "w:2", store(app)) is None
    assert runs.requeue_for_retry(lab1, "w:1", "grader error")   # given back: no longer running
    assert runs.claim(lab2, "w:2", store(app)) is not None


def test_a_run_abandoned_by_a_worker_gone_silent_does_not_hold_its_students_next_attempt(app, factory):
    first, second = _attempts(app, factory, factory.student(), 2)
    held_by_a_silent_worker(app, first)
    assert runs.claim(second, "w:2", store(app)) is not None


def test_a_claim_waits_for_the_students_row_so_two_concurrent_claims_cannot_both_pass_the_guard(app, factory):
    import threading

    student = factory.student()
    run_id = _attempts(app, factory, student, 1)[0]
    done = threading.Event()
    with db.engine.connect() as other:          # e.g. another worker's claim of the student, in flight
        other.exec_driver_sql("BEGIN")
        other.exec_driver_sql(f"SELECT id FROM users WHERE id = {student.id} FOR UPDATE")

        def claim() -> None:
            with app.app_context():
                runs.claim(run_id, "w:2", store(app))
                db.session.remove()
            done.set()

        t = threading.Thread(target=claim)
        t.start()
        assert not done.wait(1.0), "the claim must wait for the student's row"
        other.exec_driver_sql("ROLLBACK")
    t.join(10)
    assert done.is_set()


def test_a_run_held_by_a_dead_local_process_does_not_hold_its_students_next_attempt(app, factory):
    # The pool process grading the first attempt was killed a moment ago: its heartbeat is fresh,
    # but its pid is gone. The next attempt was deferred behind it until the heartbeat went stale
    # and the sweeper re-sent the dropped message; a dead local holder is known at once.
    first, second = _attempts(app, factory, factory.student(), 2)
    holder = f"{socket.gethostname()}:{dead_pid()}"
    assert runs.claim(first, holder, store(app)) is not None
    db.session.add(WorkerHeartbeat(hostname=holder, started_at=utcnow() - timedelta(minutes=1), last_seen=utcnow()))
    db.session.commit()
    assert runs.claim(second, "w:2", store(app)) is not None
    # A live holder still defers it.
    third = _attempts(app, factory, factory.student(), 2)
    assert runs.claim(third[0], runs.worker_name(), store(app)) is not None
    assert runs.claim(third[1], "w:2", store(app)) is None


def test_a_run_given_up_at_its_claim_hands_the_students_next_attempt_on(app, factory, monkeypatch):
    # A run interrupted max_tries times is closed as error by the claim of its redelivery; the
    # student's next attempt, deferred while it ran, was left for the sweeper (QUEUED_GRACE_S).
    first, second = _attempts(app, factory, factory.student(), 2)
    host = socket.gethostname()
    for _ in range(runs.max_tries()):
        assert runs.claim(first, f"{host}:{dead_pid()}", store(app)) is not None
    given_up = []
    assert runs.claim(first, runs.worker_name(), store(app), on_given_up=given_up.append) is None
    assert db.session.get(GradingRun, first).status == "error"
    assert given_up == [first]
    assert runs.next_of_student(first) == second
