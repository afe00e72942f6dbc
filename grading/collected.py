"""A suite's pytest session, configured and collected once in the warm parent.

Running ``pytest.main`` in every forked grading child cost about 60 % of the child's CPU before a
single test ran: argument parsing, loading and registering ~40 built-in plugins, parsing fixture
factories, collecting the modules. None of that depends on the submission, so the long-lived
process does it once per suite version, and each forked child only runs the collected items
through pytest's own ``pytest_runtestloop``: fixtures, ``pytest.raises``, markers, warnings
filters and every hook the grading plugin implements work exactly as under ``pytest.main``.

The one ``GradingPlugin`` registered here is a placeholder in the parent; the child re-initialises
that same instance with the grading's proxy and sessions (its fixtures are bound methods of it,
parsed at registration), so nothing of one grading is ever seen by another: each child is a
fresh fork of a parent that never ran a test.
"""

from __future__ import annotations

import dataclasses

import pytest
from _pytest.config import _prepareconfig  # pytest.main's own first step (pytest is pinned)
from _pytest.mark.structures import MARK_GEN

from grading.forking import prepare_for_forks
from grading.plugin import GradingPlugin
from grading.suite import Suite
from rubric.loader import suite_dir


@dataclasses.dataclass
class CollectedSuite:
    """One configured pytest session over a suite, with its items, never run in this process."""

    config: pytest.Config
    session: pytest.Session
    items: list[pytest.Item]
    plugin: GradingPlugin
    collect_errors: list[str]


def pytest_args(assignment: str) -> list[str]:
    d = suite_dir(assignment)
    return [str(d), "-c", str(d / "pytest.ini"), "--rootdir", str(d), "-p", "no:cacheprovider",
            "-p", "no:stepwise", "--disable-plugin-autoload",
            # These plugins run gc.collect() over the whole inherited heap (torch included) or
            # install process-wide hooks (sys.unraisablehook, faulthandler, pdb.set_trace) in
            # the long-lived process; a grading needs none of them.
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:logging",
            "-p", "no:faulthandler", "-p", "no:debugging",
            # Outcomes and feedback come from GradingPlugin; the terminal report repeated them.
            "-p", "no:terminal",
            # The suite's modules are imported in this process before collection (suite_state), so
            # pytest reuses them and never rewrote their asserts: no import hook is installed here.
            "--assert=plain",
            "-s", "--import-mode=importlib", "-o", "addopts=", "-W", "ignore::DeprecationWarning"]


def collect_suite(assignment: str, suite: Suite) -> CollectedSuite:
    """Configure pytest and collect ``grader_tests/<assignment>/`` in this process, running nothing."""
    plugin = GradingPlugin(None, "", suite.student_file)
    mark_config = MARK_GEN._config      # pytest_configure points the global MARK_GEN at a config
    config = _prepareconfig(pytest_args(assignment), plugins=[plugin])
    try:
        config._do_configure()
    finally:
        MARK_GEN._config = mark_config  # an outer pytest (the test suite) keeps its own
    session = pytest.Session.from_config(config)
    config.hook.pytest_sessionstart(session=session)
    items = list(session.perform_collect())
    for item in items:
        # Cached properties every report asks for: computed once here, inherited by each child.
        item.location  # noqa: B018
        item.keywords  # noqa: B018
    return CollectedSuite(config, session, items, plugin, list(plugin.collect_errors))


_collected: dict[str, tuple[Suite, CollectedSuite]] = {}


def collected_suite(assignment: str, suite: Suite) -> CollectedSuite:
    """The collected session of ``suite``, built once per suite object (a reloaded suite is a new
    object, see ``grading.suite_state``)."""
    hit = _collected.get(assignment)
    if hit is not None and hit[0] is suite:
        return hit[1]
    collected = collect_suite(assignment, suite)
    _collected[assignment] = (suite, collected)
    prepare_for_forks()    # every grading forks a child from this process from now on
    return collected


def run_collected(collected: CollectedSuite) -> pytest.ExitCode:
    """In a forked child whose ``collected.plugin`` has been bound to this grading: let the plugin
    choose and order the items (skip, hidden last), then run them with pytest's own loop."""
    session, plugin = collected.session, collected.plugin
    items = list(collected.items)
    plugin.collect_errors = list(collected.collect_errors)
    plugin.pytest_collection_modifyitems(session=session, config=collected.config, items=items)
    session.items = items
    session.testscollected = len(items)
    try:
        collected.config.hook.pytest_runtestloop(session=session)
    except (session.Interrupted, session.Failed):
        return pytest.ExitCode.INTERRUPTED
    return pytest.ExitCode.TESTS_FAILED if session.testsfailed else pytest.ExitCode.OK
