"""One direction of dependencies (issue 13): web -> queue -> worker -> grading engine -> sandbox.

Imports are read with `ast` from every module, including imports inside functions, so a lazy
import cannot hide a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """{file: top-level names of every module it imports} for each .py file of `package`."""
    out: dict[str, set[str]] = {}
    for path in sorted((root / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        out[str(path.relative_to(root))] = names
    return out


@pytest.mark.parametrize("package, forbidden", [
    ("grading", {"flask", "flask_login", "flask_sqlalchemy", "sqlalchemy", "celery", "kombu", "app", "worker"}),
    ("app", {"worker"}),
    ("rubric", {"flask", "sqlalchemy", "celery", "app", "worker"}),
])
def test_package_never_imports_the_layers_above_it(package, forbidden):
    offenders = {f: sorted(names & forbidden) for f, names in imported_modules(package).items() if names & forbidden}
    assert offenders == {}, f"{package}/ must not import {sorted(forbidden)}"


def test_the_checker_sees_imports_inside_functions(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text("def f():\n    from worker.tasks import grade\n    import flask.json\n")
    assert imported_modules("pkg", tmp_path) == {"pkg/m.py": {"worker", "flask"}}


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_no_test_module_imports_from_a_conftest():
    """Helpers live in helpers.py modules; conftest.py files hold fixtures and hooks only."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        # tests/fixtures holds student submissions: data in any encoding or syntax, not test modules.
        if path.name == "conftest.py" or "fixtures" in path.relative_to(ROOT / "tests").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "conftest":
                offenders.append(f"{path.relative_to(ROOT)}: from {node.module}")
    assert offenders == []
