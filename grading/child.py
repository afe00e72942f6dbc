"""The forked grading child: pytest runs the suite against one sandbox session owned by the parent.

``run_suite`` forks one child per sandbox session (a fresh session after a lost one, skipping the
tests already finished) and merges their reports. The child sends its report back as JSON over a
pipe; the parent enforces a hard wall timeout on it. Student code never runs here: only in the
sandbox, reached through the suite's driver (a ``grading.proxy.StudentProxy``).
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import tempfile
import time
import traceback
from typing import Any, TypedDict

import pytest

from grading.plugin import GradingPlugin
from grading.proxy import InheritedSession
from grading.suite import Suite
from rubric.loader import suite_dir

MAX_REOPENS = 2                   # fresh sessions after a lost one


class TestOutcome(TypedDict):
    """One test's outcome as the child saw it (feedback is the full text; hiding is the rubric's)."""

    outcome: str            # passed | failed | error | timeout
    feedback: str | None


class ChildReport(TypedDict, total=False):
    """What one grading child reports (JSON over the pipe), and what ``run_suite`` merges them into."""

    outcomes: dict[str, TestOutcome]
    measurements: dict[str, float]
    example_weights: dict[str, Any] | None
    collected: list[str] | None
    collect_errors: list[str]
    infra_error: str | None          # a grader failure: the grading ends `error`
    load_error: str | None           # the student's file did not load: graded, code categories 0
    log: list[str]                   # instructor log lines
    session_lost: bool
    last_death: str | None
    pytest_exit: int
    child_seconds: float
    pytest_output: str
    student_output: str              # merged only: the student's captured output, all sessions
    sessions: int                    # merged only: sandbox sessions used


def _pytest_args(assignment: str) -> list[str]:
    d = suite_dir(assignment)
    return [str(d), "-c", str(d / "pytest.ini"), "--rootdir", str(d), "-p", "no:cacheprovider",
            "-p", "no:stepwise",
            # These plugins run gc.collect() over the whole inherited heap (torch included) at
            # exit: ~0.35 s of a ~0.8 s grading. The child is short-lived and needs none of them.
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:logging",
            "-q", "-s", "--import-mode=importlib", "-o", "addopts=",
            "--no-header", "-W", "ignore::DeprecationWarning"]


def _child_main(session, source: str, assignment: str, suite: Suite, skip: frozenset[str]) -> ChildReport:
    import gc

    import torch

    # A short-lived child: collecting would walk (and copy-on-write) the parent's whole heap.
    gc.disable()
    torch.set_num_threads(1)  # cheap tensors; avoids OpenMP pools inherited over fork
    t0 = time.perf_counter()
    plugin_log: list[str] = []
    proxy = suite.driver(InheritedSession(session), filename=suite.student_file, log=plugin_log.append)
    plugin = GradingPlugin(proxy, source, suite.student_file, skip)
    code = pytest.main(_pytest_args(assignment), plugins=[plugin])
    res = plugin.results()
    res["log"] = plugin_log + res["log"]
    res["pytest_exit"] = int(code)
    res["child_seconds"] = time.perf_counter() - t0
    return res


def _fork_child(session, source: str, assignment: str, suite: Suite, skip: frozenset[str],
                wall_timeout: float) -> ChildReport:
    """Fork, run the suite in the child against ``session`` (owned by this process), and return the
    child's JSON results (or an ``infra_error``).  The child never touches the Executor: sessions
    are opened, closed and killed here, so a hung child costs at most ``wall_timeout``."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:  # noqa: BLE001
            pass
    out_file = tempfile.TemporaryFile()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # ------------------------------------------------------------ child
        status = 0
        try:
            os.close(r)
            os.setpgid(0, 0)
            os.dup2(out_file.fileno(), 1)
            os.dup2(out_file.fileno(), 2)
            # The parent's sys.stdout may be a capture object of an outer pytest (or anything):
            # give the child plain streams on the redirected fds, so nothing leaks outwards.
            sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
            sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="replace", closefd=False)
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                payload = _child_main(session, source, assignment, suite, skip)
            except BaseException:  # noqa: BLE001
                payload = {"infra_error": "grading child failed", "log": [traceback.format_exc()]}
            for f in (sys.stdout, sys.stderr):
                f.flush()
            data = json.dumps(payload, allow_nan=False, default=str).encode()
            view = memoryview(data)
            while view:
                n = os.write(w, view)
                view = view[n:]
        except BaseException:  # noqa: BLE001
            status = 70
        finally:
            os._exit(status)
    # --------------------------------------------------------------------------- parent
    os.close(w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + wall_timeout
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
        if timed_out:
            for target in (-pid, pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        _, wstatus = os.waitpid(pid, 0)
    out_file.seek(0)
    pytest_output = out_file.read()[-50_000:].decode("utf-8", "replace")
    out_file.close()
    if timed_out:
        return {"infra_error": f"grading exceeded the hard wall timeout of {wall_timeout:g} s",
                "log": [], "pytest_output": pytest_output}
    try:
        payload = json.loads(b"".join(chunks).decode())
        if not isinstance(payload, dict):
            raise ValueError("not an object")
    except ValueError:
        return {"infra_error": f"the grading child ended without a result (wait status {wstatus})",
                "log": [], "pytest_output": pytest_output}
    payload["pytest_output"] = pytest_output
    return payload


def run_suite(executor, source: str, assignment: str, suite: Suite, wall_timeout: float,
              max_reopens: int = MAX_REOPENS) -> ChildReport:
    """Run the suite, re-forking with a fresh session (skipping finished tests) after a session
    was lost, at most ``max_reopens`` times; then the remaining tests fail fast."""
    deadline = time.monotonic() + wall_timeout
    merged: ChildReport = {"outcomes": {}, "measurements": {}, "example_weights": None, "log": [],
                    "collected": None, "load_error": None, "student_output": "", "sessions": 0}
    attempt = 0
    while True:
        attempt += 1
        try:
            session = executor.session(source, filename=suite.student_file, module_name=suite.module_name,
                                       watch=dict(suite.watch))
        except Exception as exc:  # noqa: BLE001 - SandboxUnavailable and friends
            merged["infra_error"] = f"could not open a sandbox session: {exc!r}"
            return merged
        merged["sessions"] += 1
        skip = frozenset(merged["outcomes"])
        try:
            child = _fork_child(session, source, assignment, suite, skip,
                                max(1.0, deadline - time.monotonic()))
        finally:
            try:
                session.close()
            except Exception as exc:  # noqa: BLE001
                merged["log"].append(f"closing the session failed: {exc!r}")
            try:
                merged["student_output"] += session.output
            except Exception:  # noqa: BLE001
                pass
        merged["log"].extend(child.get("log") or [])
        merged["log"].append(f"child {attempt}: {child.get('child_seconds', 0):.3f} s, "
                             f"pytest exit {child.get('pytest_exit')}")
        if child.get("pytest_output"):
            merged["pytest_output"] = child["pytest_output"]
        if child.get("infra_error"):
            merged["infra_error"] = child["infra_error"]
            return merged
        merged["collected"] = merged["collected"] or child.get("collected")
        merged["measurements"].update(child.get("measurements") or {})
        if child.get("example_weights") is not None:
            merged["example_weights"] = child["example_weights"]
        if child.get("load_error"):
            if attempt == 1:
                merged["load_error"] = child["load_error"]
                merged["outcomes"].update(child.get("outcomes") or {})
            else:
                for tid in child.get("outcomes") or {}:
                    merged["outcomes"].setdefault(tid, {
                        "outcome": "failed",
                        "feedback": f"not run: {suite.student_file} failed to load again after a crash"})
            return merged
        merged["outcomes"].update(child.get("outcomes") or {})
        if not child.get("session_lost"):
            return merged
        remaining = [t for t in merged["collected"] or [] if t not in merged["outcomes"]]
        if not remaining:
            return merged
        if attempt > max_reopens or time.monotonic() > deadline:
            kind = child.get("last_death") or "failed"
            for tid in remaining:
                merged["outcomes"][tid] = {
                    "outcome": "timeout" if kind == "timeout" else "failed",
                    "feedback": f"not run: {suite.student_file} hung or crashed {attempt} times already, "
                                "so the remaining checks were skipped"}
            return merged
