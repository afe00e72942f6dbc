"""The instructor's page of one student with many attempts (a student who uploaded 55 times before
a deadline). Seeds one student with ``--attempts`` graded attempts (real grading results, real code
files in the blob store, each slightly different) with bench/dashboard.py's seeding, then renders
`/instructor/students/<id>` cold once and warm ``--repeats`` times through the Flask test client,
counting SQL statements. Writes bench/results/student_page.json; the database is dropped.

    .venv/bin/python bench/student_page.py [--attempts 55] [--repeats 5] [--query show=all]

Needs PostgreSQL (admin URL from BENCH_PG_ADMIN_URL or TEST_PG_ADMIN_URL, see bench/load.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402
from bench.dashboard import SAMPLES, measure, migrated_app, page_line, real_results, seed  # noqa: E402
from bench.load import fresh_database  # noqa: E402


def store_code(app) -> int:
    """Give every seeded attempt a real code file (the reference with its attempt number in a
    comment, so no two blobs are equal); returns the student's id."""
    from sqlalchemy import select

    from app.extensions import db
    from app.models import Blob, Submission
    from app.storage import BlobStore

    code = SAMPLES[0].read_bytes()
    with app.app_context():
        store = BlobStore(app.config["UPLOAD_DIR"])
        subs = db.session.scalars(select(Submission)).all()
        for s in subs:
            digest = store.put(code + f"\n# attempt {s.attempt}\n".encode())
            if db.session.get(Blob, digest) is None:
                db.session.add(Blob(sha256=digest, size=len(code)))
            s.code_sha256 = digest
        db.session.commit()
        return subs[0].student_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=55)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--query", default="", help="extra query string, e.g. show=all")
    args = parser.parse_args()

    results = real_results()
    with fresh_database("autograder_student_page") as db_url, tempfile.TemporaryDirectory() as tmp:
        from app.extensions import db

        app = migrated_app(db_url, tmp)
        seeded = seed(app, 1, args.attempts, results)
        student_id = store_code(app)
        path = f"/instructor/students/{student_id}?a=attention" + (f"&{args.query}" if args.query else "")
        page = measure(app, seeded["teacher_id"], path, args.repeats)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    page.pop("statements")
    data = {"attempts": args.attempts, "page": page}
    out = write("student_page" + ("_" + args.query.replace("=", "_") if args.query else ""), data)
    print(page_line(page))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
