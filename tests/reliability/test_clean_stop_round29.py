"""Round 29: one Ctrl-C of `autograder run` while its pool process warms up (torch import in the
zygote, suites) waited for the warm-up to end: Celery's warm shutdown joins the pool, and a process
still in its initializer reads the pool's stop only after it. Measured 25.7 s on a loaded host, and
`run`'s whole RUN_STOP_WAIT_S (30 s) when the warm-up lasts longer. The pool's stop now ends a process
that is still warming (worker.lifecycle.WarmupStop): it holds no task.

The warm-up is made to last by stopping the zygote (SIGSTOP) before it says it is ready, so the pool
process waits for it as it does on a slow host, whatever this host's speed."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from tests.reliability.test_clean_stop import alive, cmdline, healthz, start_run
from tests.workers import descendant_pids, wait_for

pytestmark = [pytest.mark.slow]

# What a warmed, idle `run` takes to stop on this 2-core host under the other tests' load: ~8 s.
PROMPT_S = 20.0


def test_one_ctrl_c_while_the_pool_process_warms_up_stops_run_promptly(tmp_path):
    from autograder.cli import RUN_STOP_WAIT_S

    assert PROMPT_S < RUN_STOP_WAIT_S
    proc, port = start_run(tmp_path)
    family: dict[int, str] = {}
    try:
        def zygote() -> int | None:
            for pid in descendant_pids(proc.pid):
                family.setdefault(pid, cmdline(pid))
                if "grading.sandbox.zygote" in family[pid]:
                    return pid
            return None

        frozen = wait_for(zygote, 180, interval=0.02, what="the pool process starting its zygote")
        os.kill(frozen, signal.SIGSTOP)     # its torch import takes seconds: it has not said ready
        wait_for(lambda: (h := healthz(port)) is not None and h, 120, interval=0.5, what="the web server")
        time.sleep(1)
        assert proc.poll() is None
        family.update({pid: cmdline(pid) for pid in descendant_pids(proc.pid)})
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: `run` leads its own group
        t0 = time.monotonic()
        assert proc.wait(timeout=RUN_STOP_WAIT_S + 30) == 0
        took = time.monotonic() - t0
        assert took < PROMPT_S, f"run took {took:.1f} s to stop while its pool process warmed up"
        text = (tmp_path / "run.log").read_text(errors="replace")
        assert "the pool was stopped while this process warmed up" in text, text[-3000:]
        time.sleep(1)
        left = {pid: what for pid, what in family.items() if alive(pid)}
        assert not left, f"still running after run exited: {left}"
    except BaseException:
        sys.stdout.write((tmp_path / "run.log").read_text(errors="replace")[-4000:])
        raise
    finally:
        for pid in [proc.pid, *family]:
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
