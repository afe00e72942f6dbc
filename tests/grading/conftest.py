"""Fixtures of the grading tests: ONE real sandbox Executor per test module (torch imported once)."""

from __future__ import annotations

from pathlib import Path

import pytest

SUBMISSIONS = Path(__file__).resolve().parent.parent / "fixtures" / "submissions"


@pytest.fixture(scope="module")
def executor():
    """A real sandbox executor with short call/import timeouts (hang tests stay fast)."""
    from grading.sandbox import Executor, Limits

    # No skip when the sandbox is unavailable: grading without it is not grading.
    with Executor(Limits(call_timeout=2.0, import_timeout=3.0)) as ex:
        yield ex


def read(path: Path) -> bytes:
    return path.read_bytes()


def expected_category(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no '# expect: <category>' header")
