"""Audit red-team round 26: readings of cells written in ways the checker did not read.

1. A cell named as a pair or a list was not checked: "(q0, k0) = 0.74", "w(q1, k2) = 0.67", "a_{q0,k0} = 0.74",
   "The cell (q0, k0) holds 0.74", a long-format table "| q0 | k0 | 0.74 |", "For q0: k0 = 0.74, k1 = 0.21, ...",
   "q0 attends to k1 (0.21), k0 (0.74) and k2 (0.05)" (only the first key of a list was read), q0 和 k0 之间的权重是
   0.74. Readings of another figure written so kept their caveats: 7-8/15 (gaming/pair_notation_other_en.md,
   colon_rows_other_mixed.md, table_long_other_en.md). Now each is a cell checked against the weights the student's
   code computes.
2. A value a query gives a key, written between them, was not read: "q0 puts 0.74 on k0, 0.21 on k1", "q1 gives 81% of
   its weight to k1", q0 把 0.74 的权重给了 k0 (gaming/gives_value_other_*.md 5-7/15). Now it is a cell.
3. A query's least-weighted key was not read at all ("q0 almost ignores k1", "q1 pays the least attention to k2",
   q0 几乎不看 k1), and q0 最小的权重在 k1 上 was read as q0's PEAK (最 is a peak word), so a false low end could even count
   as a true reading (gaming/low_end_other_*.md 6-7/15). Now it is checked as the row's least weight; a negated or
   compared one ("does not ignore", "less to k0 than to k2") is not read.
4. A query read as spreading its weight evenly ("q0 spreads its weight evenly over the keys", q1 的权重很均匀) was not
   checked: two such false readings anchored a text's caveats (gaming/uniform_other_*.md 6-7/15). Now it is checked
   (a row whose weights differ by at most UNIFORM_SPREAD); a denied, compared or supposed one ("not uniform",
   "closer to uniform than", "if the weights were uniform") and an even split between two named keys are not read.
All ten gaming audits now score 2 (figure only, flagged); seven honest audits in the same notations score 12-13 before
and after; the honest corpus and bench/audit_validation.py are unchanged (MAD 0.21, Spearman 0.99).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import CELL_OPENER, EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

HERE = Path(__file__).resolve().parent
FIGURE = make_heatmap()
GAMING = ["pair_notation_other_en.md", "colon_rows_other_mixed.md", "table_long_other_en.md",
          "gives_value_other_en.md", "gives_value_other_zh.md", "low_end_other_en.md", "low_end_other_zh.md",
          "uniform_other_en.md", "uniform_other_zh.md"]
HONEST = ["pair_notation_en.md", "colon_rows_mixed.md", "table_long_en.md", "gives_value_en.md", "gives_value_zh.md",
          "low_end_en.md", "low_end_zh.md"]


def _grade(text: str, checklist, weights=EXAMPLE_WEIGHTS) -> dict:
    return grade_audit(text, make_heatmap(weights), MEASURED_OK, checklist, weights=weights)


def misread(sentence: str, checklist, weights=EXAMPLE_WEIGHTS) -> bool:
    """Is the sentence (after the opener naming the rows and columns) flagged as a cell the weights do not show?"""
    r = _grade(CELL_OPENER + sentence + "\n", checklist, weights)
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21] peaks at k1, k0 and k2 tie lowest; q1 [0.09, 0.24, 0.67]: k2 peak, k0 lowest

@pytest.mark.parametrize("false, true", [
    # 1. a pair, a matrix entry with its cell names, a table row, a list after its query
    ("(q0, k0) = 0.74", "(q0, k1) = 0.58"),
    ("w(q1, k1) = 0.81", "w(q1, k2) = 0.67"),
    ("a_{q0,k0} = 0.74", "a_{q0,k1} = 0.58"),
    ("The cell (q0, k0) holds 0.74.", "The cell (q0, k1) holds 0.58."),
    ("| q0 | k0 | 0.74 |", "| q0 | k1 | 0.58 |"),
    ("For q0: k0 = 0.21, k1 = 0.74, k2 = 0.05", "For q0: k0 = 0.21, k1 = 0.58, k2 = 0.21"),
    ("q1 attends to k0 (0.09), k1 (0.24) and k2 (0.74).", "q1 attends to k0 (0.09), k1 (0.24) and k2 (0.67)."),
    ("q0 和 k0 之间的权重是 0.74。", "q0 和 k1 之间的权重是 0.58。"),
    # 2. a value given between query and key
    ("q0 puts 0.74 on k0.", "q0 puts 0.58 on k1."),
    ("q0 places 0.58 on k1 and 0.05 on k2.", "q0 places 0.58 on k1 and 0.21 on k2."),
    ("q1 gives 81% of its weight to k1.", "q1 gives 67% of its weight to k2."),
    ("q0 把 0.74 的权重给了 k0。", "q0 把 0.58 的权重给了 k1。"),
    ("q1 把 0.81 的权重放在 k1 上。", "q1 把 0.67 的权重放在 k2 上。"),
    # 3. the least-weighted key
    ("q0 almost ignores k1.", "q1 almost ignores k0."),
    ("q1 pays the least attention to k2.", "q1 pays the least attention to k0."),
    ("The smallest weight of q0 is on k1.", "The smallest weight of q0 is on k2."),
    ("q0 几乎不看 k1。", "q1 几乎不看 k0。"),
    ("q1 给 k2 的权重最小。", "q1 给 k0 的权重最小。"),
    ("q0 最小的权重在 k1 上。", "q0 最小的权重在 k0 上。"),
    # 4. a query read as uniform
    ("q0 spreads its weight evenly over the keys.", "q0 does not spread its weight evenly over the keys."),
    ("q1 的权重很均匀。", "q1 的权重不均匀。"),
])
def test_a_cell_in_a_pair_list_given_value_low_end_or_uniform_row_is_checked(false, true, checklist):
    """Before: the false reading was not read (no flag, its sentence kept its credit); after: flagged. The true or
    denied one is not."""
    assert misread(false, checklist)
    assert not misread(true, checklist)


@pytest.mark.parametrize("sentence", [
    "q1 does not ignore k2.",
    "q1 gives less to k0 than to k2.",
    "q0's weights are not uniform.",
    "If q0 were uniform, each weight would be 1/3.",
    "q0 is closer to uniform than q1.",
    "q0 splits its weight evenly between k0 and k2.",
    "q0 的权重比 q1 更均匀。",
    "With k0 set to -inf, q0 puts 0.0 on k0.",          # another tensor (a mask): not the figure's weights
])
def test_a_denied_compared_supposed_or_masked_statement_reads_no_cell(sentence, checklist):
    assert not misread(sentence, checklist)


def test_a_uniform_row_read_on_weights_that_are_uniform_is_true(checklist):
    flat = [[0.09, 0.24, 0.67], [0.34, 0.33, 0.33]]      # q1 (counted from 0 or 1) may name either row, q0 only the first
    assert not misread("q1 spreads its weight evenly over the keys.", checklist, flat)
    assert misread("q0 spreads its weight evenly over the keys.", checklist, flat)


@pytest.mark.parametrize("name", GAMING)
def test_readings_of_another_figure_in_these_notations_earn_only_the_figure(name, checklist):
    """Before: 5-8/15 (the caveats kept their points, the false readings were not seen); after: 2, flagged."""
    r = _grade((HERE / "gaming" / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] <= 2, [(it["id"], it["points"]) for it in r["items"]]
    assert "figure" in kinds(r)
    flag = next(f for f in r["flags"] if f["kind"] == "figure")
    # what was seen, in both languages
    assert "does not show" in flag["message"]["en"] and "[0.21, 0.58, 0.21]" in flag["message"]["en"]
    assert flag["message"]["zh"] != flag["message"]["en"]


@pytest.mark.parametrize("name", HONEST)
def test_honest_readings_in_these_notations_keep_their_credit(name, checklist):
    r = _grade((HERE / "honest" / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] >= 12 and items(r)["figure_reading"]["points"] == 3, [(it["id"], it["points"]) for it in r["items"]]
    assert kinds(r) == []
