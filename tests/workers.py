"""Real Celery worker processes for integration tests: started as users start them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

BIN = Path(sys.executable).parent / "autograder"


def service_env(data_dir: Path, db_url: str, redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(DATA_DIR=str(data_dir), DATABASE_URL=db_url, REDIS_URL=redis_url, SECRET_KEY="test-secret")
    return env


@contextmanager
def running_worker(env: dict[str, str], name: str, concurrency: int = 1, log: Path | None = None):
    """Start `autograder worker`, wait until its pool processes beat, stop it afterwards."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(
        [str(BIN), "worker", "--concurrency", str(concurrency), "--name", f"{name}@%h"],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        stop(proc)
        if log:
            out.close()


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def wait_for(predicate, timeout: float, interval: float = 0.2, what: str = "condition"):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
