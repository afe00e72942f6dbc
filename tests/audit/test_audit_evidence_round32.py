"""Round 32: a score never rises because the code got worse (docs/contracts.md §3, EVIDENCE RULE).

The same audit text and figure scored 4/15 when the student's code loaded (the figure was checked against the weights
that code computed for the lab's 2x3 example, and did not match) and 15/15 when the code did not load (no weights: the
figure check was skipped). The reference weights of that example are known whatever the code does: the audit is
graded against them too, and against them alone when the code gave none."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import AUDITS, EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

REFERENCE = [[0.4011, 0.1978, 0.4011], [0.2840, 0.1400, 0.5760]]     # grader_tests/attention hand_reference()
OTHER = [[0.6, 0.1, 0.3], [0.5, 0.4, 0.1]]                            # what a buggy implementation computes
READS_EXAMPLE = ("My heatmap has rows q0, q1 and columns k0-k2; each row is a query and each column a key.\n"
                 "q0 attends most to k1 (0.58) and q1 most to k2 (0.67).\nEach row of my heatmap sums to 1.\n"
                 "The high weight on k2 does not show that k2 causes q1's output, and it is not feature importance.\n"
                 "One small example does not generalise.\nmax_abs_error = 2.6e-7, row_sum_error = 1.1e-7.\n")
TEXTS = {"reads_cells": READS_EXAMPLE, "zh_thorough": (AUDITS / "zh_thorough.md").read_text(encoding="utf-8")}
FIGURES = {"example": EXAMPLE_WEIGHTS, "other": OTHER}


@pytest.mark.parametrize("figure", sorted(FIGURES))
@pytest.mark.parametrize("text", sorted(TEXTS))
@pytest.mark.parametrize("code", [EXAMPLE_WEIGHTS, OTHER], ids=["one_code", "another_code"])
def test_code_that_gave_no_weights_never_scores_higher_than_code_that_ran(text, figure, code, checklist):
    fig = make_heatmap(FIGURES[figure])
    ran = grade_audit(TEXTS[text], fig, MEASURED_OK, checklist, weights=code, reference=REFERENCE)
    broken = grade_audit(TEXTS[text], fig, MEASURED_OK, checklist, weights=None, reference=REFERENCE)
    assert broken["score"] <= ran["score"], (broken["score"], ran["score"])


def test_figure_of_other_numbers_is_flagged_when_the_code_did_not_load_as_when_it_ran(checklist):
    fig = make_heatmap(EXAMPLE_WEIGHTS)      # the round-31 case: plots neither the buggy code's weights nor the reference
    ran = grade_audit(READS_EXAMPLE, fig, MEASURED_OK, checklist, weights=OTHER, reference=REFERENCE)
    broken = grade_audit(READS_EXAMPLE, fig, MEASURED_OK, checklist, weights=None, reference=REFERENCE)
    assert ran["score"] == broken["score"] <= 4
    assert "figure" in [f["kind"] for f in broken["flags"]]
    fb = items(broken)["figure"]["feedback"]
    assert "reference weights" in fb["en"] and "参考权重" in fb["zh"]
    assert "参考权重" not in items(ran)["figure"]["feedback"]["zh"]


def test_a_figure_of_the_reference_weights_is_evidence_beside_buggy_code(checklist):
    reads_reference = READS_EXAMPLE.replace("q0 attends most to k1 (0.58) and q1 most to k2 (0.67)",
                                            "q0 attends least to k1 (0.20) and q1 most to k2 (0.58)")
    r = grade_audit(reads_reference, make_heatmap(REFERENCE), MEASURED_OK, checklist, weights=OTHER, reference=REFERENCE)
    assert "figure" not in [f["kind"] for f in r["flags"]], r["flags"]
