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


def service_env(data_dir: Path, db_url: str, redis_url: str, **extra: object) -> dict[str, str]:
    """The environment of a service process; ``extra`` adds settings (e.g. SWEEP_INTERVAL_S=2)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(DATA_DIR=str(data_dir), DATABASE_URL=db_url, REDIS_URL=redis_url, SECRET_KEY="test-secret")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def start_worker(env: dict[str, str], name: str, concurrency: int = 1, log: Path | None = None) -> subprocess.Popen:
    """Start `autograder worker` in its own process group (its pool and sandbox processes join it)."""
    out = open(log, "ab") if log else subprocess.DEVNULL
    try:
        return subprocess.Popen(
            [str(BIN), "worker", "--concurrency", str(concurrency), "--name", f"{name}@%h"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        if log:
            out.close()  # the child holds its own descriptor


@contextmanager
def running_worker(
    env: dict[str, str],
    name: str,
    concurrency: int = 1,
    log: Path | None = None,
    ready_timeout: float | None = None,
):
    """Start `autograder worker`, stop it (and everything in its process group) afterwards.

    With ``ready_timeout`` (needs ``log``) wait until the worker reports ready, i.e. its pool
    processes have started (and warmed their sandboxes)."""
    proc = start_worker(env, name, concurrency, log)
    try:
        if ready_timeout is not None:
            wait_ready(proc, log, ready_timeout)
        yield proc
    finally:
        stop(proc)


def wait_ready(proc: subprocess.Popen, log: Path | None, timeout: float = 60) -> None:
    """Wait for Celery's "<name> ready." line in the worker's log."""
    if log is None:
        raise ValueError("wait_ready needs the worker's log file")

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"worker exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        return log.exists() and b" ready." in log.read_bytes()

    wait_for(ready, timeout, what=f"worker ready (log {log})")


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the worker's whole process group (main, pool and sandbox processes): a crash."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM the main process (Celery's warm shutdown), then SIGKILL whatever is left of the group.

    Only the main process: a pool process SIGTERMed while holding the pool's queue lock can
    deadlock billiard's shutdown (seen here), which is also why operators should signal the
    main process, not the whole group."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=timeout)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
    # Pool or sandbox processes may outlive the main process: never leave them behind.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def child_pids(pid: int) -> set[int]:
    """Direct children of ``pid`` (Linux /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(b")", 1)[1].split()
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def descendant_pids(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren, ...)."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        kids = child_pids(frontier.pop())
        frontier.extend(kids - found)
        found |= kids
    return found


def wait_for(predicate, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
