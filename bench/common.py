"""Helpers shared by the benchmarks: timing a bare torch import in the same run, writing results."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def bare_torch_import_seconds(repeats: int = 5) -> list[float]:
    """Wall time of `python -c "import torch"`, the cost every grading would pay without a warm sandbox."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - t0)
    return times


def proc_stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3 of stat(5) is index 0)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def session_processes(sid: int) -> dict[int, tuple[int, float, float]]:
    """pid -> (ppid, own CPU s, reaped children's CPU s) of every live process of session ``sid``
    (a service started with start_new_session: its whole tree), read from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = proc_stat(entry)
        except OSError:
            continue
        if int(fields[3]) == sid:      # field 6 of stat, after the command: the session id
            out[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick,
                               (int(fields[13]) + int(fields[14])) / tick)
    return out


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(values),
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))],
        "min": ordered[0],
        "max": ordered[-1],
    }


def write(name: str, data: dict) -> Path:
    RESULTS.mkdir(exist_ok=True)
    data = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count()}, **data}
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
