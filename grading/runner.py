"""The grading runner: ``grade(GradeInput, assignment, executor) -> result dict`` (docs/contracts.md §2).

Flow of one grading:

1. the code upload is validated (``grading.inputs.validate_code``);
2. a child is forked from this (warm, torch-already-imported) process; the child runs
   ``pytest.main`` on ``grader_tests/<assignment>/`` with a :class:`GradingPlugin` that provides the
   ``student`` proxy (``grading.proxy.StudentProxy`` over one sandbox session) and collects each
   test's outcome and feedback; the results come back as JSON over a pipe; the parent enforces a
   hard wall timeout on the child;
3. the rubric (``rubric/<assignment>/rubric.yaml``) turns outcomes into points
   (``rubric.scoring``); the audit is scored by ``rubric.audit.grade_audit`` when available.

Student code never runs in this process nor in the forked child: only in the sandbox.
``status`` is ``"error"`` only for grader/infrastructure failures; a submission that does not load
is ``"graded"`` with the code categories at 0 and an actionable ``message``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import select
import signal
import sys
import tempfile
import time
import traceback

import pytest

from autograder import settings
from grading.inputs import InputError, validate_audit, validate_code, validate_figure
from grading.proxy import Feedback, InfrastructureError, InheritedSession, StudentProxy
from grading.suite import Suite, check_against_rubric, load_suite
from rubric import scoring
from rubric.audit import Checklist, grade_audit, load_checklist
from rubric.loader import load_rubric, rubric_path, suite_dir

DEFAULT_WALL_TIMEOUT = settings.GRADING_WALL_S  # hard limit on a whole grading, seconds
MAX_REOPENS = 2                   # fresh sessions after a lost one
LOG_CAP = 200_000                 # characters of instructor log kept
GENERIC_ERROR = ("this check could not be completed because of a problem in the grader, not in your "
                 "code; your instructor can see the details")


@dataclasses.dataclass
class GradeInput:
    code: bytes
    audit: bytes | None = None
    audit_filename: str | None = None
    figure: bytes | None = None
    figure_filename: str | None = None


# ============================================================================ pytest plugin
class GradingPlugin:
    """Runs inside the forked child.  Provides fixtures and records one outcome per test id."""

    def __init__(self, proxy: StudentProxy, source: str, filename: str, skip: frozenset = frozenset()):
        self.proxy = proxy
        self.skip = skip
        self.source = source
        self.filename = filename
        self.outcomes: dict[str, dict] = {}
        self.measurements: dict[str, float] = {}
        self.example_weights: dict | None = None
        self.collected: list[str] = []
        self.collect_errors: list[str] = []
        self.infra_error: str | None = None
        self.load_error: str | None = None
        self.log: list[str] = []

    # ---------------------------------------------------------------- fixtures
    @pytest.fixture
    def student(self) -> StudentProxy:
        return self.proxy

    @pytest.fixture
    def student_source(self) -> str:
        return self.source

    @pytest.fixture
    def record_measurement(self):
        def record(name: str, value: float) -> None:
            self.measurements[str(name)] = float(value)
        return record

    @pytest.fixture
    def record_example_weights(self):
        def record(student, reference) -> None:
            def rows(t):
                return None if t is None else [[float(x) for x in row] for row in t.tolist()]
            self.example_weights = {"student": rows(student), "reference": rows(reference)}
        return record

    # ---------------------------------------------------------------- hooks
    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext}")

    def pytest_collection_modifyitems(self, session, config, items) -> None:
        self.collected = [_test_id(item) for item in items]
        items[:] = [item for item in items if _test_id(item) not in self.skip]
        if self.collect_errors:
            self.infra_error = "the test suite failed to collect"
            items[:] = []
            return
        try:
            loaded = self.proxy.load()
        except InfrastructureError as exc:
            self.infra_error = str(exc)
            items[:] = []
            return
        if not loaded:
            self.load_error = self.proxy.load_error
            for item in items:
                self.outcomes[_test_id(item)] = {
                    "outcome": "failed", "feedback": f"not run: {self.filename} did not load"}
            items[:] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        tid = _test_id(item)
        if call.when == "teardown":
            if call.excinfo is not None:
                self.log.append(f"[{tid}] teardown error:\n{report.longreprtext}")
            return
        if self.proxy.deaths and not self.proxy._sessions.reopen:
            item.session.shouldstop = "the sandbox session was lost"  # the parent continues afresh
        if call.excinfo is None:
            if call.when == "call":
                self.outcomes[tid] = {"outcome": "passed", "feedback": None}
            return
        exc = call.excinfo.value
        if isinstance(exc, Feedback):
            self.outcomes[tid] = {"outcome": exc.outcome, "feedback": str(exc)}
            self.log.append(f"[{tid}] {exc.outcome}: {exc}")
            return
        if isinstance(exc, InfrastructureError):
            self.infra_error = f"{tid}: {exc}"
            item.session.shouldstop = "infrastructure failure"
        self.outcomes[tid] = {"outcome": "error", "feedback": GENERIC_ERROR}
        self.log.append(f"[{tid}] grader error during {call.when}:\n{report.longreprtext}")

    def results(self) -> dict:
        return {"outcomes": self.outcomes, "measurements": self.measurements,
                "example_weights": self.example_weights, "collected": self.collected,
                "collect_errors": self.collect_errors, "infra_error": self.infra_error,
                "load_error": self.load_error, "log": self.log,
                "session_lost": bool(self.proxy.deaths), "last_death": self.proxy.last_death}


def _test_id(item) -> str:
    return getattr(item, "originalname", None) or item.name


# ============================================================================ child process
def _pytest_args(assignment: str) -> list[str]:
    d = suite_dir(assignment)
    return [str(d), "-c", str(d / "pytest.ini"), "--rootdir", str(d), "-p", "no:cacheprovider",
            "-p", "no:stepwise",
            # These plugins run gc.collect() over the whole inherited heap (torch included) at
            # exit: ~0.35 s of a ~0.8 s grading. The child is short-lived and needs none of them.
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:logging",
            "-q", "-s", "--import-mode=importlib", "-o", "addopts=",
            "--no-header", "-W", "ignore::DeprecationWarning"]


def _child_main(session, source: str, assignment: str, suite, skip: frozenset) -> dict:
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


def _fork_child(session, source: str, assignment: str, suite, skip: frozenset, wall_timeout: float) -> dict:
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


def _run_suite(executor, source: str, assignment: str, suite, wall_timeout: float,
               max_reopens: int = MAX_REOPENS) -> dict:
    """Run the suite, re-forking with a fresh session (skipping finished tests) after a session
    was lost, at most ``max_reopens`` times; then the remaining tests fail fast."""
    deadline = time.monotonic() + wall_timeout
    merged: dict = {"outcomes": {}, "measurements": {}, "example_weights": None, "log": [],
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


# ============================================================================ helpers
@dataclasses.dataclass(frozen=True)
class SuiteState:
    """An assignment's suite, rubric and version, as of one set of file contents."""

    stamp: tuple
    suite: Suite
    rubric: object
    checklist: Checklist
    version: str


_states: dict[str, SuiteState] = {}


def _suite_files(assignment: str) -> list:
    rubric_file = rubric_path(assignment)
    return [*sorted(suite_dir(assignment).glob("*.py")), rubric_file, rubric_file.parent / "audit.yaml"]


def suite_state(assignment: str) -> SuiteState:
    """The suite modules (imported, and warmed, in this long-lived process so that every forked
    grading child starts hot), the rubric and the grader version, reloaded as soon as any file
    changes: a regrade after an instructor fixes a test runs, and is labelled with, the fixed test."""
    files = [f for f in _suite_files(assignment) if f.exists()]
    stamp = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    state = _states.get(assignment)
    if state is not None and state.stamp == stamp:
        return state
    package = f"grader_tests.{assignment}"
    for name in [m for m in sys.modules if m.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    suite = load_suite(assignment)
    # pytest (--import-mode=importlib) reuses a test module already in sys.modules, so the child
    # neither compiles nor executes it again.
    for path in sorted(suite_dir(assignment).glob("test_*.py")):
        importlib.import_module(f"{package}.{path.stem}")
    suite.warm()  # build cached inputs once in the warm parent; forked children inherit them
    h = hashlib.sha256()
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    version = f"{suite.version}+{h.hexdigest()[:10]}"
    # The audit checklist is part of the same stamp: parsed once per version (YAML costs ~0.1 s).
    checklist = load_checklist(rubric_path(assignment).parent / "audit.yaml")
    rubric = load_rubric(assignment)
    check_against_rubric(assignment, suite, list(rubric.categories))
    state = SuiteState(stamp, suite, rubric, checklist, version)
    _states[assignment] = state
    return state


def grader_version(assignment: str) -> str:
    return suite_state(assignment).version


def _validate_code(filename: str, data: bytes) -> tuple[str | None, str | None]:
    """(source, None) or (None, student-facing message)."""
    try:
        return validate_code(filename, data), None
    except InputError as exc:
        return None, exc.en


def _grade_audit(inp: GradeInput, assignment: str, measured: dict) -> tuple[dict | None, str | None]:
    """(audit result, message about unreadable parts).  Raises on a failure of the checker itself."""
    checklist = suite_state(assignment).checklist
    text = figure = None
    notes = []
    if inp.audit is not None:
        try:
            text = validate_audit(inp.audit_filename or "audit.md", inp.audit)
        except InputError as exc:
            notes.append(f"audit not read: {exc.en}")
    if inp.figure is not None:
        try:
            validate_figure(inp.figure_filename or "figure.png", inp.figure)
            figure = inp.figure        # the checker analyses the validated bytes itself (grid shape)
        except InputError as exc:
            notes.append(f"figure not read: {exc.en}")
    return grade_audit(text, figure, dict(measured), checklist), ("; ".join(notes) or None)


def _error_result(assignment: str, message: str, log: list[str], t0: float, rubric=None) -> dict:
    cats = scoring.zero_categories(rubric) if rubric is not None else {}
    try:
        version = grader_version(assignment)
    except Exception:  # noqa: BLE001
        version = "unknown"
    return {"status": "error", "message": message, "total": 0,
            "max_total": scoring._num(rubric.max_total) if rubric is not None else 100,
            "categories": cats, "tests": [], "audit": None, "measurements": {},
            "example_weights": {"student": None, "reference": None}, "grader_version": version,
            "duration_s": round(time.perf_counter() - t0, 3), "log": _cap_log(log)}


def _cap_log(log: list[str]) -> str:
    text = "\n".join(str(x) for x in log)
    return text if len(text) <= LOG_CAP else text[:LOG_CAP] + "\n[log truncated]"


def _example_reference(suite: Suite) -> list | None:
    try:
        return suite.example_reference()
    except Exception:  # noqa: BLE001 - an illustration; its absence must not fail a grading
        return None


# ============================================================================ public API
def grade(inp: GradeInput, assignment: str = "attention", executor=None, *,
          wall_timeout: float = DEFAULT_WALL_TIMEOUT) -> dict:
    """Grade one submission.  See the module docstring and docs/contracts.md §2."""
    t0 = time.perf_counter()
    log: list[str] = []
    try:
        state = suite_state(assignment)
        rubric, suite = state.rubric, state.suite
    except Exception as exc:  # noqa: BLE001 - a broken suite or rubric (e.g. a test being edited) is
        # the grader's failure: status error, retried by the worker, never a student's zero
        return _error_result(assignment, f"grader configuration error: {exc!r}", [traceback.format_exc()], t0)

    if executor is None:
        from grading.sandbox import Executor, Limits, SandboxError

        try:
            ex = Executor(Limits())
        except SandboxError as exc:  # SandboxUnavailable: an infrastructure failure, never the student's
            return _error_result(assignment, f"sandbox unavailable: {exc}", [traceback.format_exc()], t0,
                                 rubric)
        with ex:
            return grade(inp, assignment, ex, wall_timeout=wall_timeout)

    source, code_message = _validate_code(suite.student_file, inp.code)
    if source is not None:
        child = _run_suite(executor, source, assignment, suite, wall_timeout)
    else:
        child = {"load_error": code_message, "outcomes": {
            tid: {"outcome": "failed", "feedback": f"not run: {code_message}"} for tid in rubric.tests}}
    log.extend(child.get("log") or [])
    if child.get("infra_error"):
        log.append("pytest output:\n" + child.get("pytest_output", ""))
        return _error_result(assignment, f"grader error: {child['infra_error']}", log, t0, rubric)
    collected = child.get("collected")
    if source is not None and set(collected or []) != set(rubric.tests):
        log.append(f"collected {sorted(collected or [])}")
        return _error_result(assignment, "grader error: the suite and the rubric disagree", log, t0, rubric)

    measurements = {k: v for k, v in (child.get("measurements") or {}).items()
                    if isinstance(v, int | float)}
    try:
        audit, audit_message = _grade_audit(inp, assignment, measurements)
    except Exception:  # noqa: BLE001 - the audit checker itself failed: a grader failure
        log.append("audit checker failed:\n" + traceback.format_exc())
        return _error_result(assignment, "grader error: the audit checker failed", log, t0, rubric)

    tests = scoring.score_tests(rubric, child.get("outcomes") or {})
    categories = scoring.score_categories(rubric, tests, (audit or {}).get("score"))
    messages = []
    if child.get("load_error"):
        messages.append(f"{suite.student_file} did not load: {child['load_error']}"
                        if source is not None else child["load_error"])
    if audit_message:
        messages.append(audit_message)
    example = child.get("example_weights") or {"student": None, "reference": _example_reference(suite)}
    log.append(f"sessions used: {child.get('sessions')}")
    if child.get("student_output"):
        log.append("student output:\n" + child["student_output"])
    if child.get("pytest_output"):
        log.append("pytest output:\n" + child["pytest_output"])
    return {
        "status": "graded",
        "message": "; ".join(messages) or None,
        "total": scoring.total(categories),
        "max_total": scoring._num(rubric.max_total),
        "categories": categories,
        "tests": tests,
        "audit": audit,
        "measurements": measurements,
        "example_weights": example,
        "grader_version": state.version,
        "duration_s": round(time.perf_counter() - t0, 3),
        "log": _cap_log(log),
    }


__all__ = ["GradeInput", "GradingPlugin", "grade", "grader_version"]

