"""`autograder worker`'s supervisor and a stop that comes while it starts the Celery worker."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# SIGTERM lands while the supervisor is inside Popen, before ``child`` names the new process:
# the handler had no child to pass it to, so the supervisor waited on a worker nobody had stopped
# (under `autograder run`, for its whole 30 s stop wait, then SIGKILL).
SCRIPT = """
import os, signal, subprocess, sys
from worker import supervisor

real_popen = subprocess.Popen

def popen_during_a_stop(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return real_popen(*args, **kwargs)

supervisor.subprocess.Popen = popen_during_a_stop
sys.exit(supervisor.supervise([sys.executable, "-c", "import time; time.sleep(60)"]))
"""


def test_a_stop_that_comes_while_the_worker_is_being_started_reaches_it():
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=20)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert took < 8, f"the supervisor took {took:.1f} s: its child never got the stop"
    assert "stopped (exit -15) after signal 15" in proc.stderr, proc.stderr[-2000:]
