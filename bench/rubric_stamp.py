"""Cost of app.coursework.rubric_stamp per call (review RF, round 38): an unchanged file, and a file whose mtime
is an hour in the future, each measured once its last change (its ctime) is older than RACY_NS, and the number
of hashes in the first seconds after an edit. Run: .venv/bin/python -m bench.rubric_stamp"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import timeit
from pathlib import Path

import rubric.loader
from app import coursework


def per_call(n: int = 20000) -> float:
    return timeit.timeit(lambda: coursework.rubric_stamp("attention"), number=n) / n * 1e6


def main() -> None:
    root = Path(tempfile.mkdtemp()) / "rubric"
    shutil.copytree(rubric.loader.RUBRIC_ROOT, root)
    rubric.loader.RUBRIC_ROOT = root
    path = rubric.loader.rubric_path("attention")
    wait = coursework.RACY_NS / 1e9 + 0.2
    old = time.time_ns() - 10**10
    os.utime(path, ns=(old, old))
    time.sleep(wait)
    coursework.rubric_stamp("attention")
    print(f"unchanged file, stat only: {per_call():.1f} us/call; bare stat {timeit.timeit(path.stat, number=20000) / 20000 * 1e6:.1f} us")
    future = time.time_ns() + 3600 * 10**9
    os.utime(path, ns=(future, future))
    time.sleep(wait)
    hashes = [0]
    real = coursework.hashlib.sha256
    coursework.hashlib.sha256 = lambda data: hashes.__setitem__(0, hashes[0] + 1) or real(data)
    coursework.rubric_stamp("attention")
    hashes[0] = 0
    print(f"mtime an hour ahead, {wait:.1f} s after the utime: {per_call():.1f} us/call, {hashes[0]} hashes in 20000 calls")
    hashes[0] = 0
    path.write_bytes(path.read_bytes())
    calls, t0 = 0, time.time()
    while time.time() - t0 < 5:
        coursework.rubric_stamp("attention")
        calls += 1
        time.sleep(0.25)
    print(f"after an edit, 5 s at 4 calls/s: {calls} calls, {hashes[0]} hashes")


if __name__ == "__main__":
    main()
