"""Fixtures of the grading tests: ONE real sandbox Executor per test module (torch imported once)."""

from __future__ import annotations

from pathlib import Path

import pytest

SUBMISSIONS = Path(__file__).resolve().parent.parent / "fixtures" / "submissions"


@pytest.fixture(scope="module")
def executor():
    """A real sandbox executor with short call/import timeouts (hang tests stay fast)."""
    try:
        from worker.sandbox import Executor, Limits, SandboxUnavailable
    except ImportError as exc:  # pragma: no cover - the sandbox package is part of the project
        pytest.skip(f"worker.sandbox is not importable: {exc}")
    try:
        ex = Executor(Limits(call_timeout=2.0, import_timeout=3.0))
    except SandboxUnavailable as exc:
        pytest.skip(f"sandbox unavailable on this host: {exc}")
    with ex:
        yield ex


@pytest.fixture
def code_only_audit(monkeypatch):
    """Grade code categories without depending on the audit checker's state.

    The corpus tests are about the code categories; the audit checker (another component) is tested
    through the real integration in test_grading.py::test_audit_checker_integration."""
    import worker.grading as grading

    monkeypatch.setattr(grading, "_audit_checker", lambda assignment: None)


def read(path: Path) -> bytes:
    return path.read_bytes()


def expected_category(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no '# expect: <category>' header")
