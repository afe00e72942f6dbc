"""The pytest plugin of a grading child: the ``student`` fixtures and one outcome per test id.

It runs inside the forked child (``grading.child``) and never sees student code except through
the ``StudentProxy`` over a sandbox session. ``results()`` is the child's report
(``grading.child.ChildReport``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from grading.proxy import Feedback, InfrastructureError, StudentProxy

if TYPE_CHECKING:
    from grading.child import ChildReport, TestOutcome

GENERIC_ERROR = ("this check could not be completed because of a problem in the grader, not in your "
                 "code; your instructor can see the details")


class GradingPlugin:
    """Runs inside the forked child.  Provides fixtures and records one outcome per test id."""

    def __init__(self, proxy: StudentProxy, source: str, filename: str, skip: frozenset[str] = frozenset()):
        self.proxy = proxy
        self.skip = skip
        self.source = source
        self.filename = filename
        self.outcomes: dict[str, TestOutcome] = {}
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
        self.collected = [test_id(item) for item in items]
        items[:] = [item for item in items if test_id(item) not in self.skip]
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
                self.outcomes[test_id(item)] = {
                    "outcome": "failed", "feedback": f"not run: {self.filename} did not load"}
            items[:] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        tid = test_id(item)
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

    def results(self) -> ChildReport:
        return {"outcomes": self.outcomes, "measurements": self.measurements,
                "example_weights": self.example_weights, "collected": self.collected,
                "collect_errors": self.collect_errors, "infra_error": self.infra_error,
                "load_error": self.load_error, "log": self.log,
                "session_lost": bool(self.proxy.deaths), "last_death": self.proxy.last_death}


def test_id(item: pytest.Item) -> str:
    return getattr(item, "originalname", None) or item.name
