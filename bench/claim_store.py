"""CPU of the worker's database work per grading: `worker.runs.claim` + `store_result` in this
process, on a fresh PostgreSQL database, with new code in every attempt (as students upload) and
a result of the real size (31 tests with bilingual feedback, an 8 KB log); plus one heartbeat.
Process CPU time (time.process_time), so other work on the machine changes little.

    .venv/bin/python bench/claim_store.py [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402
from bench.load import BIN, CORRECT, fresh_database  # noqa: E402

RESULT = {
    "status": "graded", "message": None, "total": 85, "max_total": 100, "grader_version": "bench",
    "categories": {f"category_{i}": {"score": 1, "max": 2} for i in range(4)}, "log": "x" * 8000,
    "measurements": {f"measure_{i}": 1e-7 for i in range(20)}, "cpu_s": 0.1,
    "tests": [{"id": f"tests/test_attention.py::test_{i}", "category": "formula_shape", "outcome": "passed",
               "points": 1, "max_points": 1, "hidden": i > 25,
               "feedback": {"en": "Output matches the reference within 1e-5. " * 2, "zh": "输出与参考一致。" * 3}}
              for i in range(31)],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--out", default="claim_store")
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="autograder-claim-store-")
    with fresh_database("autograder_claim_store") as url:
        env = dict(os.environ, DATABASE_URL=url, DATA_DIR=data_dir)
        subprocess.run([str(BIN), "db", "upgrade"], env=env, check=True, capture_output=True)
        os.environ["DATA_DIR"] = data_dir
        from app import create_app
        from app.assignments import ensure_assignment
        from app.extensions import db
        from app.models import GradingRun, Submission, User
        from app.storage import BlobStore
        from worker import heartbeat, runs

        app = create_app(SQLALCHEMY_DATABASE_URI=url, CELERY_BROKER_URL="memory://")
        with app.app_context():
            assignment = ensure_assignment("attention", "Attention", "attention")
            user = User(email="bench@bench.example.edu", name="Bench", role="student")
            db.session.add(user)
            db.session.flush()
            store = BlobStore(Path(data_dir) / "uploads")
            ids = []
            for i in range(args.runs + 5):
                sha = store.put(CORRECT.read_bytes() + f"# attempt {i}\n".encode())
                sub = Submission(assignment_id=assignment.id, student_id=user.id, attempt=i + 1, code_sha256=sha)
                run = GradingRun(submission=sub)
                db.session.add_all([sub, run])
                db.session.flush()
                ids.append(run.id)
            db.session.commit()
            db.session.remove()

            def grading(run_id: int) -> None:
                assert runs.claim(run_id, "bench:1", store) is not None
                db.session.remove()  # as the task does before the sandbox run
                assert runs.store_result(run_id, "bench:1", dict(RESULT))
                db.session.remove()

            for run_id in ids[:5]:  # warm: statement caches, connections
                grading(run_id)
            t0 = time.process_time()
            for run_id in ids[5:]:
                grading(run_id)
            per_grading = (time.process_time() - t0) / args.runs
            t0 = time.process_time()
            for _ in range(args.runs):
                heartbeat.beat("bench:1", "bench")
                db.session.remove()
            per_beat = (time.process_time() - t0) / args.runs
            db.session.remove()
            db.engine.dispose()
    data = {"command": " ".join(["python", "bench/claim_store.py", *sys.argv[1:]]), "runs": args.runs,
            "claim_and_store_cpu_s": per_grading, "heartbeat_cpu_s": per_beat}
    path = write(args.out, data)
    print(f"claim + store: {per_grading * 1000:.2f} ms CPU per grading; heartbeat {per_beat * 1000:.2f} ms CPU "
          f"per beat ({args.runs} each); written to {path}")


if __name__ == "__main__":
    main()
