"""Helpers of the grading tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

from pathlib import Path

SUBMISSIONS = Path(__file__).resolve().parent.parent / "fixtures" / "submissions"


def read(path: Path) -> bytes:
    return path.read_bytes()


def expected_category(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no '# expect: <category>' header")
