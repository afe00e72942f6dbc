"""`autograder run` in a real terminal: Ctrl-C is the byte 0x03 written to a pty, turned into SIGINT
for the terminal's foreground process group by the line discipline, as a person's Ctrl-C is.

Round 26 reproduced what the group-signal test of test_clean_stop.py never did: a Ctrl-C while the
worker grades (or warms its pool) made `run` wait its whole 30 s for Celery's warm shutdown, a second
Ctrl-C was ignored, and a hang-up meanwhile (the terminal window closed: SIGHUP) cut the stop short,
so `run` exited at once and left the supervisor, the Celery worker, its pool process, the grading
child and the zygote running, with nobody to stop them.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import socket
import subprocess
import termios
import threading
import time
from pathlib import Path

import pytest

from tests.reliability.helpers import CORRECT, api_upload
from tests.reliability.services import free_port
from tests.reliability.test_clean_stop import alive, cmdline, healthz
from tests.workers import BIN, descendant_pids, wait_for

pytestmark = [pytest.mark.slow]

# A correct file whose every forward sleeps: its grading lasts past `run`'s 30 s stop wait.
SLOW = CORRECT + (b"\nimport time as _time\n_forward = ScaledDotProductAttention.forward\n"
                  b"def _slow(self, *a, **k):\n    _time.sleep(2)\n    return _forward(self, *a, **k)\n"
                  b"ScaledDotProductAttention.forward = _slow\n")


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class Terminal:
    """A pty whose slave is the controlling terminal of `autograder run`, the session's leader and
    foreground group, as a shell with job control makes a foreground command; the master is drained
    into a log, as a terminal emulator reads it."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.master, slave = pty.openpty()

        def controlling_tty() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(argv, env=env, stdin=slave, stdout=slave, stderr=slave,
                                     preexec_fn=controlling_tty, close_fds=True)
        os.close(slave)
        self.log = log
        self.family: dict[int, str] = {}
        self._done = threading.Event()
        self._hang_up = threading.Event()
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()
        threading.Thread(target=self._track, daemon=True).start()

    def _drain(self) -> None:
        with open(self.log, "wb") as out:
            while not self._hang_up.is_set():
                if not select.select([self.master], [], [], 0.1)[0]:
                    continue
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                out.write(chunk)
                out.flush()
        # Closed here, by the only reader: a close from another thread while a read is in progress
        # leaves the terminal open until that read returns.
        os.close(self.master)

    def _track(self) -> None:
        # Every process of the tree ever seen: one that outlives `run` is no longer its descendant.
        while not self._done.is_set():
            for pid in descendant_pids(self.proc.pid):
                if pid not in self.family:
                    self.family[pid] = f"{comm(pid)}: {cmdline(pid)[:100]}"
            time.sleep(0.05)

    def ctrl_c(self) -> None:
        os.write(self.master, b"\x03")

    def hang_up(self) -> None:
        # What closing the window does: the pty's master goes, the kernel sends SIGHUP to the session.
        self._done.set()
        self._hang_up.set()
        self._drainer.join(timeout=5)

    def left(self) -> dict[int, str]:
        self._done.set()
        return {pid: what for pid, what in self.family.items() if alive(pid)}

    def kill_all(self) -> None:
        self._done.set()
        for pid in [self.proc.pid, *self.family]:
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


@pytest.mark.parametrize("second", ["ctrl_c_again", "terminal_closed"])
def test_a_second_ctrl_c_or_a_hang_up_while_run_stops_a_grading_worker_leaves_nothing(tmp_path, second):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST") and k not in ("DATABASE_URL", "REDIS_URL")}
    # the slow file sleeps in every call: round 27's idle limits, raised, let its grading last as it did
    env.update(DATA_DIR=str(tmp_path / "data"), SECRET_KEY="test-secret", HEARTBEAT_INTERVAL_S="1",
               IDLE_WINDOW_S="60", IDLE_TOTAL_S="120")
    for argv in (["db", "upgrade"], ["demo"]):
        subprocess.run([str(BIN), *argv], env=env, check=True, capture_output=True)
    token = subprocess.run([str(BIN), "token", "alice@example.edu"], env=env, check=True, capture_output=True,
                           text=True).stdout.strip().splitlines()[-1]
    port = free_port()
    term = Terminal([str(BIN), "run", "--port", str(port), "--concurrency", "1"], env, tmp_path / "tty.log")
    try:
        wait_for(lambda: (h := healthz(port)) and h.get("workers", {}).get("count"), 180, interval=0.5,
                 what="the web server and a beating worker")
        status, body = api_upload(f"http://127.0.0.1:{port}", token, SLOW)
        assert status == 202, body
        wait_for(lambda: any(comm(p) == "ag-tests" for p in descendant_pids(term.proc.pid)), 180, interval=0.2,
                 what="a grading in progress (its forked test process)")
        time.sleep(1)
        term.ctrl_c()
        time.sleep(2)
        assert term.proc.poll() is None, "run stopped at the first Ctrl-C: the grading did not hold the worker"
        t0 = time.monotonic()
        if second == "ctrl_c_again":
            term.ctrl_c()
        else:
            term.hang_up()
        code = term.proc.wait(timeout=60)
        took = time.monotonic() - t0
        # The tree goes with `run` (the zygote's jails have PDEATHSIG: a second or two).
        time.sleep(3)
        left = term.left()
        assert not left, f"still running 3 s after run exited ({code}): {left}"
        assert took < 15, f"run took {took:.1f} s to stop after the {second}"
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except BaseException:
        print((tmp_path / "tty.log").read_text(errors="replace")[-4000:])
        raise
    finally:
        term.kill_all()
