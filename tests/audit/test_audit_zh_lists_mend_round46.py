"""Round 46 mend: zh audit notes list several values with 、, as every other zh list (they joined them with ", ":
"各行之和为 1.30, 0.70", "为 < 0.01, = 0.02")."""

from __future__ import annotations

from rubric.audit import grade_audit
from rubric.audit.checklist import _Metric
from rubric.audit.claims import _check_metric, _Claim
from tests.audit.helpers import CELL_OPENER, EXAMPLE_WEIGHTS, MEASURED_OK, make_heatmap


def test_the_zh_row_sum_note_lists_the_rows_sums_with_the_enumeration_comma(checklist):
    r = grade_audit(CELL_OPENER + "q0's row sums to 1.3 and q1's to 0.8.\n", make_heatmap(), MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    flag = next(f for f in r["flags"] if "sums to something other than 1" in f["message"]["en"])
    assert "1.00, 1.00" in flag["message"]["en"]
    assert "各行之和为 1.00、1.00。" in flag["message"]["zh"], flag["message"]["zh"]


def test_the_zh_contradiction_note_lists_the_claimed_values_with_the_enumeration_comma():
    metric = _Metric("mask_leak", "mask_leak", 0.01, {"en": "the mask leak", "zh": "掩码泄漏"}, None)
    claims = [_Claim("mask_leak", "lt", 0.01, "leak < 0.01"), _Claim("mask_leak", "eq", 0.005, "leak = 0.005")]
    flag = _check_metric(metric, claims, 0.5)
    assert flag is not None
    assert "< 1e-02, = 5e-03" in flag["message"]["en"]
    assert "为 < 1e-02、= 5e-03（" in flag["message"]["zh"], flag["message"]["zh"]
