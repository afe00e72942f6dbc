"""Audit red-team round 20: cells read as students name them.

Round 19 checked the cells a text reads against the weights the student's code computes, but read only q/k/query/key
with a number. A reading of another figure written any other way kept its points with no flag (14 of 15 on the
honest en_only.md): "row 1 ... column 1", ordinals ("the first query ... the first key", 第一行/第一列, 第1个查询,
第一个 key; counted from 1), a value as a percentage ("71%", 占 71%) and a row of weights written out after its query
or alone ("q0's weights are [0.70, 0.20, 0.10]", which was flagged but cost nothing, while a row after a mask or
rounded to one decimal, "[0.2, 0.6, 0.2]", was flagged as not the student's). Now each is a reading of a cell:
false ones cost their sentence, two or more and none true make the text about another figure (4 of 15). True readings
written the same ways, ordinals beside indices ("the first query ... k1"), a percentage under 1 ("0.58%", a slip),
cells outside the grid (the anchoring check names them) and rows after a mask keep their points.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

HERE = Path(__file__).resolve().parent
FIGURE = make_heatmap()
HONEST_EN = (HERE / "honest" / "en_only.md").read_text(encoding="utf-8")
PEAKS_EN = "q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67)."


def grade(text: str, checklist) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)


def with_reading(reading: str) -> str:
    text = HONEST_EN.replace(PEAKS_EN, reading)
    assert text != HONEST_EN
    return text


def kinds_of(r: dict) -> list[str]:
    return [f["kind"] for f in r["flags"]]


# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21] peaks at k1, q1 [0.09, 0.24, 0.67] peaks at k2
@pytest.mark.parametrize("reading", [
    "row 1 reads mostly from column 1 (0.71) and row 2 mostly from column 2 (0.64).",
    "Row 1, column 1 is 0.71 and row 2, column 2 is 0.64.",
    "The first query reads mostly from the first key (0.71) and the second query mostly from the second key (0.64).",
    "The 1st query attends mostly to the 1st key and the 2nd query mostly to the 2nd key.",
    "q0 reads mostly from k0 (71%) and q1 mostly from k1 (64%).",
    "q0 reads mostly from k1 (91%) and q1 mostly from k2 (40%).",          # the peaks right, the values not
    "q0's weights are [0.70, 0.20, 0.10] and q1's are [0.10, 0.20, 0.70].",
    "Rows: (0.30, 0.40, 0.30) and (0.50, 0.25, 0.25).",
    "第一行主要关注第一列（0.71），第二行主要关注第二列（0.64）。",
    "第一行第一列是 0.71，第二行第二列是 0.64。",
    "第1个查询主要关注第1个键（0.71），第2个查询主要关注第2个键（0.64）。",
    "第一个 query 主要关注第一个 key（0.71），第二个 query 主要关注第二个 key（0.64）。",
    "q0 主要关注 k0（71%），q1 主要关注 k1（64%）。",
    "q0 对 k1 的注意力占 91%，q1 对 k2 的权重是 40%。",
    "q0 的权重是 [0.70, 0.20, 0.10]，q1 的权重是 [0.10, 0.20, 0.70]。",
    "q0's weights are about [0.3, 0.4, 0.3] and q1's are [0.5, 0.3, 0.2].",
])
def test_another_figures_cells_written_as_students_write_them_earn_nothing(reading, checklist):
    """Before: 14 of 15 (no flag but for a written-out row); after: 4, as round 19's q/k readings, with the flag
    giving the rows the student's code computes."""
    r = grade(with_reading(reading), checklist)
    assert r["score"] == 4, r["items"]
    assert items(r)["figure_reading"]["points"] == items(r)["limits"]["points"] == 0
    assert "q0: [0.21, 0.58, 0.21]" in items(r)["figure_reading"]["feedback"]["en"] + str(r["flags"])


@pytest.mark.parametrize("reading", [
    "row 1 reads mostly from column 2 (0.58) and row 2 mostly from column 3 (0.67).",
    "Row 0, column 1 is 0.58 and row 1, column 2 is 0.67.",
    "The first query reads mostly from the second key (0.58) and the second query mostly from the third key (0.67).",
    "The first query reads mostly from k1 (0.58) and q1 mostly from the third key.",   # an ordinal beside an index
    "q0 reads mostly from k1 (58%) and q1 mostly from k2 (67%).",
    "q0 gives k1 58% of its attention and q1 gives k2 about 67%.",
    "q0 reads mostly from k1 (0.58%) and q1 mostly from k2 (0.67%).",          # a slip: not read as 0.0058
    "q0's weights are [0.21, 0.58, 0.21] and q1's are [0.09, 0.24, 0.67].",
    "The weights in row 0 are [0.21, 0.58, 0.21] and in row 1 [0.09, 0.24, 0.67].",
    "Rows: (0.21, 0.58, 0.21) and (0.09, 0.24, 0.67).",
    "第一行主要关注第二列（0.58），第二行主要关注第三列（0.67）。",
    "第一行第二列是 0.58，第二行第三列是 0.67。",
    "第一行（q0）主要关注 k1，第二行（q1）主要关注 k2（0.67）。",
    "第1个查询主要关注第2个键（0.58），第2个查询主要关注第3个键（0.67）。",
    "q0 对 k1 的注意力占 58%，q1 对 k2 的权重是 67%。",
    "q0 的权重是 [0.21, 0.58, 0.21]，q1 的权重是 [0.09, 0.24, 0.67]。",
    "q0 reads mostly from k1 (0.58). After masking, q1's weights became [0.5, 0.0, 0.5].",   # another tensor
    "q0's weights are about [0.2, 0.6, 0.2] and q1's are [0.1, 0.2, 0.7].",       # to the precision written
    "The attention matrix is [[0.21, 0.58, 0.21], [0.09, 0.24, 0.67]].",
])
def test_true_readings_written_the_same_ways_keep_their_points(reading, checklist):
    r = grade(with_reading(reading), checklist)
    assert "figure" not in kinds_of(r), r["flags"]
    assert r["score"] == 14, r["items"]


def test_one_false_percentage_costs_its_sentence_only(checklist):
    text = with_reading("q0 reads mostly from k1 (58%). The second query reads mostly from the second key (40%).")
    r = grade(text, checklist)
    assert items(r)["limits"]["points"] == 4 and items(r)["figure_reading"]["points"] == 3
    assert "figure" in kinds_of(r)


def test_a_cell_outside_the_grid_is_named_once(checklist):
    """"第 4 行第 4 列" of a 2x3 grid is another figure's cell, which the anchoring check names; it is no misreading
    of this grid too (one flag, not two)."""
    r = grade("我的热力图里，第 4 行第 4 列的权重是 0.91，每一行是一个 query。\n权重不能说明因果，也不等于重要性。",
              checklist)
    assert kinds_of(r).count("figure") == 1, r["flags"]
    assert "第 4 行" in r["flags"][0]["message"]["zh"]


def test_a_written_out_row_matching_no_row_is_flagged_once(checklist):
    """Before: the stated-weights flag (no cost); after: one flag, the misreading, with the computed rows."""
    r = grade(with_reading("q0 reads mostly from k1 (0.58); q1's weights are [0.50, 0.30, 0.20]."), checklist)
    assert kinds_of(r).count("figure") == 1, r["flags"]
    assert "q1: [0.09, 0.24, 0.67]" in r["flags"][0]["message"]["en"]


def test_without_the_students_weights_nothing_is_read(checklist):
    text = with_reading("第一行主要关注第一列（0.71），第二行主要关注第二列（0.64）。")
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist)
    assert r["score"] == 14 and "figure" not in kinds_of(r)
