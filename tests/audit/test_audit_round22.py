"""Audit red-team round 22.

1. A key named before its query with a verb between ("the last key gets most of q1's weight", "k2 takes 0.21 of q1's
   weight", 最后一个 key 得到了 q0 的大部分权重) was not read as a cell: a false one earned its sentence and was not
   flagged. Now it is checked against the weights the student's code computes, as "key 2 of query 1" was (round 21).
2. A test whose outcome is ``error`` (the grader's own problem, grading/plugin.py) refuted an audit claim as a failed
   one does ("your own code fails ..."): an error is no evidence about the student's code; only ``failed`` is.
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

FIGURE = make_heatmap()
OPENER = CELL_OPENER


def misread(sentence: str, checklist) -> bool:
    return misreads_a_cell(sentence, checklist, FIGURE)


# ------------------------------------------------------------------ 1. a key that gets a share of a query's weight
# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21] peaks at k1, q1 [0.09, 0.24, 0.67] peaks at k2 (the last key)

@pytest.mark.parametrize("sentence", [
    "The last key gets most of q0's weight.",
    "k2 gets most of q0's weight.",
    "k0 receives the largest share of q1's attention.",
    "k2 takes 0.21 of q1's weight.",
    "Key 0 gets 71% of query 0's attention.",
    "k2 gets most of q1's weight (0.24).",
    "k1 gets 58% of q0's attention and k2 gets 27% of q1's.",
    "最后一个 key 得到了 q0 的大部分权重。",
    "k0 拿到了 q1 最多的注意力。",
    "k2 分到了 q1 0.21 的权重。",
])
def test_a_false_key_that_gets_a_share_of_a_query_is_a_misread_cell(sentence, checklist):
    """Before: not read (no flag, the sentence kept its credit); after: flagged as a cell the figure does not show."""
    assert misread(sentence, checklist)


@pytest.mark.parametrize("sentence", [
    "The last key gets most of q1's weight.",
    "k1 receives the largest share of q0's attention.",
    "k2 takes 0.67 of q1's weight.",
    "Key 0 gets 21% of query 0's attention.",
    "k2 gets most of q1's weight (0.67).",
    "k1 gets 58% of q0's attention and k2 gets 67% of q1's.",
    "k2 does not get most of q0's weight.",
    "k1 and k2 get most of q0's weight.",
    "In the masked experiment k2 gets 0.0 of q1's weight.",
    "最后一个 key 得到了 q1 的大部分权重。",
    "k2 分到了 q1 0.67 的权重。",
])
def test_a_true_denied_shared_or_other_tensor_key_share_is_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)


# ------------------------------------------------------------------ 2. an error outcome is no evidence

CLAIM = "The mask is added to the scores before the softmax, so blocked keys get weight 0."


def _test_flags(outcome: str, checklist) -> list[dict]:
    tests = {"test_blocked_key_gets_zero_weight": outcome, "test_additive_mask_parity": outcome}
    return [f for f in grade_audit(CLAIM, None, {}, checklist, tests=tests)["flags"] if f["kind"] == "claim_vs_tests"]


@pytest.mark.parametrize("outcome", ["error", "timeout", "passed"])
def test_a_test_the_grader_could_not_complete_refutes_no_claim(outcome, checklist):
    """Before: outcome "error" flagged "your own code fails test_blocked_key_gets_zero_weight"; after: no flag."""
    assert _test_flags(outcome, checklist) == []


def test_a_failed_test_still_refutes_the_claim(checklist):
    flags = _test_flags("failed", checklist)
    assert len(flags) == 1 and "test_blocked_key_gets_zero_weight" in flags[0]["message"]["en"]


# ------------------------------------------------------------------ 3. the handout translated or reworded

READINGS = "My heatmap: rows q0, q1; columns k0-k2. q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\n"


def limits(sentence: str, checklist) -> tuple[float, dict]:
    r = grade_audit(READINGS + sentence + "\n", FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return items(r)["limits"]["points"], r


@pytest.mark.parametrize("sentence", [
    # machine translations of the handout's caveats (lesson 2 §9, §3, the course page's case and §13)
    "But this does not automatically equal causal explanation, feature importance or real mechanism discovery.",
    "This does not automatically mean a causal explanation, feature importance, or the discovery of a true mechanism.",
    "The figure is used to audit the routing, not to upgrade the depth of color into \"causal importance\".",
    "Attention itself is not causal evidence; it is only a differentiable retrieval of the representation layer.",
    "A beautiful heatmap or a lower loss cannot replace these basic evidences, so it does not show the code is correct.",
    "Interpreting the attention weight directly as causal importance is wrong; weights are the model's internal "
    "computation and are not equal to the real mechanism.",
    # the Chinese handout reworded with synonyms (no 4-gram left)
    "但是这并不自动等同于因果解释、特征重要性或者真实的机制发现。",
    "注意力本身并非因果证据；它仅仅是表示层的可微分检索。",
    "这张图是拿来审计路由的，不是把颜色的深浅升级为「因果重要性」。",
])
def test_a_handout_caveat_translated_or_reworded_earns_nothing(sentence, checklist):
    """Before: limits 1.5-3 (4 for four of them in one audit, tests/audit/gaming/handout_translated_en.md); after: 0,
    and flagged as copied."""
    points, r = limits(sentence, checklist)
    assert points == 0, items(r)["limits"]["feedback"]["en"]
    assert "copied" in [f["kind"] for f in r["flags"]]


@pytest.mark.parametrize("sentence", [
    "This does not prove causality: a high weight on k2 does not mean k2 caused the output.",
    "The weights are only the model's internal reading coefficients, not the true mechanism.",
    "A nice heatmap also cannot replace the shape tests and the reference parity check as evidence.",
    "A high weight is not a causal effect or feature importance, and one example says nothing about other inputs.",
    "这张图不能说明因果，k2 权重高不代表 k2 导致了输出；高权重也不等于 feature importance。",
    "图里看到的是模型内部的读取系数，不是真实机制，也不能替代 parity 测试。",
])
def test_caveats_in_the_students_own_words_keep_their_points(sentence, checklist):
    points, r = limits(sentence, checklist)
    assert points > 0, items(r)["limits"]["feedback"]["en"]
    assert "copied" not in [f["kind"] for f in r["flags"]]


# ------------------------------------------------------------------ 4. a masked key's colour on a figure with none

LAB_FIGURE_TEXT = READINGS      # the figure plots EXAMPLE_WEIGHTS: no weight is 0, no key is masked


@pytest.mark.parametrize("sentence", ["The masked keys are dark.", "The masked column is black in my heatmap.",
                                      "被遮蔽的 key 是深色的。", "被 mask 的那一列全黑。"])
def test_a_masked_keys_colour_on_a_figure_without_a_masked_key_earns_nothing_and_says_why(sentence, checklist):
    """Before: figure_reading's masked point (the colour accepted whatever the weights); after: 0, and the feedback
    says the figure has no masked key. On a figure that shows one, the colour still counts (test_audit_round18)."""
    r = grade_audit(LAB_FIGURE_TEXT + sentence + "\n", FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    fb = items(r)["figure_reading"]["feedback"]
    assert "masked / padding keys get weight 0:" in fb["en"], fb["en"]
    assert "no key is masked" in fb["en"] and "没有被 mask 的 key" in fb["zh"]


def test_a_masked_keys_weight_still_counts_on_a_figure_without_a_masked_key(checklist):
    r = grade_audit(LAB_FIGURE_TEXT + "With k0 set to -inf, both queries gave k0 a weight of exactly 0.\n", FIGURE,
                    MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert "masked / padding keys get weight 0:" not in items(r)["figure_reading"]["feedback"]["en"]


ESSAY_ZH = ("注意力热力图是理解模型的重要工具。一般而言，热力图的每一行对应一个 query，每一列对应一个 key，由于 softmax 沿着 key "
            "的维度计算，每一行的权重加总为 1。\n\n被遮罩的位置在 softmax 之前加上负无穷，因此权重恰好为 0，在图中呈现为最暗的颜色。\n\n"
            "然而，热力图不能证明因果关系：权重高并不代表该 key 导致了输出，也不等于特征重要性。权重只是模型内部的读取系数，"
            "单一例子也无法推广到其他输入。\n")


@pytest.mark.parametrize("text", [ESSAY_ZH, ESSAY_ZH.replace("在图中呈现为最暗的颜色", "在图中是黑色的"),
                                  "Attention maps show how queries spread their weight over keys; each row of such a "
                                  "matrix sums to 1 after the softmax.\n\nMasked positions receive exactly 0 after "
                                  "adding -inf, so they appear black in the figure.\n\nA high weight does not prove "
                                  "causality and is not feature importance, and one example does not generalise.\n"])
def test_an_essay_tied_to_the_figure_only_by_a_masked_keys_colour_earns_no_concept(text, checklist):
    """Before: 10/15 (the one line "appears darkest in the figure" anchored the essay); after: the figure's 2."""
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert r["score"] <= 2, [(it["id"], it["points"]) for it in r["items"]]


# ------------------------------------------------------------------ 5. most readings false: another figure

CAVEATS = ("This does not prove that k0 causes q0's output, and a high weight is not feature importance. It is one "
           "example with one seed, so nothing generalises.\n")


@pytest.mark.parametrize("readings", [
    "q0 reads mostly from k0 (0.71).\nq1 reads mostly from k2 (0.67).\nKey 1 of query 1 is 0.55.\n",
    "Query 0 gives 71%, 20% and 9% to keys 0, 1 and 2; query 1 gives 15%, 15% and 70%. The first query peaks at the "
    "first key and the second query peaks at the last key.\n",
    "q0 主要读 k0（0.71）。\nq1 主要读 k2（0.67）。\nq1 对 k1 的权重是 0.55。\n",
])
def test_an_audit_whose_readings_are_mostly_false_is_about_another_figure(readings, checklist):
    """Before: 6-8/15 (one true reading kept the false ones' caveats); after: the figure's 2, flagged."""
    r = grade_audit("My heatmap is weights[0, 0].\n" + readings + CAVEATS, FIGURE, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    assert r["score"] <= 2, [(it["id"], it["points"]) for it in r["items"]]
    assert "figure" in [f["kind"] for f in r["flags"]]


def test_one_false_reading_among_true_ones_costs_its_sentence_only(checklist):
    text = ("My heatmap is weights[0, 0].\nq0 reads mostly from k1 (0.58).\nq1 reads mostly from k2 (0.67).\n"
            "Key 0 of query 1 is 0.30.\n" + CAVEATS)
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert items(r)["limits"]["points"] > 0


# ------------------------------------------------------------------ 6. a Markdown table's rows are rows

TABLE = "| query | k0 | k1 | k2 |\n|---|---|---|---|\n| q0 | {a} |\n| q1 | {b} |\n"


@pytest.mark.parametrize("a, b, false", [
    ("0.71 | 0.20 | 0.09", "0.33 | 0.33 | 0.34", True),     # another figure's table
    ("21% | 58% | 21%", "9% | 24% | 67%", False),            # the figure's own, in percentages
    ("0.21 | 0.58 | 0.21", "0.09 | 0.24 | 0.67", False),
])
def test_a_markdown_table_row_of_weights_is_checked_against_the_figure(a, b, false, checklist):
    """Before: a table's rows were not read (the table of another figure kept its caveats: 7.0); after: checked."""
    text = "My heatmap (weights[0, 0]):\n\n" + TABLE.format(a=a, b=b) + "\n" + CAVEATS
    assert misread_text(text, checklist) is false


def misread_text(text: str, checklist) -> bool:
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


# ------------------------------------------------------------------ 7. the rubric restated

@pytest.mark.parametrize("sentence", [
    "The rubric asks students to state that the heatmap is not causality and not feature importance, and this audit "
    "states that.",
    "As required by the rubric, a high weight is not a causal effect and not feature importance.",
    "According to the rubric, the heatmap cannot prove causality and one example does not generalise.",
    "评分标准要求说明热力图不等于因果、高权重不等于特征重要性，本审计已经说明。",
    "按照评分标准，这张图不能证明因果，高权重也不等于特征重要性。",
])
def test_a_caveat_restated_from_the_rubric_earns_nothing_and_says_why(sentence, checklist):
    """Before: limits 1.5-3 (an audit quoting the rubric item by item: 5.5/15); after: 0, reason "requirement"."""
    points, r = limits(sentence, checklist)
    assert points == 0
    fb = items(r)["limits"]["feedback"]
    assert "restates what the rubric asks" in fb["en"] and "复述的是评分标准的要求" in fb["zh"]


@pytest.mark.parametrize("sentence", [
    "This does not prove that k2 causes q1's output, and a high weight is not feature importance.",
    "I plotted weights[0, 0] as the lab asks; it does not prove that k2 causes q1's output.",
])
def test_a_caveat_of_the_students_own_keeps_its_points(sentence, checklist):
    assert limits(sentence, checklist)[0] > 0


# ------------------------------------------------------------------ 8. "cannot show that X, that Y, or Z"

@pytest.mark.parametrize("sentence", [
    "This figure cannot show that k2 causes q1's output, that a high weight is feature importance, or anything about "
    "other inputs.",
    "What this figure cannot show: that k2 causes q1's output (only an ablation could), that a high weight is feature "
    "importance, or anything about inputs other than this one example.",
])
def test_every_that_clause_listed_after_cannot_show_is_a_caveat_not_an_overclaim(sentence, checklist):
    """Before: the second "that ..." was read as an assertion: an overclaim (-2) and limits 0; after: caveats."""
    points, r = limits(sentence, checklist)
    assert "overclaim" not in [f["kind"] for f in r["flags"]]
    assert points >= 3


def test_that_is_after_a_caveat_carries_no_negation(checklist):
    _points, r = limits("This figure does not show that k2 causes q1's output, that is the limit; k1 is the most "
                        "important feature.", checklist)
    assert "overclaim" in [f["kind"] for f in r["flags"]]


# ------------------------------------------------------------------ 9. the peak named before its query

@pytest.mark.parametrize("sentence, false", [
    ("Most of q1's weight lands on k0.", True),
    ("The largest share of q1's weight goes to k0.", True),
    ("q1 的大部分权重落在 k0 上。", True),
    ("Most of q1's weight lands on k2.", False),
    ("The largest share of q0's weight goes to k1.", False),
    ("q1 的大部分权重落在 k2 上。", False),
    ("Most of the time q1 reads k0 and k2 equally.", False),
])
def test_a_peak_named_before_its_query_is_checked(sentence, false, checklist):
    """Before: "most of q1's weight lands on k0" (false) was not read; after: checked like "q1 mostly reads k0"."""
    assert misread(sentence, checklist) is false
