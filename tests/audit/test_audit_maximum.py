"""The audit's maximum is the checklist's, and the rubric's audit category agrees with it."""

from __future__ import annotations

import copy

import pytest

from rubric.audit import ChecklistError, grade_audit
from rubric.audit.checklist import compile_checklist
from rubric.loader import load_rubric


def test_rubric_audit_category_and_checklist_have_the_same_maximum(checklist):
    rubric = load_rubric("attention")
    audit_cats = [c for c in rubric.categories.values() if c.source == "audit"]
    assert len(audit_cats) == 1
    assert audit_cats[0].max == checklist.max_points


def test_checklist_without_max_points_is_refused(checklist):
    data = copy.deepcopy(checklist.source)
    del data["max_points"]
    with pytest.raises(ChecklistError, match="max_points"):
        compile_checklist(data)


def test_result_max_follows_the_checklist(checklist):
    data = copy.deepcopy(checklist.source)
    data["max_points"] = 30
    for it in data["items"]:
        it["weight"] *= 2
    assert grade_audit("", None, {}, compile_checklist(data))["max"] == 30
