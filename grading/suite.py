"""The assignment plug-in interface and its registry.

An assignment is a folder `grader_tests/<name>/` whose `suite.py` defines `SUITE = Suite(...)`,
plus `rubric/<name>/rubric.yaml` (points and categories; the one source of both) and, when the
assignment has a written audit, `rubric/<name>/audit.yaml`. The engine knows nothing else about an
assignment: what the student uploads, how tests drive the student's code, and the reference all
come from here. Adding an assignment is adding those files and one `autograder assignment add`.
"""

from __future__ import annotations

import importlib
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grading.i18n import Msg
from grading.proxy import StudentProxy
from grading.review import Reason

if TYPE_CHECKING:
    from grading.fixed import FixedCache

# Display-only packages students import beside their code to draw the heatmap or show progress.
# Inside the jail an import of one gives an inert stand-in (grading/sandbox/runtime.py): nothing is
# drawn or shown, and a file that imports matplotlib at its top (PEP 8's place) is graded on its code
# instead of failing to load. Every module a package's wheel installs at its top level is listed, as students
# import them beside the package's own name (matplotlib's wheel also installs ``mpl_toolkits``, e.g.
# ``from mpl_toolkits.axes_grid1 import make_axes_locatable`` for a colorbar, and ``pylab``; plotly's
# ``_plotly_utils``; seaborn, tqdm and IPython install only their own): DISPLAY_WHEEL_MODULES.
DISPLAY_WHEEL_MODULES = {"matplotlib": ("matplotlib", "mpl_toolkits", "pylab"), "seaborn": ("seaborn",),
                         "plotly": ("plotly", "_plotly_utils"), "tqdm": ("tqdm",), "IPython": ("IPython",)}
DISPLAY_PACKAGES = tuple(m for mods in DISPLAY_WHEEL_MODULES.values() for m in mods)


class SuiteError(RuntimeError):
    """A suite folder does not define a usable plug-in (the message names what is missing)."""


@dataclass(frozen=True)
class Suite:
    """What one assignment declares to the engine."""

    # Version label shown on results; the engine appends a hash of the suite and rubric files.
    version: str
    # The file students upload, and the module name it is imported as inside the jail.
    student_file: str
    module_name: str
    # The rubric categories this suite's tests are written for; checked against rubric.yaml.
    categories: tuple[str, ...]
    # The driver class the tests receive as their `student` fixture: a StudentProxy subclass
    # with the typed calls of this assignment (e.g. `sdpa`, `mha`).
    driver: type[StudentProxy] = StudentProxy
    # Calls counted ("count") or refused ("forbid") inside the jail, by qualified name.
    watch: Mapping[str, list[str]] = field(default_factory=dict)
    # Run once in the long-lived warm parent, so that forked gradings start with cached inputs.
    warm: Callable[[], None] = lambda: None
    # The reference example shown beside the student's own (e.g. a 2×3 weights matrix), or None.
    example_reference: Callable[[], list[list[float]] | None] = lambda: None
    # Trusted analysis of the submitted source (never executed): reasons to flag it for an
    # instructor's review, e.g. names hidden from the static checks. Shown in the instructor log.
    # A reason is a ``grading.review.reason(code, text, **params)`` (or bare text: shown as it is to every reader).
    review: Callable[[str], list[Reason | str]] = lambda source: []
    # Called when `review` ran out of its CPU time (settings.REVIEW_CPU_S) and was stopped: from
    # then on the suite's own source checks must treat this source as unreviewable (the forked
    # test process inherits that) instead of starting the same analysis again.
    review_gave_up: Callable[[str], None] = lambda source: None
    # Third-party packages importable inside the jail besides the standard library (documented
    # to students in ASSIGNMENT.zh.md / ASSIGNMENT.en.md).
    packages: tuple[str, ...] = ()
    # One note for the whole result, from the source (never executed) and the tests' outcomes, e.g. the
    # constructors' signatures against the contract; shown once in the result's message.
    result_note: Callable[[str, Mapping[str, Mapping]], Msg | None] = lambda source, outcomes: None
    # Reasons for an instructor's review read from the source and the tests' outcomes together, e.g. a
    # run-time check that saw what the source review did not. Shown in the instructor log.
    outcome_review: Callable[[str, Mapping[str, Mapping]], list[Reason | str]] = lambda source, outcomes: []
    # The texts of this suite's own review codes: code -> {"en", "zh"} templates with ``{param}`` fields
    # (grading/review.py). A reason of a declared code is stored with its zh text, so the instructor pages show
    # it in zh with nothing of the suite in the web; a reason of an undeclared code is shown in its English.
    review_texts: Mapping[str, Msg] = field(default_factory=dict)
    # A message when the source (parsed, never executed) defines nothing the tests could use, e.g. only
    # comments or imports: the suite is then not run, every test fails with it, and it is the result's
    # one message (31 failures that each said a class was missing, and 3 points, told nothing more).
    nothing_defined: Callable[[str], Msg | None] = lambda source: None
    # After a run in which no test found what it looks up (the file ran, but defines neither class): the message
    # a file that is not run gets (`nothing_defined`), so one mistake is told one way; every test is then "not
    # run" with it (round 33: a file of top-level code got 32 failures where one of only imports got one box).
    nothing_tested: Callable[[str, Mapping[str, Mapping]], Msg | None] = lambda source, outcomes: None
    # After the source failed to load (a demo at the top level that raised): what the source shows about
    # the names the tests look up, e.g. that it defines none of them, told once after the load error (fixing
    # the load error alone would be followed by every test failing on a missing name).
    load_note: Callable[[str], Msg | None] = lambda source: None
    # Importable inside the jail as inert stand-ins (see DISPLAY_PACKAGES); a name also in
    # `packages` is the real package.
    inert_packages: tuple[str, ...] = DISPLAY_PACKAGES
    # Fixed-seed inputs and their references (grading/fixed.py), memoised per suite version: the
    # grading child reports what it computed, the worker computes it once, later children inherit it.
    fixed: FixedCache | None = None

    def __post_init__(self) -> None:
        # A declaration missing a language or naming other fields in zh than in en would turn each of the
        # suite's real reasons into engine.review_failed at grading time: refuse the suite when it is loaded.
        for code, texts in self.review_texts.items():
            if not isinstance(texts, Mapping) or not all(isinstance(texts.get(k), str) for k in ("en", "zh")):
                raise SuiteError(f"review_texts[{code!r}] needs an 'en' and a 'zh' text")
            try:
                en, zh = _fields(texts["en"]), _fields(texts["zh"])
            except ValueError as exc:
                raise SuiteError(f"review_texts[{code!r}] is not a format template: {exc}") from exc
            if en != zh:
                raise SuiteError(f"review_texts[{code!r}]: the en text's fields {sorted(en)} differ from the zh "
                                 f"text's {sorted(zh)}")


def _fields(template: str) -> set[str]:
    """The ``{name}`` fields of a str.format template (ValueError for a malformed one)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def suite_names() -> list[str]:
    """Every assignment plug-in: the folders of grader_tests/ that hold a suite.py."""
    from rubric.loader import SUITE_ROOT

    return sorted(p.parent.name for p in SUITE_ROOT.glob("*/suite.py") if p.parent.name.isidentifier())


def load_suite(name: str) -> Suite:
    """Import `grader_tests.<name>.suite` and return its `SUITE`, or raise SuiteError.

    The folder name is the assignment's name (a copy of a folder is another assignment)."""
    if not name.isidentifier():
        raise SuiteError(f"{name!r} is not a suite name (a folder of grader_tests/)")
    try:
        module = importlib.import_module(f"grader_tests.{name}.suite")
    except ModuleNotFoundError as exc:
        raise SuiteError(f"no suite grader_tests/{name}/suite.py ({exc})") from exc
    suite = getattr(module, "SUITE", None)
    if not isinstance(suite, Suite):
        raise SuiteError(f"grader_tests/{name}/suite.py must define SUITE = Suite(...)")
    return suite


def check_against_rubric(name: str, suite: Suite, rubric_categories: list[str] | tuple[str, ...]) -> None:
    """The suite and its rubric must name the same code categories (the rubric may add `audit`)."""
    code = [c for c in rubric_categories if c != "audit"]
    if sorted(code) != sorted(suite.categories):
        raise SuiteError(
            f"suite {name} is written for categories {sorted(suite.categories)}, "
            f"but rubric/{name}/rubric.yaml has {sorted(code)}"
        )
