"""Audit red-team round 24.

1. A peak named in another word order than "q1 ... most ... k0" was not read as a cell: a cleft ("k0 is where q1 puts
   most of its weight"), a relative clause ("k0, which gets most of q1's weight"), a passive ("k0 is attended to most by
   q1"), the peak word after both cells ("the weight of q1 on k0 is the largest", q1 对 k0 的权重最大) or the key first
   (k0 是 q1 权重最大的位置). A false one earned its sentence and was not flagged; now it is checked against the weights
   the student's code computes. A question answered "no" ("q1 puts most of its weight on k0? No.") denies the reading:
   it was flagged as a misread cell, now it reads nothing.
2. A caveat written as a bare keyword and its negation ("- not causal", "因果：不能") earned its full credit: five such
   bullets and the heatmap scored 6/15 (limits 4/4). Now a bare caveat earns half its credit, and bare caveats together
   at most half the item (settings.bare_caveat_units, reason "bare"); a caveat with a reason or about the student's own
   case earns it all. Validation MAD 0.17 -> 0.21 (bench/audit_validation.py): the hand scorers took 1 point for
   "'causality: no' is stated without a reason" (terse_bullets, 15 -> 14.25, hand 14) but gave terse_minimal's
   "Not causal. Not feature importance." full credit (7 -> 5.5, hand 7).
3. A reading in hedged words ("In my heatmap q0 might attend most to k0", q0 可能主要关注 k0) was not checked: false
   hedged readings anchored a text whose caveats earned limits 4 (6/15, tests/audit/gaming/hedged_readings_*.md). A
   hedged reading is still a reading (as a hedged overclaim is still an overclaim): now it is checked against the
   weights the student's code computes, and two false ones make the text another figure's (2/15). Also, a comma before
   the next query ("q0 ... k0，q1 ... k1") ends the part of a sentence a peak is read in.
4. Weights said to be in the figure without their cells ("My heatmap shows the values 0.33, 0.45 and 0.91 as its
   brightest cells", 图中的权重有 0.91) were not checked: invented values anchored a text whose caveats earned limits 4
   (6/15, tests/audit/gaming/values_without_cells_*.md). Now each value must be a weight of the grid, wherever it is
   (one reading per value); a colour bar's or axis's ticks, another quantity and a denied value are not read.
5. An entry of the weight matrix written as in maths or code ("$A_{0,0}$ is the largest in row $q_0$", "w[0][0]",
   "attn[1, 0] = 0.67", "$\\alpha_{10}$ = 0.67") named no cell: LaTeX and emoji readings of another figure kept their
   caveats (5/15, tests/audit/gaming/latex_entries_emoji_en.md). Now it names its query and key (counted from 0 or 1),
   and "and" before the next query ends the part of a sentence a peak is read in.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import (
    AUDITS,
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


# ------------------------------------------------------------------ 1. a peak in any word order
# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21] peaks at k1, q1 [0.09, 0.24, 0.67] peaks at k2 (the last key)

@pytest.mark.parametrize("sentence", [
    "k0 is where q1 puts most of its weight.",
    "It is k0 where q1 puts most of its weight.",
    "k0, which gets most of q1's weight, is bright.",
    "k0 is the key that q1 attends to most.",
    "k0 is attended to most strongly by q1.",
    "The weight of q1 on k0 is the largest.",
    "q1's weight on k0 is the highest in its row.",
    "The first column is where the second row is brightest.",
    "q1 把大部分权重放在 k0 上。",
    "k0 是 q1 权重最大的位置。",
    "q1 对 k0 的权重最大。",
    "q1 在 k0 上的权重最高。",
    "k0 被 q1 分配了最多的权重。",
    "第一列是第二行最亮的格子。",
    # hedged: still a reading (round 24, 3)
    "k0 might be where q1 puts most of its weight.",
    "k0 可能是 q1 权重最大的位置。",
    "In my heatmap q1 probably peaks at k0.",
    "q0 的权重也许是 [0.71, 0.20, 0.09]。",
])
def test_a_false_peak_in_a_cleft_relative_passive_or_trailing_superlative_is_a_misread_cell(sentence, checklist):
    """Before: not read (no flag, the sentence kept its credit); after: flagged as a cell the figure does not show."""
    assert misread(sentence, checklist)


@pytest.mark.parametrize("sentence", [
    # true
    "k2 is where q1 puts most of its weight.",
    "k2, which gets most of q1's weight, is bright.",
    "k2 is attended to most strongly by q1.",
    "The weight of q1 on k2 is the largest.",
    "q0's weight on k1 is the highest in its row.",
    "k2 是 q1 权重最大的位置。",
    "q0 在 k1 上的权重最高。",
    # denied, the low end, another quantity, another tensor, a value that is true
    "k0 is not where q1 puts most of its weight.",
    "q1 对 k0 的权重不是最大的。",
    "The weight of q1 on k0 is the smallest.",
    "k0 是 q1 权重最小的位置。",
    "The weight of q1 on k0 is lower than the largest.",
    "q1 has the highest entropy, spread over k0.",
    "k0 is where q1 puts most of its weight in the masked experiment.",
    "The weight of q1 on k0 is 0.09, the smallest.",
    "q1 puts most weight on k2, while k0 gets the least.",
    # a question answered no denies the reading
    "q1 puts most of its weight on k0? No.",
    "Does q1 put most of its weight on k0? No.",
])
def test_a_true_denied_low_end_or_other_quantity_peak_is_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)


def test_a_text_of_cleft_and_trailing_peak_readings_of_another_figure_earns_nothing(checklist):
    """tests/audit/gaming/cleft_readings_other_mixed.md, all four readings false: before 6/15 (limits 4, no flag), now
    2 and flagged."""
    text = (AUDITS.parents[1] / "audit" / "gaming" / "cleft_readings_other_mixed.md").read_text(encoding="utf-8")
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert r["score"] == 2 and "figure" in [f["kind"] for f in r["flags"]]


# ------------------------------------------------------------------ 2. bare keyword caveats

GAMING = AUDITS.parents[1] / "audit" / "gaming"


def limits_of(text: str, checklist) -> dict:
    return items(grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS))["limits"]


@pytest.mark.parametrize("name", ["bare_caveat_bullets_en.md", "bare_caveat_bullets_zh.md"])
def test_a_list_of_bare_caveat_keywords_earns_at_most_half_the_limits(name, checklist):
    """Before: limits 4/4 (6/15 with the heatmap); after: 2/4, and the feedback says why."""
    it = limits_of((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert it["points"] == 2
    assert "only a keyword with its negation" in it["feedback"]["en"] and "只有一个关键词加否定" in it["feedback"]["zh"]


READ = OPENER + "q1 puts most of its weight on k2.\n\n## What it cannot show\n"


@pytest.mark.parametrize("bullet", ["- not causal", "- causality: no", "- 不是因果", "- 因果：不能"])
def test_one_bare_caveat_earns_half_its_credit(bullet, checklist):
    """not_causal is worth 1.5 of the item's 4: before 1.5 points, after 0.75."""
    assert limits_of(READ + bullet + "\n", checklist)["points"] == 0.75


@pytest.mark.parametrize("bullet", [
    "- not causal: a high weight on k2 does not mean k2 causes q1's output",
    "- causality: no, nobody removed k2 to see whether the output changes",
    "- 不是因果：k2 权重高不代表 k2 导致了 q1 的输出",
    "- one seed, one toy example, cannot generalise",
])
def test_a_caveat_with_a_reason_or_its_own_case_earns_its_full_credit(bullet, checklist):
    it = limits_of(READ + bullet + "\n", checklist)
    assert it["points"] >= 1, it["feedback"]["en"]
    assert "only a keyword" not in it["feedback"]["en"]


def test_a_caveat_said_in_full_anywhere_is_not_cut_by_its_bare_bullet(checklist):
    text = READ + "- not causal\n- k2 does not cause q1's output: no ablation was run\n"
    it = limits_of(text, checklist)
    assert it["points"] == 1.5 and "only a keyword" not in it["feedback"]["en"]


# ------------------------------------------------------------------ 3. readings only in hedged words

@pytest.mark.parametrize("name", ["hedged_readings_en.md", "hedged_readings_zh.md"])
def test_false_readings_in_hedged_words_are_another_figures_and_earn_no_caveat(name, checklist):
    """Before: limits 4 (6/15), no flag; after: 0, and the figure flag names the cells."""
    r = grade_audit((GAMING / name).read_text(encoding="utf-8"), FIGURE, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    assert items(r)["limits"]["points"] == 0 and r["score"] == 2
    assert any(f["kind"] == "figure" and "q0" in f["message"]["en"] for f in r["flags"])


@pytest.mark.parametrize("sentence", [
    "In my heatmap q1 probably peaks at k2.",
    "q0 可能主要关注 k1。",
    "q0 可能主要关注 k1，q1 也许在 k2 上最高。",
])
def test_a_true_hedged_reading_is_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)


@pytest.mark.parametrize("first", [
    "In my heatmap q0 attends most to k1 and q1 peaks at k2.",
    "In my heatmap q0 attends most to k1, and q1 might be sharper in another seed.",
    "在我的热力图里，q0 主要关注 k1，q1 在 k2 上最高。",
])
def test_the_same_caveats_after_a_plain_reading_still_earn(first, checklist):
    rest = (GAMING / "hedged_readings_en.md").read_text(encoding="utf-8").split("\n", 1)[1]
    assert limits_of(first + "\n" + rest, checklist)["points"] >= 3


# ------------------------------------------------------------------ 4. values without their cells

@pytest.mark.parametrize("name", ["values_without_cells_en.md", "values_without_cells_zh.md"])
def test_invented_values_said_to_be_in_the_figure_make_it_another_figure(name, checklist):
    """Before: 6/15 with limits 4 and no flag; after: 2, flagged."""
    r = grade_audit((GAMING / name).read_text(encoding="utf-8"), FIGURE, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    assert r["score"] == 2 and any(f["kind"] == "figure" for f in r["flags"])


@pytest.mark.parametrize("sentence", [
    "My heatmap shows the values 0.33, 0.45 and 0.91 as its brightest cells.",
    "图中的权重有 0.91 和 0.33。",
    "The heatmap cells are 91% at the peak.",
])
def test_a_value_the_grid_does_not_hold_is_a_misread_cell(sentence, checklist):
    assert misread(sentence, checklist)


@pytest.mark.parametrize("sentence", [
    "My heatmap shows the values 0.21, 0.58 and 0.67.",
    "图中的权重有 0.67 和 0.09。",
    "The weights in my figure range from 0.09 to 0.67.",
    "The colour bar of my figure goes from 0.1 to 0.9.",
    "My heatmap does not show a value of 0.91.",
    "The heatmap cells are 58% and 67% at the peaks.",
    "The entropy of each row in my figure is 0.95.",
])
def test_values_the_grid_holds_ticks_other_quantities_and_denied_values_are_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)


# ------------------------------------------------------------------ 5. matrix entries as in maths or code

@pytest.mark.parametrize("sentence", [
    "$A_{0,0}$ is the largest weight in row $q_0$.",
    "A_{1,2} = 0.21.",
    "w[0][0] is the largest in its row.",
    "attn[1, 0] = 0.67 in my heatmap.",
    "$\\alpha_{10}$ = 0.67.",
])
def test_a_false_matrix_entry_is_a_misread_cell(sentence, checklist):
    assert misread(sentence, checklist)


@pytest.mark.parametrize("sentence", [
    "$A_{0,1}$ is the largest weight in row $q_0$.",
    "A_{1,2} = 0.67.",
    "w[0][1] is the largest in its row.",
    "attn[1, 2] = 0.67 in my heatmap.",
    "$\\alpha_{12}$ = 0.67.",
    "$A_{ij}$ sums to 1 over j.",
    "weights[0] = [0.21, 0.58, 0.21]",
])
def test_a_true_or_symbolic_matrix_entry_is_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)


def test_latex_and_emoji_readings_of_another_figure_earn_nothing(checklist):
    """Before: 5/15 (limits 3, one reading flagged); after: 2."""
    r = grade_audit((GAMING / "latex_entries_emoji_en.md").read_text(encoding="utf-8"), FIGURE, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    assert r["score"] == 2
