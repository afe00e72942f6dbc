"""Round 31: an idle `autograder run` took 8-9 s to stop on SIGTERM or Ctrl-C (measured on a loaded
2-core host): 2-3 s in the Celery loop's waits for the embedded broker, which read the stop only
every 2 s (worker/polling.py), and 0.5-1.3 s per process tearing its interpreter down, one after
the other (autograder/exiting.py). It now stops in about 1-1.5 s, with the guarantees of
test_clean_stop.py: exit code 0, nothing of it left running, the port free."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from tests.reliability.test_clean_stop import alive, cmdline, healthz, running
from tests.workers import descendant_pids, wait_for

pytestmark = [pytest.mark.slow]

# Before: 8-9 s. The bound leaves room for a loaded machine without letting the old stop pass.
IDLE_STOP_S = 5.0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "ctrl_c"])
def test_an_idle_run_stops_within_seconds_and_leaves_nothing(tmp_path, sig):
    with running(tmp_path) as (proc, port):
        wait_for(lambda: (h := healthz(port)) and h.get("workers", {}).get("count"), 180, interval=0.5,
                 what="the web server and a beating worker")
        # Idle: the pool process has warmed its sandbox and waits for work, as between two deadlines.
        names = wait_for(lambda: (n := {pid: cmdline(pid) for pid in descendant_pids(proc.pid)}) and any(
            "grading.sandbox.zygote" in c for c in n.values()) and n, 120, interval=0.5, what="a warm zygote")
        time.sleep(2)
        family = set(names)
        started = time.monotonic()
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)    # a terminal's Ctrl-C reaches the whole foreground group
        else:
            proc.send_signal(sig)
        assert proc.wait(timeout=90) == 0
        took = time.monotonic() - started
        assert took < IDLE_STOP_S, f"an idle run took {took:.1f} s to stop"
        left = {pid: names[pid] for pid in family if alive(pid)}
        assert not left, f"still running after {sig.name}: {left}"
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
