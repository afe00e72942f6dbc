"""Round 32: when attention.py does not load, the runner still gives the audit checker the lab example's reference
weights, so a figure of other numbers is flagged as it is beside code that ran (it scored 15/15 for broken code)."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade
from tests.audit.helpers import make_heatmap

AUDIT = ("My heatmap has rows q0, q1 and columns k0-k2; each row is a query and each column a key.\n"
         "q0 attends most to k0 (0.60) and q1 most to k0 (0.50).\nEach row of my heatmap sums to 1.\n")


@pytest.mark.slow     # a sandboxed grading (13-16 s on the shared machine)
def test_code_that_does_not_load_has_its_figure_checked_against_the_reference_weights(executor):
    figure = make_heatmap([[0.6, 0.1, 0.3], [0.5, 0.4, 0.1]])      # neither the reference nor anything the code ran
    result = grade(GradeInput(code=b"import torch\nraise RuntimeError('boom at import')\n", audit=AUDIT.encode(),
                              audit_filename="audit.md", figure=figure, figure_filename="figure.png"),
                   "attention", executor)
    assert result["load_error"]
    audit = result["audit"]
    assert "figure" in [f["kind"] for f in audit["flags"]], audit["flags"]
    fig = next(it for it in audit["items"] if it["id"] == "figure")
    assert "reference weights" in fig["feedback"]["en"] and "参考权重" in fig["feedback"]["zh"]
