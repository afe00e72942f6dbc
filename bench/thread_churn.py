"""What thread churn costs the zygote (round 41, brief E item 3): one jail starting and joining threads without end
for SECONDS of wall, alone or beside a host process doing the same (HOST=1), with the zygote's CPU (its
/proc/<pid>/stat, user + system) read before and after. The zygote's thread watch (zygote.ThreadWatch) reads one
kernel event per thread start and one per end: this is the cost that was 0.38 s in 9.2 s (round 40).
Run: .venv/bin/python -m bench.thread_churn [SECONDS] [HOST]"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from grading.forking import cpu_seconds
from grading.sandbox import Executor, Limits

CHURN = '''
import threading, time
def churn(seconds):
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = threading.Thread(target=int)
        t.start()
        t.join()
        n += 1
    return n
'''
HOST_CHURN = ("import threading, time\nend = time.monotonic() + float(__import__('sys').argv[1])\n"
              "while time.monotonic() < end:\n    t = threading.Thread(target=int); t.start(); t.join()\n")


def run(seconds: float, host: bool) -> dict:
    ex = Executor(Limits(cpu=seconds + 5, wall=seconds + 10, call_timeout=seconds + 5))
    other = None
    try:
        with ex.session(CHURN, "churn.py", "churn") as s:
            s.load()
            if host:
                other = subprocess.Popen([sys.executable, "-c", HOST_CHURN, str(seconds)])
            z0, t0 = cpu_seconds(ex.zygote_pid), time.monotonic()
            threads = s.call_function("churn", seconds)
            z1, t1 = cpu_seconds(ex.zygote_pid), time.monotonic()
    finally:
        if other is not None:
            other.wait()
        ex.close()
    return {"seconds": round(t1 - t0, 2), "jail_threads": threads, "host_churn": host,
            "zygote_cpu_s": round(z1 - z0, 3), "zygote_cpu_per_s": round((z1 - z0) / (t1 - t0), 4),
            "thread_watch_off": ex.thread_watch_off, "kernel": os.uname().release}


if __name__ == "__main__":
    print(json.dumps(run(float(sys.argv[1]) if len(sys.argv) > 1 else 9.0,
                         len(sys.argv) > 2 and sys.argv[2] == "1")))
