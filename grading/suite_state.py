"""An assignment's suite, rubric, audit checklist and grader version, reloaded when a file changes.

Kept in the long-lived worker process: the suite's test modules are imported (and its inputs
warmed) here once per version, so every forked grading child starts hot.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import sys
from pathlib import Path

from grading.suite import Suite, check_against_rubric, load_suite
from rubric.audit import Checklist, load_checklist
from rubric.loader import load_rubric, rubric_path, suite_dir


@dataclasses.dataclass(frozen=True)
class SuiteState:
    """An assignment's suite, rubric and version, as of one set of file contents."""

    stamp: tuple
    suite: Suite
    rubric: object
    checklist: Checklist | None
    version: str


_states: dict[str, SuiteState] = {}


# The code every grading runs besides its suite's own folder: the engine (sandbox, drivers, feedback
# texts such as grading/proxy.py's) and the rubric's (scoring, the audit checker). Its text is part of the
# grader version, as the suite's files are: a changed feedback text or audit rule is a new version.
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
SHARED_CODE: tuple[tuple[Path, str], ...] = (
    (_PACKAGE_ROOT / "grading", "**/*.py"), (_PACKAGE_ROOT / "rubric", "*.py"), (_PACKAGE_ROOT / "rubric" / "audit", "**/*.py"))


def _files_under(root: Path, pattern: str = "**/*") -> list[Path]:
    """Files under ``root`` (sorted), without bytecode caches and Markdown (the assignment page, which
    grades nothing)."""
    return sorted(p for p in root.glob(pattern)
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".md"))


def _suite_files(assignment: str) -> list:
    """The suite's folder and the rubric's (rubric.yaml, audit.yaml, the handout the audit checker reads,
    pytest.ini): every file whose change reloads the suite and makes a new grader version. Only the
    top-level ``*.py`` and the two YAML files were read: an edited handout or pytest.ini graded
    differently under the same version."""
    return [*_files_under(suite_dir(assignment)), *_files_under(rubric_path(assignment).parent)]


@functools.lru_cache(maxsize=1)
def shared_code_digest(roots: tuple[tuple[Path, str], ...] = SHARED_CODE) -> str:
    """sha256 of the shared code as this process loaded it (read once: an edit takes a restart)."""
    h = hashlib.sha256()
    for root, pattern in roots:
        for path in _files_under(root, pattern):
            h.update(str(path.relative_to(root.parent)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


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
    # The package too: ``from grader_tests.<assignment> import cases`` reads the package's attribute
    # and would hand back the old module, so an edited cases.py (references, inputs) was not reloaded.
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    suite = load_suite(assignment)
    # pytest (--import-mode=importlib) reuses a test module already in sys.modules, so the child
    # neither compiles nor executes it again.
    for path in sorted(suite_dir(assignment).glob("test_*.py")):
        importlib.import_module(f"{package}.{path.stem}")
    suite.warm()  # build cached inputs once in the warm parent; forked children inherit them
    h = hashlib.sha256(shared_code_digest().encode())
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    version = f"{suite.version}+{h.hexdigest()[:10]}"
    rubric = load_rubric(assignment)
    # The audit checklist is part of the same stamp: parsed once per version (YAML costs ~0.1 s).
    # An assignment whose rubric has no audit category has no checklist (and no audit.yaml).
    has_audit = any(c.source == "audit" for c in rubric.categories.values())
    checklist = load_checklist(rubric_path(assignment).parent / "audit.yaml") if has_audit else None
    check_against_rubric(assignment, suite, list(rubric.categories))
    state = SuiteState(stamp, suite, rubric, checklist, version)
    _states[assignment] = state
    return state


def grader_version(assignment: str) -> str:
    return suite_state(assignment).version
