"""The pytest plugin of a grading child: the ``student`` fixtures and one outcome per test id.

It runs inside the forked child (``grading.child``) and never sees student code except through
the ``StudentProxy`` over a sandbox session. ``results()`` is the child's report
(``grading.child.ChildReport``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

from grading.i18n import Msg, cat, msg
from grading.proxy import Feedback, InfrastructureError, StudentProxy, not_loaded_text

if TYPE_CHECKING:
    from grading.child import ChildReport, OwnSessions, TestOutcome

FRESH_CPU_SHARE = 0.2             # of the CPU left, lent to one fresh comparison session
HIDDEN_CPU_SHARE = 0.8            # of the CPU left after the visible session, for the hidden one

GENERIC_ERROR = msg("this check could not be completed because of a problem in the grader, not in your "
                    "code; your instructor can see the details",
                    "由于评分器自身的问题（不是你的代码），这项检查没有完成；老师可以看到详细信息")


class GradingPlugin:
    """Runs inside the forked child.  Provides fixtures and records one outcome per test id.

    Tests listed in ``hidden`` run after every visible test, in a session of their own (opened
    through ``sessions`` at the first hidden test, once the visible tests' session is killed), so
    nothing the submission observes in a hidden test can reach the feedback of a visible one. The
    ``fresh_student`` fixture is a driver on a session no other test has called (comparisons that
    memoisation must not fool, such as determinism)."""

    def __init__(self, proxy: StudentProxy | None, source: str, filename: str, skip: frozenset[str] = frozenset(),
                 *, hidden: frozenset[str] = frozenset(), sessions: OwnSessions | None = None):
        self.proxy = proxy
        self.skip = skip
        self.hidden = hidden
        self.sessions = sessions
        self.source = source
        self.filename = filename
        # Which proxy serves which phase: the first phase uses the session the parent opened.
        self.phase_proxy: dict[str, StudentProxy] = {}
        self._prepared: StudentProxy | None = None
        self._want_prepared = False   # the hidden tests' session is to be started at its first use
        self._lent = False
        self.outcomes: dict[str, TestOutcome] = {}
        self.measurements: dict[str, float] = {}
        self.example_weights: dict | None = None
        self.collected: list[str] = []
        self.collect_errors: list[str] = []
        self.infra_error: str | None = None
        self.load_error: Msg | None = None
        self.load_seen: str | None = None       # how far the failed import went (grading.proxy.load_seen)
        self.log: list[str] = []
        self._running: str = ""     # the test being run, for the fixtures (see pytest_runtest_protocol)

    # ---------------------------------------------------------------- sessions
    def _hidden_proxy(self) -> StudentProxy:
        proxy = self.phase_proxy.get("hidden")
        if proxy is not None:
            return proxy
        if self.sessions is None:
            raise InfrastructureError("hidden tests need a session of their own, and none can be opened")
        # The visible phase is over: its session is killed now, so nothing it left running
        # overlaps the hidden tests (the parent still reads its status and output).
        visible = self.phase_proxy.get("visible")
        if visible is not None and visible._session is not None:
            kill = getattr(visible._session, "_kill", None)
            if kill is not None:
                kill()
        proxy, self._prepared = self._prepare_hidden(), None
        if proxy is not None and proxy.deaths:          # lent to a visible test, which killed it
            self.sessions.close(proxy)
            proxy = None
        proxy = proxy or self.sessions.proxy()
        self.phase_proxy["hidden"] = proxy
        if proxy.load_error is not None or (not proxy.loaded and not proxy.load()):
            self.phase_proxy["hidden"] = _NotLoaded(self.filename, proxy.load_error)
        return self.phase_proxy["hidden"]

    def _proxy_for(self, tid: str) -> StudentProxy:
        return self._hidden_proxy() if tid in self.hidden else self.phase_proxy["visible"]

    # ---------------------------------------------------------------- fixtures
    @pytest.fixture
    def student(self) -> StudentProxy:
        return self._proxy_for(self._running)

    @pytest.fixture
    def fresh_student(self) -> Iterator[StudentProxy]:
        """A driver on a session nothing has called yet: no earlier call of this grading can have
        left state there."""
        if self.sessions is None:
            raise InfrastructureError("fresh_student needs a session of its own, and none can be opened")
        if not self._lent and self._running not in self.hidden and self._prepare_hidden() is not None:
            # The hidden tests' session, started but not yet called, is fresh: lent to one visible
            # test it saves a jail, and what the submission sees there is visible-test data only
            # (the hidden tests run after every visible one).
            self._lent = True
            proxy = self._prepared
            if not proxy.load():
                raise Feedback(self._not_loaded_fresh(proxy))
            yield proxy
            return
        proxy = self.sessions.proxy(FRESH_CPU_SHARE)
        try:
            if not proxy.load():
                raise Feedback(self._not_loaded_fresh(proxy))
            yield proxy
        finally:
            self.sessions.close(proxy)

    def _not_loaded_fresh(self, proxy) -> Msg:
        return cat(msg(f"not run: {self.filename} did not load in a fresh session (",
                       f"未运行：{self.filename} 在新会话中无法导入（"), proxy.load_error, msg(")", "）"))

    @pytest.fixture
    def student_source(self) -> str:
        return self.source

    @pytest.fixture
    def record_measurement(self):
        def record(name: str, value: float) -> None:
            value = float(value)
            if math.isfinite(value):      # a NaN measurement is no measurement
                self.measurements[str(name)] = value
        return record

    @pytest.fixture
    def record_example_weights(self):
        def record(student, reference) -> None:
            def rows(t):
                if t is None or t.dim() != 2 or not bool(t.isfinite().all()):
                    return None  # NaN/inf or a wrong shape from a student cannot be drawn (nor be JSON)
                return [[float(x) for x in row] for row in t.tolist()]
            self.example_weights = {"student": rows(student), "reference": rows(reference)}
        return record

    # ---------------------------------------------------------------- hooks
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem) -> None:
        # The fixtures read the running test from here: a fixture that takes ``request`` makes
        # pytest build a fixture definition for it at each test (a signature inspection each).
        self._running = test_id(item)
    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext}")

    def pytest_collection_modifyitems(self, session, config, items) -> None:
        if self.proxy is None:
            return  # the warm parent collecting once (grading.collected): the child selects
        self.collected = [test_id(item) for item in items]
        items[:] = [item for item in items if test_id(item) not in self.skip]
        for item in items:
            item.repr_failure = feedback_without_traceback(item.repr_failure)
        # Visible tests first, hidden ones after (each group keeps the suite's order).
        items.sort(key=lambda item: test_id(item) in self.hidden)
        first = "visible" if any(test_id(item) not in self.hidden for item in items) else "hidden"
        self.phase_proxy[first] = self.proxy
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
            self.load_error, self.load_seen = self.proxy.load_error, self.proxy.load_seen
            for item in items:
                self.outcomes[test_id(item)] = {
                    "outcome": "failed", "feedback": not_loaded_text(self.filename, self.load_seen)}
            items[:] = []
            return
        # The hidden tests' jail is started when it is first needed (a fresh comparison it is lent
        # to, or the first hidden test), right before its module is loaded, as the visible tests'
        # is: started here, it sat idle through the visible tests, and its age at the import
        # (/proc/self/stat's start time against the clock) told the submission which session it was.
        self._want_prepared = (first == "visible" and self.sessions is not None
                               and any(test_id(i) in self.hidden for i in items))

    def _prepare_hidden(self) -> StudentProxy | None:
        """The hidden tests' session, started now if it was not (None when the budget is spent)."""
        if self._prepared is None and self._want_prepared:
            self._want_prepared = False
            try:
                self._prepared = self.sessions.proxy(HIDDEN_CPU_SHARE)
            except Feedback:
                self._prepared = None      # out of budget: the hidden tests will say so
        return self._prepared

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        tid = test_id(item)
        if call.when == "teardown":
            if call.excinfo is not None:
                self.log.append(f"[{tid}] teardown error:\n{report.longreprtext}")
            return
        if any(p.deaths for p in self._phase_proxies()):
            item.session.shouldstop = "the sandbox session was lost"  # the parent continues afresh
        if call.excinfo is None:
            if call.when == "call":
                self.outcomes[tid] = {"outcome": "passed", "feedback": None}
            return
        exc = call.excinfo.value
        if isinstance(exc, Feedback):
            self.outcomes[tid] = {"outcome": exc.outcome, "feedback": exc.message}
            self.log.append(f"[{tid}] {exc.outcome}: {exc}")
            return
        if isinstance(exc, InfrastructureError):
            self.infra_error = f"{tid}: {exc}"
            item.session.shouldstop = "infrastructure failure"
        self.outcomes[tid] = {"outcome": "error", "feedback": GENERIC_ERROR}
        self.log.append(f"[{tid}] grader error during {call.when}:\n{report.longreprtext}")

    def _phase_proxies(self) -> list[StudentProxy]:
        return [p for p in self.phase_proxy.values() if isinstance(p, StudentProxy)]

    def results(self) -> ChildReport:
        dead = [p for p in self._phase_proxies() if p.deaths]
        return {"outcomes": self.outcomes, "measurements": self.measurements,
                "example_weights": self.example_weights, "collected": self.collected,
                "collect_errors": self.collect_errors, "infra_error": self.infra_error,
                "load_error": self.load_error, "load_seen": self.load_seen, "log": self.log,
                "session_lost": bool(dead), "last_death": dead[-1].last_death if dead else self.proxy.last_death,
                "lost_causes": [cause for p in dead for cause in p.causes]}


def feedback_without_traceback(full: Callable[..., object]) -> Callable[..., object]:
    """An item's ``repr_failure`` that gives a ``Feedback`` as its text: pytest formatted each failed
    test's traceback (source lines of every frame) for a report nothing reads, since the outcome and
    feedback are the exception's own (``pytest_runtest_makereport``). A submission failing every test
    cost the worker 0.87 s of CPU that way (an honest grading: 0.09 s). Other exceptions, the
    grader's own errors, keep the full traceback for the instructor log."""
    def repr_failure(excinfo, *args, **kwargs):
        if isinstance(excinfo.value, Feedback):
            return str(excinfo.value)
        return full(excinfo, *args, **kwargs)
    return repr_failure


class _NotLoaded:
    """Stands for the hidden tests' driver when the module did not load in their session: every
    call fails with that reason (the visible tests loaded it, so this is the submission's doing)."""

    def __init__(self, filename: str, reason: Msg | str | None):
        self._message = cat(msg(f"not run: {filename} did not load again in the hidden tests' session (",
                                f"未运行：{filename} 在隐藏测试的会话中再次导入失败（"), reason, msg(")", "）"))

    def __getattr__(self, name: str):
        raise Feedback(self._message)


def test_id(item: pytest.Item) -> str:
    return getattr(item, "originalname", None) or item.name
