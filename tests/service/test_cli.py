"""The `autograder` console script, run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent / "autograder"


def cli(*args: str, env: dict, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), *args], env=env, capture_output=True, text=True, timeout=120, input=input)


@pytest.fixture
def env(tmp_path: Path) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY")}
    e["DATA_DIR"] = str(tmp_path / "data")
    return e


@pytest.mark.slow   # a cold start of the CLI (torch, zygote): ~15 s
def test_db_upgrade_then_users_and_tokens_on_the_embedded_default(env, tmp_path):
    up = cli("db", "upgrade", env=env)
    assert up.returncode == 0, up.stderr
    assert (tmp_path / "data" / "autograder.sqlite").exists()
    assert (tmp_path / "data" / "secret_key").stat().st_mode & 0o077 == 0, "the generated key is private"

    add = cli("user", "add", "ta@example.edu", "--role", "instructor", "--name", "TA", "--password", "pw-123456", env=env)
    assert add.returncode == 0 and "created instructor" in add.stdout
    tok = cli("token", "ta@example.edu", env=env)
    assert tok.returncode == 0
    assert tok.stdout.strip().splitlines()[-1].startswith("ag_")

    missing = cli("token", "nobody@example.edu", env=env)
    assert missing.returncode != 0 and "no user" in missing.stderr


@pytest.mark.parametrize("command", [
    [str(Path(sys.executable).parent / "gunicorn"), "-c", "python:autograder.gunicorn_conf", "--threads", "6",
     "-b", "127.0.0.1:0", "app.wsgi:app"],
    [str(BIN), "web", "--port", "0", "--threads", "6"],
], ids=["gunicorn-command-of-the-dockerfile", "autograder-web"])
@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_a_web_server_whose_threads_waits_could_all_take_refuses_to_start_and_says_why(env, command):
    # DECODE_SLOTS 2 + DECODE_QUEUE 2 + LONGPOLL_SLOTS 4 + LONGPOLL_LIST_SLOTS 0 = 8 waits against 6 threads:
    # sign-in would stop answering under load, so nothing is served and no worker is forked.
    env = {**env, "DECODE_SLOTS": "2", "DECODE_QUEUE": "2", "LONGPOLL_SLOTS": "4", "LONGPOLL_LIST_SLOTS": "0"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 2, done.stderr
    assert "refusing to start: gunicorn --threads 6 leaves no thread for pages" in done.stderr
    assert "Give gunicorn at least 9 threads" in done.stderr
    assert "Booting worker" not in done.stderr


def test_autograder_web_serves_with_the_settings_the_dockerfile_loads():
    # `autograder web` builds gunicorn in Python; the Dockerfile passes -c python:autograder.gunicorn_conf.
    # Every setting but bind, workers and threads (the command line's) must come out the same.
    from gunicorn.app.wsgiapp import WSGIApplication

    from autograder.server import _Server

    ours = _Server({"bind": "127.0.0.1:0", "workers": 3, "threads": 20}).cfg
    argv, sys.argv = sys.argv, ["gunicorn", "-c", "python:autograder.gunicorn_conf", "app.wsgi:app"]
    try:
        dockerfile = WSGIApplication().cfg
    finally:
        sys.argv = argv
    differ = {k for k in dockerfile.settings if ours.settings[k].get() != dockerfile.settings[k].get()}
    # config and default_proc_name record the command line itself (-c ..., app.wsgi:app)
    assert differ - {"config", "default_proc_name"} == {"bind", "workers", "threads"}
    assert ours.worker_class_str == "gthread" and ours.on_starting.__module__ == "autograder.gunicorn_conf"
    assert (ours.threads, ours.workers, ours.bind) == (20, 3, ["127.0.0.1:0"])


@pytest.mark.postgres
@pytest.mark.slow   # CLI subprocesses (8-17 s under load): the fast lane stays under 10 minutes
def test_db_upgrade_on_postgres(env, pg_url):
    env["DATABASE_URL"] = pg_url.replace("postgresql+psycopg://", "postgresql://")
    up = cli("db", "upgrade", env=env)
    assert up.returncode == 0, up.stderr
    demo = cli("demo", env=env)
    assert demo.returncode == 0 and "alice@example.edu" in demo.stdout


@pytest.mark.slow   # CLI subprocesses (8-17 s under load): the fast lane stays under 10 minutes
def test_regrade_needs_exactly_one_selector(env):
    assert cli("db", "upgrade", env=env).returncode == 0
    res = cli("regrade", env=env)
    assert res.returncode == 2 and "exactly one" in res.stderr


@pytest.mark.slow   # CLI subprocesses (8-17 s under load): the fast lane stays under 10 minutes
def test_assignment_add_sets_deadline_late_policy_and_cooldown(env):
    assert cli("db", "upgrade", env=env).returncode == 0
    res = cli("assignment", "add", "attention", "--title", "Attention", "--deadline", "2026-12-20T23:59",
              "--late-penalty", "0.2", "--late-days", "2", "--cooldown", "60", env=env)
    assert res.returncode == 0, res.stderr
    assert "-20%/day for 2 day(s), cooldown 60 s" in res.stdout
    bad = cli("assignment", "add", "x", "--title", "X", "--suite", "no_such_suite", env=env)
    assert bad.returncode == 1 and "no acceptance suite" in bad.stderr


@pytest.mark.slow     # starts a worker and waits for regrades (~15 s): run in the slow lane
def test_regrade_queues_new_runs_and_keeps_the_old_ones(env, tmp_path):
    assert cli("db", "upgrade", env=env).returncode == 0
    assert cli("demo", env=env).returncode == 0
    seed = (
        "from app import create_app\n"
        "from app.extensions import db\n"
        "from app.models import Assignment, User\n"
        "from app.storage import BlobStore\n"
        "from app.submitting import Upload, submit\n"
        "app = create_app()\n"
        "with app.app_context():\n"
        "    alice = db.session.query(User).filter_by(email='alice@example.edu').one()\n"
        "    a = db.session.query(Assignment).one()\n"
        "    code = open('tests/fixtures/submissions/correct/reference.py', 'rb').read()\n"
        "    print(submit(a, alice, Upload('attention.py', code), store=BlobStore(app.config['UPLOAD_DIR'])).id)\n"
    )
    import sys

    root = Path(__file__).resolve().parents[2]
    made = subprocess.run([sys.executable, "-c", seed], env=env, cwd=root, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    sub_id = made.stdout.strip().splitlines()[-1]
    # No worker runs here: the upload's own run is still queued, and a regrade must not grade it twice.
    waiting = cli("regrade", "--submission", sub_id, env=env)
    assert waiting.returncode == 0, waiting.stderr
    assert "queued 0 run(s) (1 attempt(s) still waiting for their first grading" in waiting.stdout
    ended = (
        "from app import create_app\nfrom app.extensions import db\nfrom app.models import GradingRun\n"
        "app = create_app()\nwith app.app_context():\n"
        "    db.session.query(GradingRun).update({GradingRun.status: 'error'})\n    db.session.commit()\n"
    )
    assert subprocess.run([sys.executable, "-c", ended], env=env, cwd=root).returncode == 0
    one = cli("regrade", "--submission", sub_id, env=env)
    assert one.returncode == 0 and "scope submission): queued 1 run(s)" in one.stdout, one.stderr
    by_student = cli("regrade", "--student", "alice@example.edu", env=env)
    assert "scope student): queued 1 run(s)" in by_student.stdout
    everyone = cli("regrade", "--scope", "counting", env=env)
    assert "scope counting): queued 1 run(s)" in everyone.stdout
    check = (
        "from app import create_app\nfrom app.extensions import db\nfrom app.models import GradingRun\n"
        "app = create_app()\nwith app.app_context():\n"
        "    print(sorted(r.trigger.split(':')[0] for r in db.session.query(GradingRun)))\n"
    )
    runs = subprocess.run([sys.executable, "-c", check], env=env, cwd=root, capture_output=True, text=True)
    assert runs.stdout.strip() == "['batch', 'batch', 'batch', 'submit']", runs.stdout + runs.stderr
    missing = cli("regrade", "--submission", "999", env=env)
    assert missing.returncode == 1 and "no submission 999" in missing.stderr
