"""`autograder run` stops everything on SIGTERM, as on Ctrl-C: systemd and `docker stop` send
SIGTERM, and nothing may be left running or holding the port afterwards."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.reliability.services import free_port
from tests.workers import BIN, descendant_pids, wait_for

pytestmark = [pytest.mark.slow]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in (b"Z", b"X")


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def healthz(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return json.loads(exc.read() or b"{}")
    except OSError:
        return None


def start_run(tmp_path: Path, preexec_fn=None) -> tuple[subprocess.Popen, int]:
    """`autograder run --concurrency 1` on SQLite in ``tmp_path``, leading its own group, its output in
    ``tmp_path / "run.log"``; returns the process and its port."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST") and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DATA_DIR=str(tmp_path / "data"), SECRET_KEY="test-secret", HEARTBEAT_INTERVAL_S="1")
    subprocess.run([str(BIN), "db", "upgrade"], env=env, check=True, capture_output=True)
    port = free_port()
    log = open(tmp_path / "run.log", "wb")
    proc = subprocess.Popen([str(BIN), "run", "--port", str(port), "--concurrency", "1"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec_fn)
    log.close()
    return proc, port


@contextmanager
def running(tmp_path: Path, preexec_fn=None) -> Iterator[tuple[subprocess.Popen, int]]:
    """start_run, then: on a failure the run's log is printed; in the end its group is killed."""
    proc, port = start_run(tmp_path, preexec_fn=preexec_fn)
    try:
        yield proc, port
    except BaseException:
        sys.stdout.write((tmp_path / "run.log").read_text(errors="replace")[-4000:])
        raise
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _as_a_background_job() -> None:
    # What a non-interactive shell does to `cmd &`: SIGINT ignored, which Python then keeps.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(("sig", "background", "group"),
                         [(signal.SIGTERM, False, False), (signal.SIGINT, False, False),
                          (signal.SIGINT, True, False), (signal.SIGINT, False, True)],
                         ids=["SIGTERM", "SIGINT", "SIGINT_to_a_background_job", "ctrl_c_in_a_terminal"])
def test_autograder_run_stops_web_workers_and_zygotes_on_sigterm_as_on_ctrl_c(tmp_path, sig, background, group):
    """``group``: the signal goes to the whole process group, as a terminal's Ctrl-C does (round 25: after
    such a stop the Celery worker was left running, blocked on a pool lock, in 3 of 4 manual stops)."""
    with running(tmp_path, preexec_fn=_as_a_background_job if background else None) as (proc, port):
        body = wait_for(lambda: (h := healthz(port)) and h.get("workers", {}).get("count") and h, 180,
                        interval=0.5, what="the web server and a beating worker")
        assert body["database"]["dialect"] == "sqlite"

        def with_zygote() -> dict[int, str] | None:
            names = {pid: cmdline(pid) for pid in descendant_pids(proc.pid)}
            return names if any("grading.sandbox.zygote" in c for c in names.values()) else None

        names = wait_for(with_zygote, 120, interval=0.5, what="a warm sandbox zygote")
        family = set(names)
        assert any(" web " in c for c in names.values()), names
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        assert proc.wait(timeout=90) == 0
        left = {pid: names[pid] for pid in family if alive(pid)}
        assert not left, f"still running after {sig.name}: {left}"
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
