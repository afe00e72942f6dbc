"""CPU a grading worker spends per grading outside the grading engine (issue 14, item 1).

Starts `autograder worker --concurrency 2` (supervised, as production) on a fresh PostgreSQL
database and a free Redis database, with no web server: the runs are inserted and queued by this
script, all at once, so every CPU second of the worker's process tree belongs to the burst.
The tree's CPU (from /proc, user + system, reaped children included) is split by process:

* ``supervisor`` and ``celery_main``: the supervisor and Celery's main process (consumer,
  sweeper, spool flusher): all of it is worker overhead;
* ``pool``: the prefork pool processes themselves, which also run the engine's in-process part
  (``grading.executor.grade_with_warm_executor``); that part is
  ``sum(GradingRun.cpu_s) - pool_children``, because ``cpu_s`` is the pool process's CPU plus its
  reaped children's during the call, and the only children a pool process reaps are the forked
  pytest processes of the engine;
* ``pool_children`` (pytest children) and ``engine_other`` (zygotes, jails, the decode server).

``overhead`` = supervisor + celery_main + pool - engine's in-pool part, per grading. PostgreSQL's
transactions per grading (``pg_stat_database``) are reported too. Writes bench/results/NAME.json.

    .venv/bin/python bench/worker_overhead.py [--runs 60] [--out worker_overhead]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import session_processes, write  # noqa: E402
from bench.load import (  # noqa: E402
    BIN,
    CORRECT,
    free_redis_db,
    fresh_database,
    service_env,
    spawn,
    terminate,
    wait_until,
)


def split(sid: int) -> dict[str, float]:
    """The worker tree's CPU so far, by role (see the module docstring)."""
    procs = session_processes(sid)
    main = [p for p, (pp, _, _) in procs.items() if pp == sid]
    pools = [p for p, (pp, _, _) in procs.items() if pp in main]
    parts = {"supervisor": 0.0, "celery_main": 0.0, "pool": 0.0, "pool_children": 0.0, "engine_other": 0.0}
    for pid, (_, own, kids) in procs.items():
        if pid == sid:
            parts["supervisor"] += own  # its reaped children are earlier Celery workers: none here
        elif pid in main:
            parts["celery_main"] += own
        elif pid in pools:
            parts["pool"] += own
            parts["pool_children"] += kids
        else:
            parts["engine_other"] += own + kids
    return parts


def make_runs(app, n: int) -> list[int]:
    from app.assignments import ensure_assignment
    from app.extensions import db
    from app.models import GradingRun, Submission, User
    from app.storage import BlobStore

    with app.app_context():
        assignment = ensure_assignment("attention", "Attention", "attention")
        user = User(email=f"bench{time.time_ns()}@bench.example.edu", name="Bench", role="student")
        db.session.add(user)
        db.session.flush()
        sha = BlobStore().put(CORRECT.read_bytes())
        runs = []
        for i in range(n):
            sub = Submission(assignment_id=assignment.id, student_id=user.id, attempt=i + 1, code_sha256=sha)
            run = GradingRun(submission=sub, trigger="submit")
            db.session.add_all([sub, run])
            runs.append(run)
        db.session.commit()
        ids = [r.id for r in runs]
        db.session.remove()
    return ids


def pg_counters(app) -> dict[str, int]:
    from sqlalchemy import text

    from app.extensions import db

    with app.app_context():
        row = db.session.execute(text(
            "SELECT xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated "
            "FROM pg_stat_database WHERE datname = current_database()")).one()
        db.session.remove()
    return dict(zip(("commit", "rollback", "returned", "fetched", "inserted", "updated"), row, strict=True))


POLLS = [0]  # this script's own status queries (one transaction each), taken off the counts


def burst(app, n: int, timeout: float = 600) -> tuple[list[int], float]:
    from sqlalchemy import func, select

    from app.extensions import db
    from app.models import GradingRun
    from app.queue import enqueue_run

    ids = make_runs(app, n)
    t0 = time.perf_counter()
    with app.app_context():
        for run_id in ids:
            enqueue_run(run_id)

        def done() -> bool:
            POLLS[0] += 1
            finished = db.session.scalar(select(func.count()).where(
                GradingRun.id.in_(ids), GradingRun.status.in_(("graded", "error"))))
            db.session.remove()
            return finished == len(ids)

        wait_until(done, timeout, f"{n} gradings", interval=0.2)
    return ids, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--out", default="worker_overhead")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="autograder-overhead-"))
    with fresh_database() as db_url, free_redis_db() as redis_url:
        env = service_env(tmp / "data", db_url, redis_url)
        subprocess_run([str(BIN), "db", "upgrade"], env)
        os.environ["DATA_DIR"] = str(tmp / "data")
        from app import create_app

        app = create_app(SQLALCHEMY_DATABASE_URI=db_url, CELERY_BROKER_URL=redis_url)
        proc = spawn(["worker", "--concurrency", str(args.concurrency)], env, tmp / "worker.log")
        try:
            wait_until(lambda: b" ready." in (tmp / "worker.log").read_bytes(), 180, "the worker")
            burst(app, 2 * args.concurrency)  # every pool process pays its first-grading caches
            time.sleep(1.0)
            before, pg0 = split(proc.pid), pg_counters(app)
            POLLS[0] = 0
            ids, wall = burst(app, args.runs)
            time.sleep(0.5)  # let the zygotes reap the last jails
            after, pg1 = split(proc.pid), pg_counters(app)
            pg1["rollback"] -= POLLS[0]  # our polls (read-only: each ends in a rollback)
            pg1["commit"] -= 1  # the counter query itself
        finally:
            terminate(proc)
        from sqlalchemy import func, select

        from app.extensions import db
        from app.models import GradingRun

        with app.app_context():
            engine_cpu = float(db.session.scalar(select(func.sum(GradingRun.cpu_s)).where(GradingRun.id.in_(ids))))
            statuses = dict(db.session.execute(select(GradingRun.status, func.count()).where(
                GradingRun.id.in_(ids)).group_by(GradingRun.status)).all())
            db.session.remove()
            db.engine.dispose()
    if args.keep_logs:
        print(f"logs kept in {tmp}")
    else:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)

    n = len(ids)
    d = {k: (after[k] - before[k]) / n for k in after}
    in_pool_engine = (engine_cpu / n) - d["pool_children"]
    overhead = d["supervisor"] + d["celery_main"] + d["pool"] - in_pool_engine
    data = {
        "command": " ".join(["python", "bench/worker_overhead.py", *sys.argv[1:]]),
        "load_average_after": os.getloadavg(),
        "runs": n,
        "statuses": statuses,
        "wall_seconds": wall,
        "cpu_per_grading_s": {**d, "engine_in_pool": in_pool_engine, "overhead": overhead,
                              "tree_total": sum(d.values())},
        "postgres_per_grading": {k: (pg1[k] - pg0[k]) / n for k in pg1},
    }
    path = write(args.out, data)
    ms = {k: round(v * 1000, 1) for k, v in data["cpu_per_grading_s"].items()}
    print(f"{n} gradings in {wall:.1f} s, statuses {statuses}")
    print("CPU per grading (ms): " + ", ".join(f"{k} {v}" for k, v in ms.items()))
    print("PostgreSQL per grading: " + ", ".join(f"{k} {v:.1f}" for k, v in data["postgres_per_grading"].items()))
    print(f"worker overhead per grading: {overhead * 1000:.1f} ms; written to {path}")


def subprocess_run(argv: list[str], env: dict[str, str]) -> None:
    import subprocess

    subprocess.run(argv, env=env, check=True, capture_output=True)


if __name__ == "__main__":
    main()
