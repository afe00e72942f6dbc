"""The instructor dashboard on a big class: 1,000 students x 10 attempts in a fresh PostgreSQL database.

Seeds realistic rows with bulk inserts (COPY for the 300,000 test results): every attempt has a
graded run whose result JSON is a real grading result (the correct file and two faulty ones are
graded once with the sandbox and reused), a few attempts are still queued/running or ended in
error, some are late, some have an instructor's audit review. Then, through the Flask test
client signed in as an instructor, renders `/instructor/` (cold once, then warm ``--repeats``
times, plus a sorted/filtered variant) and counts SQL statements with a SQLAlchemy
``before_cursor_execute`` listener. Writes bench/results/dashboard.json; the database is dropped.

    .venv/bin/python bench/dashboard.py [--students 1000] [--attempts 10] [--repeats 5]

Needs PostgreSQL (admin URL from BENCH_PG_ADMIN_URL or TEST_PG_ADMIN_URL, see bench/load.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import summary, write  # noqa: E402
from bench.load import fresh_database  # noqa: E402

SUBMISSIONS = ROOT / "tests" / "fixtures" / "submissions"
SAMPLES = [SUBMISSIONS / "correct" / "reference.py", SUBMISSIONS / "faulty" / "no_scale.py",
           SUBMISSIONS / "faulty" / "padding_polarity.py"]


def real_results() -> list[dict]:
    """Grade a few corpus files for real, so the stored JSON has the real shape and size."""
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor

    with Executor() as ex:
        out = [grade(GradeInput(code=p.read_bytes()), "attention", ex) for p in SAMPLES]
    assert all(r["status"] == "graded" for r in out), [r.get("message") for r in out]
    return out


def seed(app, students: int, attempts: int, results: list[dict]) -> dict:
    from sqlalchemy import insert

    from app.assignments import ensure_assignment
    from app.extensions import db
    from app.models import AuditReview, Blob, GradingRun, Submission, User, utcnow
    from grading.i18n import encode

    rng = random.Random(7)
    t0 = time.perf_counter()
    counts = {"users": 0, "submissions": 0, "runs": 0, "test_results": 0, "reviews": 0}
    with app.app_context():
        a = ensure_assignment("attention", "Attention", "attention",
                              deadline=utcnow() - timedelta(days=1))
        teacher = User(email="teacher@bench.example.edu", name="Teacher", role="instructor")
        teacher.set_password("bench-password")
        db.session.add(teacher)
        db.session.commit()
        teacher_id, assignment_id = teacher.id, a.id
        now = utcnow()
        first_id = teacher_id + 1
        users = [{"id": first_id + i, "email": f"s{i:05d}@bench.example.edu", "name": f"学生 {i:04d}",
                  "role": "student", "password_hash": None, "created_at": now} for i in range(students)]
        db.session.execute(insert(User), users)
        blobs, subs, runs, reviews, tests_copy = [], [], [], [], []
        sub_id = run_id = 0
        for u in users:
            for n in range(1, attempts + 1):
                sub_id += 1
                run_id += 1
                digest = hashlib.sha256(f"{u['id']}:{n}".encode()).hexdigest()
                blobs.append({"sha256": digest, "size": 4000, "created_at": now})
                created = now - timedelta(days=2, minutes=10 * (attempts - n) + rng.randint(0, 9))
                late = 1 if (n == attempts and rng.random() < 0.1) else 0
                status = "graded"
                if n == attempts:
                    status = rng.choices(["graded", "queued", "running", "error"], [94, 3, 2, 1])[0]
                result = results[rng.randrange(len(results))]
                subs.append({"id": sub_id, "assignment_id": assignment_id, "student_id": u["id"], "attempt": n,
                             "code_sha256": digest, "code_filename": "attention.py", "status": status,
                             "created_at": created, "late_days": late})
                graded = status == "graded"
                runs.append({
                    "id": run_id, "submission_id": sub_id, "trigger": "submit", "status": status,
                    "status_reason": "grader crashed: sandbox unavailable" if status == "error" else None,
                    "grader_version": result["grader_version"], "queued_at": created,
                    "started_at": created + timedelta(seconds=1) if status != "queued" else None,
                    "finished_at": created + timedelta(seconds=2) if status in ("graded", "error") else None,
                    "worker": "bench-host:1234" if status != "queued" else None, "tries": 1,
                    "total": result["total"] if graded else None, "max_total": result["max_total"] if graded else None,
                    "categories": result["categories"] if graded else None, "result": result if graded else None,
                    "log_excerpt": result["log"][-20000:] if graded else None,
                })
                if graded:
                    for t in result["tests"]:
                        tests_copy.append((run_id, t["id"], t["category"], t["outcome"], t["points"],
                                           t["max_points"], bool(t.get("hidden")), encode(t.get("feedback"))))
                    if rng.random() < 0.05:
                        reviews.append({"submission_id": sub_id, "reviewer_id": teacher_id,
                                        "score": float(rng.randint(5, 15)), "comment": "审阅完毕 / reviewed",
                                        "created_at": now})
        for table, rows in ((Blob, blobs), (Submission, subs), (GradingRun, runs), (AuditReview, reviews)):
            for i in range(0, len(rows), 2000):
                db.session.execute(insert(table), rows[i:i + 2000])
        db.session.commit()
        # 300,000 test result rows: COPY is what a bulk load of this size should use.
        raw = db.engine.raw_connection()
        try:
            cur = raw.cursor()
            with cur.copy("COPY test_results (run_id, test_id, category, outcome, points, max_points, hidden, "
                          "feedback) FROM STDIN") as copy:
                for row in tests_copy:
                    copy.write_row(row)
            for table in ("users", "submissions", "grading_runs", "test_results", "audit_reviews"):
                cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                            f"(SELECT coalesce(max(id), 1) FROM {table}))")
            cur.execute("ANALYZE")
            raw.commit()
        finally:
            raw.close()
        counts.update(users=len(users) + 1, submissions=len(subs), runs=len(runs), test_results=len(tests_copy),
                      reviews=len(reviews))
    counts["seed_seconds"] = time.perf_counter() - t0
    counts["result_json_bytes"] = sum(len(json.dumps(r)) for r in results) // len(results)
    return {"counts": counts, "teacher_id": teacher_id}


def migrated_app(db_url: str, data_dir: str):
    """The app on `db_url` migrated to the newest revision, its files in `data_dir`."""
    os.environ["DATA_DIR"] = data_dir
    from flask_migrate import upgrade

    from app import create_app

    app = create_app(SQLALCHEMY_DATABASE_URI=db_url, CELERY_BROKER_URL="memory://", RATELIMIT_ENABLED=False)
    with app.app_context():
        upgrade()
    return app


def measure(app, teacher_id: int, path: str, repeats: int) -> dict:
    from sqlalchemy import event

    from app.extensions import db
    from app.models import User

    client = app.test_client()
    with app.app_context():
        login_id = db.session.get(User, teacher_id).get_id()   # "id.nonce" (the session's identity)
    with client.session_transaction() as sess:  # signed in as the instructor (Flask-Login's keys)
        sess["_user_id"] = login_id
        sess["_fresh"] = True
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        timings, queries, sizes = [], [], []
        for _ in range(repeats + 1):  # the first one is the cold render
            statements.clear()
            t0 = time.perf_counter()
            resp = client.get(path)
            timings.append(time.perf_counter() - t0)
            if resp.status_code != 200:
                raise SystemExit(f"{path} answered {resp.status_code}: {resp.get_data(as_text=True)[:500]}")
            queries.append(len(statements))
            sizes.append(len(resp.get_data()))
        sample = list(statements)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    warm = summary(timings[1:]) if repeats else None
    return {"path": path, "cold_seconds": timings[0], "warm_seconds": warm, "queries_per_render": queries,
            "html_bytes": sizes[-1], "statements": [" ".join(s.split())[:160] for s in sample]}


def page_line(p: dict) -> str:
    """One measured page (measure()) in one line."""
    w = p["warm_seconds"]
    return (f"{p['path']}: cold {p['cold_seconds'] * 1000:.0f} ms, warm median {w['median'] * 1000:.0f} ms "
            f"(p95 {w['p95'] * 1000:.0f} ms), {p['queries_per_render'][-1]} SQL statements, "
            f"{p['html_bytes'] / 1024:.0f} KiB HTML")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    results = real_results()
    with fresh_database("autograder_dash") as db_url, tempfile.TemporaryDirectory() as tmp:
        from app.extensions import db

        app = migrated_app(db_url, tmp)
        seeded = seed(app, args.students, args.attempts, results)
        pages = [measure(app, seeded["teacher_id"], "/instructor/", args.repeats),
                 measure(app, seeded["teacher_id"], "/instructor/?sort=best&dir=desc&status=graded", args.repeats)]
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    data = {"students": args.students, "attempts_per_student": args.attempts, **seeded["counts"], "pages": pages}
    data.pop("teacher_id", None)
    path = write("dashboard", data)
    c = seeded["counts"]
    print(f"seeded {c['users']} users, {c['submissions']} submissions, {c['runs']} runs, "
          f"{c['test_results']} test results in {c['seed_seconds']:.1f} s")
    for p in pages:
        print(page_line(p))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
