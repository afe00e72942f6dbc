"""CPU of the test process (issue 14 item 1, round 24): references of fixed inputs are computed once
per suite version in the worker and inherited by every later grading's child; a passing check
writes no feedback."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
import torch

import grading.child
from grading.fixed import FixedCache
from grading.i18n import msg
from grading.proxy import Feedback, expect
from grading.runner import GradeInput, grade
from grading.suite_state import suite_state
from rubric.loader import SUITE_ROOT
from tests.grading.helpers import SUBMISSIONS

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_bytes()


def _children_reports(monkeypatch) -> list[dict]:
    reports: list[dict] = []
    fork = grading.child._fork_child

    def recording(*args, **kwargs):
        report = fork(*args, **kwargs)
        reports.append(report)
        return report

    monkeypatch.setattr(grading.child, "_fork_child", recording)
    return reports


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 41)
def test_fixed_references_are_computed_once_per_suite_version_and_inherited_by_later_gradings(executor, monkeypatch):
    reports = _children_reports(monkeypatch)
    cases_file = SUITE_ROOT / "attention" / "cases.py"
    st = cases_file.stat()
    os.utime(cases_file, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))   # a new suite version
    first = grade(GradeInput(code=CORRECT), "attention", executor)
    fixed = suite_state("attention").suite.fixed
    assert fixed is not None
    second = grade(GradeInput(code=CORRECT), "attention", executor)
    assert first["status"] == second["status"] == "graded"
    assert first["total"] == second["total"] == 85
    assert [t["outcome"] for t in first["tests"]] == [t["outcome"] for t in second["tests"]]
    assert first["measurements"] == second["measurements"]
    # The first child computed the references and said which; the worker computed them too, so
    # the second child found every one of them already there.
    assert len(reports[0]["fixed"]) > 20
    assert fixed.holds()[1] >= len([r for r in reports[0]["fixed"] if r["t"][0] == "r"])
    assert reports[1]["fixed"] == []
    # A changed suite version starts from nothing: its first child computes them again.
    os.utime(cases_file, ns=(st.st_atime_ns, st.st_mtime_ns + 2000))
    third = grade(GradeInput(code=CORRECT), "attention", executor)
    os.utime(cases_file, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert third["total"] == 85
    assert suite_state("attention").suite.fixed is not fixed
    assert len(reports[2]["fixed"]) > 20


def _cache() -> tuple[FixedCache, object, object, list[int]]:
    cache = FixedCache()
    calls = [0]

    @cache.input
    def inputs(seed: int, n: int, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        return torch.randn(n, 3, generator=g, dtype=dtype), torch.randn(n, 3, generator=g, dtype=dtype)

    @cache.reference
    def ref(a: torch.Tensor, b: torch.Tensor, pad: torch.Tensor | None = None, scale: float = 1.0) -> torch.Tensor:
        calls[0] += 1
        s = a.double() @ b.double().T * scale
        return s if pad is None else s.masked_fill(pad, float("-inf"))

    return cache, inputs, ref, calls


def test_a_reference_is_memoised_only_for_fixed_inputs_and_handed_out_as_a_copy():
    cache, inputs, ref, calls = _cache()
    a, b = inputs(1, 4)
    first = ref(a, b)
    first.zero_()                                    # a caller that changes what it was given
    assert torch.equal(ref(a, b), a.double() @ b.double().T) and calls[0] == 1
    assert inputs(1, 4)[0] is a
    ref(a.clone(), b)                                # equal values, not a fixed input: computed
    ref(a, b, scale=2.0)                             # other arguments: another reference
    assert calls[0] == 3
    pad = torch.zeros(4, 4, dtype=torch.bool)
    pad[1, 2:] = True
    ref(a, b, pad)
    again = pad.clone()
    ref(a, b, again)                                 # a mask keyed by its values
    again[0, 0] = True
    ref(a, b, again)
    assert calls[0] == 5


def test_a_fixed_input_changed_in_place_is_built_again_and_its_references_recomputed():
    cache, inputs, ref, calls = _cache()
    a, b = inputs(2, 4)
    before = ref(a, b)
    b[0, 0] = 100.0                                  # a caller changing a shared input (a test's mask)
    assert torch.equal(ref(a, b), a.double() @ b.double().T) and calls[0] == 2   # not the stale one
    fresh_a, fresh_b = inputs(2, 4)
    assert fresh_b is not b and float(fresh_b[0, 0]) != 100.0
    assert torch.equal(ref(fresh_a, fresh_b), before) and calls[0] == 2        # its reference still holds


def test_recipes_reported_by_a_child_rebuild_the_same_references_in_the_worker():
    child, c_inputs, c_ref, _ = _cache()
    worker, w_inputs, w_ref, w_calls = _cache()
    child.start()
    a, b = c_inputs(3, 5, dtype=torch.float64)
    pad = torch.zeros(5, 5, dtype=torch.bool)
    pad[:, 4] = True
    expected = [c_ref(a, b), c_ref(a, b, pad, scale=float("inf")), c_ref(a, b, scale=0.25)]
    recipes = json.loads(json.dumps(child.new_recipes(), allow_nan=False))   # as the report carries them
    assert worker.learn(recipes) == len(recipes) and w_calls[0] == 3
    wa, wb = w_inputs(3, 5, dtype=torch.float64)
    got = [w_ref(wa, wb), w_ref(wa, wb, pad.clone(), scale=float("inf")), w_ref(wa, wb, scale=0.25)]
    assert w_calls[0] == 3                           # all three found, none computed again
    assert all(torch.equal(x, y) for x, y in zip(got, expected, strict=True))
    # What does not decode, or names a function the worker does not have, is skipped.
    assert worker.learn([{"t": ["r", "nope", {"t": []}, {"t": []}]}, {"x": 1}, "junk", None]) == 0
    assert worker.learn("not a list") == 0


def test_expect_writes_its_message_only_when_the_check_fails():
    def boom():
        raise AssertionError("a passing check wrote its feedback")

    expect(True, boom)
    with pytest.raises(Feedback) as info:
        expect(False, lambda: msg("seen", "看到"))
    assert info.value.message == {"en": "seen", "zh": "看到"}


def _eager_diagnoses(path: Path) -> list[str]:
    """``expect(condition, message)`` calls whose message runs a diagnosis (reading the source,
    probing the student) as an argument: work done for every passing check."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "expect" \
                and len(node.args) > 1 and not isinstance(node.args[1], ast.Lambda):
            for inner in ast.walk(node.args[1]):
                if isinstance(inner, ast.Call) and ast.unparse(inner.func).startswith("diagnose."):
                    found.append(f"{path.name}:{node.lineno} {ast.unparse(inner.func)}")
    return found


def test_no_check_of_a_suite_runs_a_diagnosis_before_it_has_failed():
    files = sorted(SUITE_ROOT.glob("*/test_*.py"))
    assert files
    assert [f for path in files for f in _eager_diagnoses(path)] == []


def test_no_fixture_of_the_grading_plugin_asks_pytest_for_request():
    """pytest builds a fixture definition for ``request`` (a signature inspection) at every test
    that asks for it; the plugin's fixtures read the running test from its own hook instead."""
    from grading.collected import collected_suite

    collected = collected_suite("attention", suite_state("attention").suite)
    assert collected.items
    assert [item.name for item in collected.items if "request" in item.fixturenames] == []
