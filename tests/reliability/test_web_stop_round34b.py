"""Round 34b: a real gunicorn (the Dockerfile's command) stopped with a long poll open.

Before: SIGTERM with one `?wait=20` poll open took 18.4 s (gunicorn's gthread waits for its requests,
and graceful_timeout, 20 s, equals LONGPOLL_MAX_WAIT_S), and a poll could be cut with no answer. Now the
worker's SIGTERM ends its long polls first (gunicorn_conf.post_worker_init -> app.longpoll.stop_waiting):
the poll is answered 200 with the submission's status at once, and the server stops in about a second."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.live import free_port
from tests.reliability.test_clean_stop import healthz
from tests.workers import wait_for

pytestmark = [pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# Before: 18.4 s with a poll of 20 s open. The bound leaves room for a loaded 2-core host.
STOP_S = 6.0

SEED = """
from app import create_app
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.factories import Factory
from tests.web.helpers import GOOD_CODE

app = create_app()
with app.app_context():
    f = Factory()
    student = f.student()
    sub = submit(f.assignment(), student, Upload("attention.py", GOOD_CODE),
                 store=BlobStore(app.config["UPLOAD_DIR"]), max_pending=0)
    print(sub.id, f.token(student))
"""


def test_a_stop_with_a_long_poll_open_answers_the_poll_and_ends_within_seconds(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST") and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DATA_DIR=str(tmp_path / "data"), SECRET_KEY="test-secret")
    subprocess.run([str(BIN / "autograder"), "db", "upgrade"], env=env, check=True, capture_output=True, cwd=ROOT)
    seeded = subprocess.run([sys.executable, "-c", SEED], env=env, check=True, capture_output=True, text=True,
                            cwd=ROOT)
    sub_id, token = seeded.stdout.split()[-2:]
    port = free_port()
    log_path = tmp_path / "web.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([str(BIN / "gunicorn"), "-c", "python:autograder.gunicorn_conf", "-w", "1",
                                 "-b", f"127.0.0.1:{port}", "app.wsgi:app"],
                                env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: healthz(port) is not None, 90, interval=0.3, what="the web server")
        answer: dict = {}

        def poll() -> None:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/submissions/{sub_id}?wait=20",
                                         headers={"Authorization": f"Bearer {token}"})
            try:
                with urllib.request.urlopen(req, timeout=40) as resp:
                    answer.update(status=resp.status, body=json.loads(resp.read()), at=time.monotonic())
            except OSError as exc:   # cut with no answer
                answer.update(error=repr(exc), at=time.monotonic())

        thread = threading.Thread(target=poll)
        thread.start()
        time.sleep(2.0)   # the poll is parked in its wait
        assert thread.is_alive() and not answer, answer
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        took = time.monotonic() - started
        thread.join(30)
        print(f"stop took {took:.1f} s; the poll: {answer.get('status') or answer.get('error')} "
              f"after {answer['at'] - started:.1f} s")
        assert "error" not in answer, f"the poll was cut: {answer}"
        assert answer["status"] == 200 and answer["body"]["status"] == "queued"
        assert answer["at"] - started < STOP_S
        assert took < STOP_S, f"gunicorn took {took:.1f} s to stop with a long poll open"
    except BaseException:
        sys.stdout.write(log_path.read_text(errors="replace")[-4000:])
        raise
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
