"""Round 33 (helper g): claims about whole columns and rows in colour words, plans read as readings, and caveat lists.

Found and fixed (each test below fails before the fix):
1. A colour word said of a whole column or of every row was not checked against the weights: "k2 is the darkest column
   in both rows", "Column k0 is the brightest", 两行里 k2 都是最暗的 (false of the lab's figure on viridis, where dark is
   the low end) were not flagged. A colour word now reads a peak or a low end by the figure's low end, as value words
   do (grade._shade); "column" beside a key's label reads its column (grade._COLUMN_BEFORE / _COLUMN_AFTER).
   "every query puts the least weight on k1" in an audit naming k0 was read as counted from 1 (k1 = the first key,
   which is the least): a label counted from 0 anywhere counts every label written the same way from 0
   (grade._zero_labels).
2. "q0 should attend mostly to k0" (a plan, not a reading) earned the reading-budget concept: a plan or an expectation
   about a query or key earns no reading (reason `planned`, grade._planned_cell).
3. One sentence listing many caveats with no reason ("my heatmap 不能证明 causality，不能证明 feature importance，不能证明
   model decision") earned limits 3: each caveat took the others as what it says. A sentence that only lists caveats
   (as many clauses as make a keyword list, each a negation of its own, none with a reason, a number, a key or a high
   weight) earns each as a bare caveat (grade._bare_list): the rubric's bare rule ("'causality: no' is stated without
   a reason (-1)") for each, as alone. Two caveats in prose, one negation over a list and a list with its reason or
   case keep their credit (validation/zh_honest_failure.md, "无论实现对不对，..." keeps 7).

EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21], q1 [0.09, 0.24, 0.67]; columns summed k0 0.30, k1 0.82, k2 0.88.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import (
    CELL_OPENER,
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    items,
    make_heatmap,
    misreads_a_cell,
)
from tests.audit.test_audit_round29 import BLUES

VIRIDIS = make_heatmap()


def _graded(text: str, checklist) -> dict:
    return grade_audit(CELL_OPENER + text + "\n", VIRIDIS, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)


# ------------------------------------------------------------------ 1. colour words of a whole column or every row

@pytest.mark.parametrize("sentence", [
    "k2 is the darkest column in both rows.",
    "In both rows k2 is the darkest.",
    "Column k0 is the brightest.",
    "Column k0 is the brightest column.",
    "k2 is the darkest column.",
    "q1's darkest cell is k2.",
    "In every row, k1 is the darkest cell.",
    "every query puts the least weight on k1.",
    "两行里 k2 都是最暗的。",
    "k0 列最亮。",
    "k2 是最暗的一列。",
])
def test_a_false_colour_reading_of_a_column_or_of_every_row_is_a_misreading_on_viridis(sentence, checklist):
    assert misreads_a_cell(sentence, checklist, VIRIDIS)


@pytest.mark.parametrize(("sentence", "figure"), [
    ("k0 is the darkest column in both rows.", VIRIDIS),
    ("In both rows k0 is the darkest.", VIRIDIS),
    ("Column k2 is the brightest.", VIRIDIS),
    ("k2 is the brightest column.", VIRIDIS),
    ("q1's darkest cell is k0.", VIRIDIS),
    ("q1's brightest cell is k2.", VIRIDIS),
    ("every query puts the least weight on k0.", VIRIDIS),
    ("两行里 k0 都是最暗的。", VIRIDIS),
    ("每一行里 k0 都是最暗的。", VIRIDIS),
    ("k0 是最暗的一列。", VIRIDIS),
    # on Blues the low end is light: k2 (the most weight) is the darkest
    ("k2 is the darkest column.", BLUES),
    ("In both rows k0 is the lightest.", BLUES),
    # compared or denied: no extreme read
    ("In both rows k0 is darker than k1.", VIRIDIS),
    ("It is not true that k2 is the darkest column.", VIRIDIS),
])
def test_a_true_or_no_colour_reading_of_a_column_or_of_every_row_is_no_misreading(sentence, figure, checklist):
    assert not misreads_a_cell(sentence, checklist, figure)


def test_labels_written_as_query_and_key_words_may_still_count_from_one_beside_q0_ticks(checklist):
    """The figure's ticks q0, k0 named in the opener count only q/k labels from 0, not "query 1" / "key 2"."""
    assert not misreads_a_cell("query 1 attends mostly to key 2, query 2 mostly to key 3.", checklist, VIRIDIS)


def test_the_misreading_feedback_says_what_the_weights_show_in_both_languages(checklist):
    r = _graded("k2 is the darkest column in both rows.", checklist)
    flag = next(f for f in r["flags"] if f["kind"] == "figure")
    assert "q1: [0.09, 0.24, 0.67]" in flag["message"]["en"] and "q1: [0.09, 0.24, 0.67]" in flag["message"]["zh"]
    assert "k2 is the darkest" in flag["message"]["en"]


# ------------------------------------------------------------------ 2. a plan is not a reading

def _budget_points(text: str, checklist) -> tuple[float, dict]:
    it = items(_graded(text, checklist))["figure_reading"]
    return it["points"], it["feedback"]


@pytest.mark.parametrize("sentence", [
    "q0 should attend mostly to k0.",
    "I expect q1 to read mostly from k2.",
    "q1 is supposed to attend mostly to k2.",
])
def test_a_plan_about_a_query_earns_no_reading_and_the_feedback_says_so(sentence, checklist):
    points, feedback = _budget_points(sentence, checklist)
    assert points == 0, feedback["en"]
    assert "should happen" in feedback["en"] and "应该怎样" in feedback["zh"]


@pytest.mark.parametrize("sentence", [
    "q0 attends mostly to k1.",
    "q1 attends mostly to k2, as expected.",
])
def test_a_reading_of_a_query_still_earns_the_reading_budget(sentence, checklist):
    points, feedback = _budget_points(sentence, checklist)
    assert points == 1, feedback["en"]


# ------------------------------------------------------------------ 3. a list of caveats in one sentence

def _limits(text: str, checklist) -> float:
    return items(_graded(text, checklist))["limits"]["points"]


@pytest.mark.parametrize("sentence", [
    "my heatmap 不能证明 causality，不能证明 feature importance，不能证明 model decision。",
    "The heatmap cannot prove causality, cannot show feature importance, and is not an explanation of the decision.",
    "热力图不能证明因果，不能证明重要性，不能解释机制。",
])
def test_a_sentence_listing_caveats_without_reasons_earns_them_as_bare_caveats(sentence, checklist):
    """Before: 3 (two caveats in full); after: a bare one at most half, as a caveat alone in its sentence."""
    assert _limits(sentence, checklist) < 3


@pytest.mark.parametrize("sentence", [
    "The figure does not show causality, and a high weight does not mean feature importance.",
    "高权重不代表因果，也不代表 feature importance，因为这只是读取系数。",
    "Causality cannot be read off this figure, since it would need an ablation of k2, and a high weight on k2 is "
    "not feature importance either.",
    "Not causal, not feature importance: one seed only.",
    "The heatmap cannot prove causality, feature importance, or the true mechanism of the model.",
    "无论实现对不对，这张图都不能说明因果，也不能把高权重当作 feature importance。",
    "这张图不能证明 k1 或 k2 对输出有因果作用，要做 ablation；也不代表 feature importance。",
])
def test_caveats_in_prose_or_with_a_reason_keep_their_credit(sentence, checklist):
    assert _limits(sentence, checklist) == 3
