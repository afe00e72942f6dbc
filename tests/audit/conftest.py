"""Fixtures for the written-audit checker: the shipped checklist, fixture audits, images and PDFs built
in memory (nothing binary is committed)."""

from __future__ import annotations

import pytest

from rubric.audit import load_checklist
from tests.audit.helpers import AUDITS, make_heatmap


@pytest.fixture(scope="session")
def checklist():
    return load_checklist()


@pytest.fixture(scope="session")
def audit_text():
    def read(name: str) -> str:
        return (AUDITS / name).read_text(encoding="utf-8")
    return read


@pytest.fixture(scope="session")
def heatmap_png() -> bytes:
    return make_heatmap()


@pytest.fixture(scope="session")
def heatmap_info(heatmap_png):
    from grading.inputs import validate_figure
    return validate_figure("attention_2x3.png", heatmap_png)


