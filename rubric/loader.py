"""Load and validate an assignment rubric (``rubric/<assignment>/rubric.yaml``).

The rubric is data edited by instructors; this module only reads it and refuses anything that
would make scores ambiguous.  Pure functions on plain data, no torch, no sandbox.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import yaml

RUBRIC_ROOT = Path(__file__).resolve().parent
SUITE_ROOT = RUBRIC_ROOT.parent / "grader_tests"

VISIBILITIES = ("visible", "hidden")
_CATEGORY_KEYS = {"max", "label", "source"}
_TEST_KEYS = {"category", "points", "visibility", "description"}
_TOP_KEYS = {"assignment", "version", "max_total", "categories", "tests"}


class RubricError(ValueError):
    """The rubric file is malformed or inconsistent with the suite."""


@dataclass(frozen=True)
class Category:
    name: str
    max: float
    label: dict
    source: str = "tests"  # "tests" or "audit"


@dataclass(frozen=True)
class TestSpec:
    id: str
    category: str
    points: float
    hidden: bool
    description: dict


@dataclass(frozen=True)
class Rubric:
    assignment: str
    version: int
    max_total: float
    categories: dict[str, Category]
    tests: dict[str, TestSpec] = field(default_factory=dict)

    def tests_in(self, category: str) -> list[TestSpec]:
        return [t for t in self.tests.values() if t.category == category]


def _bilingual(value, where: str) -> dict:
    if not isinstance(value, dict) or not all(isinstance(value.get(k), str) and value.get(k).strip()
                                              for k in ("en", "zh")):
        raise RubricError(f"{where}: needs non-empty 'en' and 'zh' strings")
    return {"en": value["en"], "zh": value["zh"]}


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise RubricError(f"{where}: must be a positive number, got {value!r}")
    return value


def parse_rubric(data) -> Rubric:
    """Validate already-parsed YAML data and build a :class:`Rubric`."""
    if not isinstance(data, dict):
        raise RubricError("rubric: top level must be a mapping")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise RubricError(f"rubric: unknown keys {sorted(unknown)}")
    for key in ("assignment", "max_total", "categories", "tests"):
        if key not in data:
            raise RubricError(f"rubric: missing '{key}'")
    max_total = _number(data["max_total"], "max_total")

    cats: dict[str, Category] = {}
    if not isinstance(data["categories"], dict) or not data["categories"]:
        raise RubricError("categories: must be a non-empty mapping")
    for name, spec in data["categories"].items():
        if not isinstance(spec, dict):
            raise RubricError(f"categories.{name}: must be a mapping")
        if set(spec) - _CATEGORY_KEYS:
            raise RubricError(f"categories.{name}: unknown keys {sorted(set(spec) - _CATEGORY_KEYS)}")
        source = spec.get("source", "tests")
        if source not in ("tests", "audit"):
            raise RubricError(f"categories.{name}.source: must be 'tests' or 'audit'")
        cats[name] = Category(name, _number(spec.get("max"), f"categories.{name}.max"),
                              _bilingual(spec.get("label"), f"categories.{name}.label"), source)
    if abs(sum(c.max for c in cats.values()) - max_total) > 1e-9:
        raise RubricError(f"categories: maxima add up to {sum(c.max for c in cats.values())}, "
                          f"max_total is {max_total}")

    tests: dict[str, TestSpec] = {}
    if not isinstance(data["tests"], dict) or not data["tests"]:
        raise RubricError("tests: must be a non-empty mapping")
    for tid, spec in data["tests"].items():
        where = f"tests.{tid}"
        if not isinstance(tid, str) or not tid.startswith("test_"):
            raise RubricError(f"{where}: test ids are test function names starting with 'test_'")
        if not isinstance(spec, dict):
            raise RubricError(f"{where}: must be a mapping")
        if set(spec) != _TEST_KEYS:
            raise RubricError(f"{where}: needs exactly the keys {sorted(_TEST_KEYS)}")
        cat = spec["category"]
        if cat not in cats:
            raise RubricError(f"{where}.category: unknown category {cat!r}")
        if cats[cat].source != "tests":
            raise RubricError(f"{where}.category: {cat!r} is not scored by tests")
        if spec["visibility"] not in VISIBILITIES:
            raise RubricError(f"{where}.visibility: must be one of {VISIBILITIES}")
        tests[tid] = TestSpec(tid, cat, _number(spec["points"], f"{where}.points"),
                              spec["visibility"] == "hidden",
                              _bilingual(spec["description"], f"{where}.description"))

    for cat in cats.values():
        if cat.source != "tests":
            continue
        got = sum(t.points for t in tests.values() if t.category == cat.name)
        if abs(got - cat.max) > 1e-9:
            raise RubricError(f"categories.{cat.name}: test points add up to {got}, max is {cat.max}")
    return Rubric(str(data["assignment"]), int(data.get("version", 1)), max_total, cats, tests)


def rubric_path(assignment: str) -> Path:
    if not assignment.isidentifier():
        raise RubricError(f"invalid assignment name {assignment!r}")
    return RUBRIC_ROOT / assignment / "rubric.yaml"


def load_rubric(assignment: str, *, check_suite: bool = True) -> Rubric:
    """Load ``rubric/<assignment>/rubric.yaml``; with ``check_suite`` also require that its tests
    are exactly the test functions of ``grader_tests/<assignment>/``."""
    path = rubric_path(assignment)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise RubricError(f"no rubric for assignment {assignment!r}") from exc
    except yaml.YAMLError as exc:
        raise RubricError(f"{path.name}: invalid YAML: {exc}") from exc
    rubric = parse_rubric(data)
    if rubric.assignment != assignment:
        raise RubricError(f"{path.name}: assignment is {rubric.assignment!r}, expected {assignment!r}")
    if check_suite:
        check_against_suite(rubric, suite_test_ids(assignment))
    return rubric


def suite_dir(assignment: str) -> Path:
    return SUITE_ROOT / assignment


def suite_test_ids(assignment: str) -> set[str]:
    """Test function names of the suite, found statically (no import): top-level ``def test_*``
    in ``test_*.py`` files.  Duplicate names across files are an error (ids must be unique)."""
    ids: dict[str, str] = {}
    for path in sorted(suite_dir(assignment).glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                if node.name in ids:
                    raise RubricError(f"test id {node.name} defined in both {ids[node.name]} and {path.name}")
                ids[node.name] = path.name
    return set(ids)


def check_against_suite(rubric: Rubric, ids: set[str]) -> None:
    missing = sorted(ids - set(rubric.tests))
    extra = sorted(set(rubric.tests) - ids)
    if missing or extra:
        raise RubricError(f"rubric and suite disagree: not in rubric {missing}, not in suite {extra}")
