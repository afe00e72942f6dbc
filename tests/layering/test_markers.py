"""The `postgres` marker is applied by tests/conftest.py wherever the database is used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def collected(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=120).stdout
    return [line for line in out.splitlines() if "::" in line]


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_tests_using_the_database_are_marked_postgres_and_no_others():
    web = collected("tests/web/test_two_assignments.py")
    fast = collected("-m", "not postgres", "tests/web/test_two_assignments.py")
    # The one test of that module that reads a rubric file and no database stays in the fast lane.
    assert [t.split("::")[1] for t in fast] == ["test_a_broken_rubric_is_an_error_not_a_default"]
    assert collected("-m", "postgres", "tests/web/test_two_assignments.py") == [t for t in web if t not in fast]


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_tests_without_the_database_stay_in_the_fast_lane():
    fast = collected("-m", "not postgres", "tests/layering/test_dependencies.py", "tests/grading/test_rubric.py")
    assert any("test_dependencies" in t for t in fast) and any("test_rubric" in t for t in fast)
