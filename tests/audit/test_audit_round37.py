"""Round 37 on the audit (brief D): misreadings found in terse notes and twins, each fixed for its class in zh and en.

1. A caveat's reason in an aside ("not causal (no ablation)", 不是因果（没做消融）, "not causal - no ablation") was read as
   a double negation with the caveat's own "not": the two cancelled and the causal caveat earned nothing (0 of 1.5),
   where "not causal, no ablation" earned it. A bracket or a dash between two negations now keeps them apart.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


def _points(text: str, item: str) -> float:
    return items(_grade(text))[item]["points"]


# --- 1. a reason in an aside ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("note", [
    "not causal (no ablation)",
    "not causal - no ablation",
    "not causal \u2014 no ablation",
    "不是因果（没做消融）",
    "不是因果——没做消融",
])
def test_a_caveat_with_its_reason_in_an_aside_keeps_the_causal_caveat(note):
    assert _points("Rows are queries, columns are keys.\n" + note + "\n", "limits") == 1.5


@pytest.mark.parametrize("text", [
    "k2 causes q1's output (no doubt about it).\n",
    "k2 是 q1 输出的原因（毫无疑问）。\n",
])
def test_an_aside_after_an_overclaim_denies_nothing(text):
    r = _grade("Rows are queries, columns are keys.\n" + text)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0
