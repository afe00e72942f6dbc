"""Corpus gradings on the host's second core (the fast lane runs its tests one at a time, on one).

The corpus tests (``helpers.graded_corpus_file``) grade ~340 files, ~100 s of a 9-minute lane, and a
grading keeps one core busy (the forked test process and the jail take turns). When the tests' shared
executor starts (tests/conftest.py), a second process with an Executor of its own (the worker's model:
one executor per process) grades the files the collected tests will ask for, from the last one asked
back, while the tests before the corpus's run; the test process grades what its tests ask for that is
not graded yet, from the first: they meet. Each file is graded once,
by whichever process claims it first (an ``O_EXCL`` file, never both); a test that asks for a file
the other process claimed waits for its result.

The second process is a fresh interpreter (not a fork of the test run, whose sockets, zygote channel
and pytest state it would hold), started with the test run's environment, so it grades as the test
process does; test_corpus_prefetch_round26.py checks that a file graded there and here gives the
same result. ``AG_TEST_CORPUS_PREFETCH=0`` grades every file in the test process.

Run as ``python -m tests.grading.prefetch DIR PARENT_PID NOTIFY_FD`` by :class:`CorpusPrefetch` only.
"""

from __future__ import annotations

import ctypes
import inspect
import json
import os
import pickle
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A second executor costs a fresh interpreter and a zygote start (~3 s of CPU, about ten gradings):
# fewer files than this are graded in the test process alone.
MIN_FILES = 16
_WAIT_S = 1.0        # how often a wait for the other process's result checks that it is still alive
_STOP_WAIT_S = 60.0  # how long ``close`` lets the prefetch process finish the file it is grading


def enabled() -> bool:
    return os.environ.get("AG_TEST_CORPUS_PREFETCH", "1") != "0"


def planned_files(items: Iterable, corpus_root: Path) -> list[Path]:
    """The corpus files the collected ``items`` will ask for, in the order they ask: the values of
    their parameters that are a corpus file, or the name of one (``FAULTY / f"{name}.py"``), in the
    modules that call ``graded_corpus_file``. A file missed here is graded when asked for, as before."""
    by_name: dict[str, list[Path]] = {}
    for p in sorted(corpus_root.rglob("*.py")):
        by_name.setdefault(p.stem, []).append(p)
    users: dict[str, bool] = {}
    planned: dict[Path, None] = {}
    for item in items:
        module = getattr(item, "module", None)
        params = getattr(getattr(item, "callspec", None), "params", None)
        if module is None or not params:
            continue
        if module.__name__ not in users:
            try:
                users[module.__name__] = "graded_corpus_file" in inspect.getsource(module)
            except (OSError, TypeError):
                users[module.__name__] = False
        if not users[module.__name__]:
            continue
        for value in params.values():
            if isinstance(value, Path) and corpus_root in value.parents:
                planned[value] = None
            elif isinstance(value, str):
                for p in by_name.get(value, ()):
                    planned[p] = None
    return list(planned)


def _claim(folder: Path, index: int) -> bool:
    try:
        os.close(os.open(folder / "claims" / str(index), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def _write(path: Path, value: object) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(pickle.dumps(value))
    os.rename(tmp, path)      # whole or absent: the reader never sees half a result


class CorpusPrefetch:
    """Grades ``paths`` (in the order the test process will ask for them) in a second process, from
    the end; ``result(path)`` returns its result, waiting for it while that process grades it, or
    None when the test process is to grade it (it has claimed it)."""

    def __init__(self, paths: list[Path]):
        self.paths = list(paths)
        self._index = {p: i for i, p in enumerate(self.paths)}
        self._dir = Path(tempfile.mkdtemp(prefix="ag-corpus-prefetch-"))
        (self._dir / "claims").mkdir()
        (self._dir / "results").mkdir()
        (self._dir / "paths.json").write_text(json.dumps([str(p) for p in self.paths]))
        r, w = os.pipe()      # the prefetch process writes a byte per result; EOF when it ends
        self._log = open(self._dir / "log", "wb")
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "tests.grading.prefetch", str(self._dir),
                                           str(os.getpid()), str(w)],
                                          cwd=ROOT, stdin=subprocess.DEVNULL, stdout=self._log,
                                          stderr=subprocess.STDOUT, pass_fds=(w,))
        finally:
            os.close(w)
        self._r = r
        self._left: list | None = None
        self.received = 0            # results the test process took from the prefetch process
        self.waited_s = 0.0          # what the test process spent waiting for the prefetch's results
        self.stats: dict = {}        # the prefetch process's, once it ended: files graded, CPU seconds

    def result(self, path: Path, *, claim: bool = True) -> dict | None:
        """``path``'s result from the prefetch process, or None: the test process claimed it (with
        ``claim=False``: waits for the prefetch process to grade it)."""
        if path not in self._index or (claim and _claim(self._dir, self._index[path])):
            return None
        target = self._dir / "results" / str(self._index[path])
        t0 = time.monotonic()
        while not target.exists():
            ready, _, _ = select.select([self._r], [], [], _WAIT_S)
            if ready and not os.read(self._r, 4096) and not target.exists():
                raise RuntimeError(f"the corpus prefetch process ended before grading {path.name}: "
                                   f"{self._failure()}")
        self.waited_s += time.monotonic() - t0
        self.received += 1
        out = pickle.loads(target.read_bytes())
        if "error" in out:
            raise RuntimeError(f"grading {path.name} in the corpus prefetch process failed:\n{out['error']}")
        return out["result"]

    def _failure(self) -> str:
        self._log.flush()
        done = self._dir / "done"
        parts = [str(pickle.loads(done.read_bytes()).get("error"))] if done.exists() else []
        parts.append((self._dir / "log").read_text(encoding="utf-8", errors="replace")[-4000:])
        return "\n".join(parts)

    def close(self) -> list:
        """Stop the prefetch process after the file it is grading, and return what its executor left
        running (must be nothing). It is reaped here, at the end of the run, so that its CPU never
        lands in the RUSAGE_CHILDREN a test measures."""
        if self._left is None:
            (self._dir / "stop").touch()
            try:
                self._proc.wait(timeout=_STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            os.close(self._r)
            self._log.close()
            done = self._dir / "done"
            self.stats = pickle.loads(done.read_bytes()) if done.exists() else {}
            self._left = list(self.stats.get("leftovers") or [])
            shutil.rmtree(self._dir, ignore_errors=True)
        return self._left


def main(folder: Path, parent: int, notify: int) -> None:
    """The prefetch process: grade the files from the last, each one this process claims first."""
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)      # PR_SET_PDEATHSIG: it ends with the test run
    if os.getppid() != parent:
        return
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor
    from tests.sandbox.helpers import TEST_LIMITS, wait_no_leftovers

    paths = [Path(p) for p in json.loads((folder / "paths.json").read_text())]
    done: dict[str, object] = {"leftovers": [], "error": None, "graded": 0}
    ex = None
    try:
        ex = Executor(TEST_LIMITS)
        for index in reversed(range(len(paths))):
            if (folder / "stop").exists():
                break
            if not _claim(folder, index):
                continue                      # the test process has it
            try:
                out: dict[str, object] = {"result": grade(GradeInput(code=paths[index].read_bytes()), "attention", ex)}
            except Exception:  # noqa: BLE001 - the test that asks for this file reports it
                out = {"error": traceback.format_exc()}
            _write(folder / "results" / str(index), out)
            os.write(notify, b".")
            done["graded"] += 1
    except Exception:  # noqa: BLE001 - reported by the test that waits for a file
        done["error"] = traceback.format_exc()
    finally:
        if ex is not None:
            ex.close()
            done["leftovers"] = wait_no_leftovers(ex)
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        done["cpu_s"] = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
        _write(folder / "done", done)
        os.close(notify)
        sys.stdout.flush()
        os._exit(0)                          # skip the interpreter's (slow, torch-laden) shutdown


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
