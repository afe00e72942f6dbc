"""Web hardening numbers, through HTTP against the production server command (gunicorn with
threads) on a fresh PostgreSQL database and a free Redis database:

1. sign-in time for a real account (wrong password) and for an unknown account (median of N);
2. `GET /login` latency while one user holds 30 long polls (`?wait=`) on a queued attempt, under
   `gunicorn -w W --threads 8`, and how those 30 polls were answered (waited / refused 429).

    .venv/bin/python bench/websec.py [--tries 15] [--workers 1]

Writes bench/results/websec.json. Needs the same servers as bench/load.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import summary, write  # noqa: E402
from bench.load import free_redis_db, fresh_database, service_env  # noqa: E402
from tests.live import Client, gunicorn  # noqa: E402

PASSWORD = "bench-password-1"


def seed(db_url: str, data_dir: Path) -> tuple[str, int]:
    """Migrate, add one student with a password, a token and one queued attempt."""
    os.environ["DATA_DIR"] = str(data_dir)
    from flask_migrate import upgrade

    from app import create_app
    from app.assignments import ensure_assignment
    from app.extensions import db
    from app.models import ApiToken, User
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    app = create_app(SQLALCHEMY_DATABASE_URI=db_url, CELERY_BROKER_URL="memory://")
    with app.app_context():
        upgrade()
        a = ensure_assignment("attention", "Attention", "attention")
        user = User(email="student@bench.example.edu", role="student")
        user.set_password(PASSWORD)
        db.session.add(user)
        row, token = ApiToken.issue(user)
        db.session.add(row)
        db.session.commit()
        code = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_bytes()
        sub = submit(a, user, Upload("attention.py", code), store=BlobStore(app.config["UPLOAD_DIR"]))
        sub_id = sub.id
        db.engine.dispose()
    return token, sub_id


def sign_in_times(port: int, email: str, tries: int) -> list[float]:
    times = []
    for i in range(tries):
        # A fresh forwarded address per try, so the failure limits never answer instead.
        client = Client(port, headers={"X-Forwarded-For": f"10.77.{i // 250}.{i % 250}"})
        times.append(client.sign_in(email, "wrong password").seconds)
    return times


def long_poll_storm(port: int, token: str, sub_id: int, polls: int = 30) -> dict:
    replies = []

    def poll() -> None:
        replies.append(Client(port).get(f"/api/v1/submissions/{sub_id}?wait=5",
                                        headers={"Authorization": f"Bearer {token}"}))

    threads = [threading.Thread(target=poll) for _ in range(polls)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    login = []
    while any(t.is_alive() for t in threads) and len(login) < 20:
        login.append(Client(port).get("/login").seconds)
        time.sleep(0.1)
    for t in threads:
        t.join()
    return {
        "login_seconds": summary(login),
        "polls_waited": sum(r.status == 200 for r in replies),
        "polls_refused_429": sum(r.status == 429 for r in replies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=15)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    with fresh_database("autograder_websec") as db_url, free_redis_db() as redis_url, \
            tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        token, sub_id = seed(db_url, data)
        env = service_env(data, db_url, redis_url)
        env["PROXY_COUNT"] = "1"  # lets the bench vary its (forwarded) address
        with gunicorn(env, data / "gunicorn.log", workers=args.workers, threads=8) as port:
            Client(port).get("/login")  # warm the worker
            known = sign_in_times(port, "student@bench.example.edu", args.tries)
            unknown = sign_in_times(port, "nobody@bench.example.edu", args.tries)
            storm = long_poll_storm(port, token, sub_id)
    result = {
        "command": f"gunicorn -w {args.workers} --threads 8 app.wsgi:app",
        "sign_in_known_account_s": summary(known),
        "sign_in_unknown_account_s": summary(unknown),
        "login_during_30_long_polls": storm,
    }
    path = write(f"websec_w{args.workers}", result)
    print(f"sign-in, real account (wrong password): median {result['sign_in_known_account_s']['median'] * 1000:.0f} ms")
    print(f"sign-in, unknown account:               median {result['sign_in_unknown_account_s']['median'] * 1000:.0f} ms")
    s = storm["login_seconds"]
    print(f"GET /login during 30 long polls by one user: median {s['median'] * 1000:.0f} ms, "
          f"max {s['max'] * 1000:.0f} ms; polls waited {storm['polls_waited']}, refused {storm['polls_refused_429']}")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
