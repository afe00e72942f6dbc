"""Nothing lost, nothing stuck, fair, and scaling out: real workers, Redis and PostgreSQL under failure.

Each test starts real `autograder worker` processes (tests/workers.py) with shortened sweeper and
heartbeat timings (conftest.FAST). Run only these:

    .venv/bin/python -m pytest tests/reliability -q
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, GradingRun, Submission, User
from app.models import TestResult as ResultRow
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.factories import Factory
from tests.reliability.helpers import (
    CORRECT,
    CORRECT_TOTAL,
    FAULTY,
    FAULTY_TOTALS,
    all_finished,
    api_upload,
    assert_graded_exactly_once,
    clear_redis,
    http_server,
    make_rig,
    run_statuses,
    statuses,
    worker_log_tail,
)
from tests.reliability.tcp_proxy import TcpProxy
from tests.workers import (
    descendant_pids,
    kill_group,
    running_worker,
    start_worker,
    stop,
    wait_for,
    wait_ready,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


def corpus(n: int) -> list[tuple[bytes, float]]:
    """n uploads: mostly the correct file, every fourth one a faulty file with its known total."""
    faulty = list(FAULTY_TOTALS)
    out = []
    for i in range(n):
        if i % 4 == 3:
            name = faulty[(i // 4) % len(faulty)]
            out.append((FAULTY[name], FAULTY_TOTALS[name]))
        else:
            out.append((CORRECT, CORRECT_TOTAL))
    return out


def submit_many(app, items: list[tuple[bytes, float]], assignment_kw: dict | None = None) -> dict[int, float]:
    """Submit each file as a different student through app.submitting.submit (commit, then queue)."""
    expected = {}
    with app.app_context():
        f = Factory()
        a = f.assignment(**(assignment_kw or {}))
        store = BlobStore(app.config["UPLOAD_DIR"])
        for code, total in items:
            sub = submit(a, f.student(), Upload("attention.py", code), store=store)
            expected[sub.id] = total
        db.session.remove()
    return expected


def test_worker_killed_mid_burst_then_restarted_grades_everything_exactly_once(rig):
    expected = submit_many(rig.app, corpus(10))
    ids = list(expected)
    first = start_worker(rig.env(), "burst-a", concurrency=2, log=rig.log("burst-a"))
    try:
        # Kill it (main, pool and sandbox processes together) once it is in the middle of the burst.
        wait_for(
            lambda: run_statuses(rig.app).get("graded", 0) >= 2 and run_statuses(rig.app).get("running", 0) >= 1,
            120,
            interval=0.05,
            what="the first worker to be mid-burst",
        )
        kill_group(first)
    finally:
        stop(first)
    at_kill = run_statuses(rig.app)
    assert at_kill.get("queued", 0) + at_kill.get("running", 0) > 0, at_kill
    with rig.app.app_context():
        interrupted = set(db.session.scalars(select(GradingRun.id).where(GradingRun.status == "running")))
        db.session.remove()

    with running_worker(rig.env(), "burst-b", concurrency=2, log=rig.log("burst-b")):
        try:
            wait_for(lambda: all_finished(rig.app, ids), 120, what="every submission to be graded")
            # Redelivered and duplicated messages change nothing: send every run once more.
            log_b = rig.log("burst-b")
            skipped_before = log_b.read_text().count("'skipped'")
            with rig.app.app_context():
                from app.queue import enqueue_run

                for run_id in db.session.scalars(select(GradingRun.id)):
                    enqueue_run(run_id)
                db.session.remove()
            wait_for(
                lambda: log_b.read_text().count("'skipped'") >= skipped_before + len(ids),
                60,
                what="the duplicates to be consumed (and skipped)",
            )
        except AssertionError:
            print(worker_log_tail(rig.log("burst-a"), rig.log("burst-b")))
            raise

    runs = assert_graded_exactly_once(rig.app, expected)
    taken_over = {r.id for r in runs if r.tries == 2}
    assert interrupted <= taken_over, (interrupted, {r.id: r.tries for r in runs})
    assert all(r.tries <= 2 for r in runs)
    print(f"at kill: {at_kill}; runs interrupted and taken over: {sorted(interrupted)}")


def test_pool_process_killed_mid_grading_is_redelivered_and_taken_over_at_once(rig):
    """Only the pool process dies (as on a hard time limit or an OOM kill): Celery re-queues the
    message (reject_on_worker_lost) and the replacement process takes the run over without
    waiting for the dead process's heartbeat to go stale."""
    import os
    import signal

    expected = submit_many(rig.app, corpus(3))
    with running_worker(rig.env(HEARTBEAT_STALE_S=600, SWEEP_INTERVAL_S=600), "pool-kill", 1,
                        rig.log("pool-kill")):

        def running_run():
            with rig.app.app_context():
                row = db.session.execute(
                    select(GradingRun.id, GradingRun.worker).where(GradingRun.status == "running")
                ).first()
                db.session.remove()
                return row

        victim, holder = wait_for(running_run, 90, interval=0.02, what="a run to start")
        os.kill(int(holder.rpartition(":")[2]), signal.SIGKILL)
        try:
            wait_for(lambda: all_finished(rig.app, list(expected)), 60, what="the redelivered run")
        except AssertionError:
            print(worker_log_tail(rig.log("pool-kill")))
            raise
    runs = assert_graded_exactly_once(rig.app, expected)
    tries = {r.id: r.tries for r in runs}
    assert tries.pop(victim) == 2 and set(tries.values()) == {1}, tries


def test_broker_wiped_while_queued_then_worker_sweeps_them_back(rig):
    expected = submit_many(rig.app, corpus(5))
    r = rig.redis()
    assert r.llen(rig.app.config["GRADING_QUEUE"]) == 5
    clear_redis(r)  # the broker loses every message (all keys but this session's lock: a FLUSHDB)
    time.sleep(1)
    assert run_statuses(rig.app) == {"queued": 5}
    with running_worker(rig.env(), "after-wipe", concurrency=1, log=rig.log("after-wipe")):
        try:
            wait_for(lambda: all_finished(rig.app, list(expected)), 90, what="the swept runs to be graded")
        except AssertionError:
            print(worker_log_tail(rig.log("after-wipe")))
            raise
    runs = assert_graded_exactly_once(rig.app, expected)
    assert all(run.tries == 1 for run in runs)
    assert "sweeper re-queued runs" in rig.log("after-wipe").read_text()


def test_database_outage_gives_503_and_loses_nothing(migrated_pg, redis_url, tmp_path):
    proxy = TcpProxy(("127.0.0.1", 5432)).start()
    db_url = proxy.url(migrated_pg)
    rig = make_rig(tmp_path, db_url, redis_url)
    app, client = rig.app, rig.app.test_client()
    try:
        with app.app_context():
            f = Factory()
            f.assignment()
            tokens = [f.token(f.student()) for _ in range(6)]
            db.session.remove()

        def upload(token: str):
            return client.post(
                "/api/v1/submissions",
                headers={"Authorization": f"Bearer {token}"},
                data={"code": (__import__("io").BytesIO(CORRECT), "attention.py")},
                content_type="multipart/form-data",
            )

        # The worker reaches PostgreSQL through the proxy too: it loses the database as well.
        with running_worker(rig.env(db_url), "outage", concurrency=1, log=rig.log("outage"), ready_timeout=90):
            accepted = []
            for token in tokens[:3]:
                resp = upload(token)
                assert resp.status_code == 202, resp.get_json()
                accepted.append(resp.get_json()["id"])
            wait_for(lambda: run_statuses(app).get("running"), 30, interval=0.05, what="a run to start")

            proxy.stop()  # PostgreSQL is gone for the web and the worker, mid-grading
            t0 = time.monotonic()
            resp = upload(tokens[3])
            assert resp.status_code == 503, (resp.status_code, resp.get_data(as_text=True))
            assert resp.get_json()["code"] == "database_unavailable"
            assert resp.headers.get("Retry-After")
            listed = client.get("/api/v1/submissions", headers={"Authorization": f"Bearer {tokens[0]}"})
            assert listed.status_code == 503
            time.sleep(max(0.0, 4 - (time.monotonic() - t0)))
            proxy.start()

            for token in tokens[3:]:
                resp = upload(token)
                assert resp.status_code == 202, resp.get_json()
                accepted.append(resp.get_json()["id"])
            try:
                wait_for(lambda: all_finished(app, accepted), 120, what="every accepted upload to be graded")
            except AssertionError:
                print(worker_log_tail(rig.log("outage")))
                raise
        with app.app_context():
            # The refused upload left nothing behind; six accepted, six submissions.
            assert db.session.scalar(select(func.count(Submission.id))) == 6
            db.session.remove()
        assert_graded_exactly_once(app, {sub_id: CORRECT_TOTAL for sub_id in accepted})
        assert proxy.accepted > 0
    finally:
        proxy.stop()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def test_forty_concurrent_uploads_are_graded_by_two_workers_that_share_no_disk(rig):
    items = corpus(40)
    with rig.app.app_context():
        f = Factory()
        f.assignment()
        tokens = [f.token(f.student()) for _ in items]
        db.session.remove()
    logs = [rig.log("scale-a"), rig.log("scale-b")]
    # Each worker has its own, empty data folder, neither of them the web's: they share only
    # PostgreSQL and Redis with the web, as workers on other hosts would.
    dirs = [rig.data_dir.parent / "worker-a", rig.data_dir.parent / "worker-b"]
    workers = [start_worker(rig.env(DATA_DIR=d), n, 1, log) for d, n, log in zip(dirs, ["scale-a", "scale-b"], logs, strict=True)]
    try:
        for proc, log in zip(workers, logs, strict=True):
            wait_ready(proc, log, 90)
        # `autograder worker` supervises the Celery worker: pool processes are grandchildren.
        pools = [descendant_pids(p.pid) for p in workers]
        results: list[tuple[int, dict] | None] = [None] * len(items)
        with http_server(rig.app) as base:
            start = threading.Barrier(len(items))

            def one(i: int) -> None:
                start.wait()
                results[i] = api_upload(base, tokens[i], items[i][0])

            threads = [threading.Thread(target=one, args=(i,)) for i in range(len(items))]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join(90)
            upload_s = time.perf_counter() - t0
        assert all(r is not None and r[0] == 202 for r in results), [r for r in results if not r or r[0] != 202]
        expected = {r[1]["id"]: total for r, (_, total) in zip(results, items, strict=True)}
        assert len(expected) == 40
        try:
            wait_for(lambda: all_finished(rig.app, list(expected)), 150, what="forty gradings")
        except AssertionError:
            print(worker_log_tail(*logs))
            raise
        graded_s = time.perf_counter() - t0
    finally:
        for proc in workers:
            stop(proc)
    runs = assert_graded_exactly_once(rig.app, expected)
    # Both workers took work from the one queue.
    by_worker = {}
    for run in runs:
        pid = int(run.worker.rpartition(":")[2])
        owner = next(i for i, pool in enumerate(pools) if pid in pool)
        by_worker[owner] = by_worker.get(owner, 0) + 1
    assert set(by_worker) == {0, 1}, by_worker
    web_blobs = rig.app.config["UPLOAD_DIR"]
    assert not (web_blobs.exists() and any(p.is_file() for p in web_blobs.rglob("*"))), "uploads live in the database"
    print(f"40 uploads accepted in {upload_s:.1f} s, all graded after {graded_s:.1f} s; per worker {by_worker}")


def _students_with_tokens(app, n: int) -> list[str]:
    with app.app_context():
        f = Factory()
        f.assignment()
        tokens = [f.token(f.student()) for _ in range(n)]
        db.session.remove()
    return tokens


def test_one_student_resubmitting_is_capped_while_others_get_in(rig):
    """MAX_PENDING_PER_STUDENT (3): the fourth waiting attempt of one student is refused with a
    clear 429; other students are still accepted and queued (no worker runs meanwhile)."""
    greedy, *others = _students_with_tokens(rig.app, 4)
    with http_server(rig.app) as base:
        mine = [api_upload(base, greedy, CORRECT) for _ in range(5)]
        theirs = [api_upload(base, token, CORRECT) for token in others]
    assert [status for status, _ in mine] == [202, 202, 202, 429, 429], mine
    body = mine[3][1]
    assert body["code"] == "too_many_pending"
    assert "You already have 3 attempts waiting to be graded" in body["error"]
    assert body["message"]["zh"] and body["message"]["en"] == body["error"]
    assert all(status == 202 for status, _ in theirs), theirs
    # The queue holds at most three of the greedy student's attempts, ahead of the others' only
    # by arrival: the others' uploads got queue positions right after them.
    assert sorted(b["queue_position"] for _, b in theirs) == [3, 4, 5]
    assert run_statuses(rig.app) == {"queued": 6}


def test_pending_cap_holds_under_a_concurrent_burst_of_one_student(rig):
    greedy, *others = _students_with_tokens(rig.app, 4)
    results: list = []
    lock = threading.Lock()
    with http_server(rig.app) as base:

        def one(token: str) -> None:
            r = api_upload(base, token, CORRECT)
            with lock:
                results.append((token, r))

        threads = [threading.Thread(target=one, args=(greedy,)) for _ in range(8)]
        threads += [threading.Thread(target=one, args=(t,)) for t in others]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    mine = [r for tok, r in results if tok == greedy]
    assert all(status == 202 for tok, (status, _) in results if tok != greedy)
    accepted = [body for status, body in mine if status == 202]
    refused = [body for status, body in mine if status == 429]
    assert all(b.get("code") == "too_many_pending" for b in refused), mine
    assert len(accepted) == 3, f"{len(accepted)} attempts of one student accepted with a cap of 3"


def test_grader_crash_ends_in_error_after_max_tries_and_student_errors_are_grades(rig):
    with rig.app.app_context():
        f = Factory()
        # An honest grader failure: the assignment names an acceptance suite that does not exist.
        broken = Assignment(slug="broken", title="Broken", suite="no_such_suite")
        db.session.add(broken)
        db.session.commit()
        store = BlobStore(rig.app.config["UPLOAD_DIR"])
        crash = submit(broken, f.student(), Upload("attention.py", CORRECT), store=store).id
        student_bug = submit(
            f.assignment(), f.student(), Upload("attention.py", b"import torch\ndef oops(:\n"), store=store
        ).id
        db.session.remove()
    with running_worker(rig.env(), "crash", concurrency=1, log=rig.log("crash")):
        try:
            wait_for(lambda: all_finished(rig.app, [crash, student_bug]), 90, what="both runs to finish")
        except AssertionError:
            print(worker_log_tail(rig.log("crash")))
            raise
    assert statuses(rig.app, [crash, student_bug]) == {crash: "error", student_bug: "graded"}
    with rig.app.app_context():
        run = db.session.scalars(select(GradingRun).where(GradingRun.submission_id == crash)).one()
        assert run.status == "error" and run.tries == 3
        assert "grader configuration error" in run.status_reason
        assert "gave up after 3 tries" in run.status_reason
        assert run.finished_at is not None and run.result["status"] == "error"
        assert db.session.scalar(select(func.count()).where(ResultRow.run_id == run.id)) == 0
        bug = db.session.scalars(select(GradingRun).where(GradingRun.submission_id == student_bug)).one()
        assert bug.tries == 1 and bug.total == 0 and "SyntaxError" in bug.result["message"]["en"]
        db.session.remove()


def test_a_student_whose_attempts_use_their_whole_budget_takes_one_pool_process_not_all(rig):
    """Two attempts of one student, each sleeping 3 s at import (6 s per grading: two sessions),
    then another student's correct file, on a worker with two pool processes. The second attempt
    waits for the first; the other student is graded by the free process meanwhile (before: both
    processes held the slow student's attempts and the other waited ~6 s behind them)."""
    slow = b"import time\ntime.sleep(3)\n" + CORRECT
    with rig.app.app_context():
        f = Factory()
        a = f.assignment()
        store = BlobStore(rig.app.config["UPLOAD_DIR"])
        hog, other = f.student(), f.student()
        first, second = (submit(a, hog, Upload("attention.py", slow), store=store).id for _ in range(2))
        assignment_id, other_id = a.id, other.id
        db.session.remove()
    # Queued a moment later, so that it is behind both of the slow student's attempts in the queue.
    time.sleep(0.5)
    with rig.app.app_context():
        fair = submit(db.session.get(Assignment, assignment_id), db.session.get(User, other_id),
                      Upload("attention.py", CORRECT), store=store).id
        db.session.remove()
    log = rig.log("fair")
    # The slow attempts sleep at import: sitting idle that long is stopped since round 27 (IDLE_WINDOW_S), and
    # this test needs correct gradings that take seconds.
    with running_worker(rig.env(IDLE_WINDOW_S=60, IDLE_TOTAL_S=120), "fair", concurrency=2, log=log, ready_timeout=90):
        try:
            wait_for(lambda: all_finished(rig.app, [first, second, fair]), 120, what="three gradings")
        except AssertionError:
            print(worker_log_tail(log))
            raise
    runs = {r.submission_id: r for r in assert_graded_exactly_once(
        rig.app, {first: CORRECT_TOTAL, second: CORRECT_TOTAL, fair: CORRECT_TOTAL})}
    assert runs[fair].finished_at < runs[first].finished_at, "the other student waited behind the slow one"
    assert runs[second].started_at >= runs[first].finished_at, "one grading per student at a time"
