"""Audit red-team round 24.

1. A peak named in another word order than "q1 ... most ... k0" was not read as a cell: a cleft ("k0 is where q1 puts
   most of its weight"), a relative clause ("k0, which gets most of q1's weight"), a passive ("k0 is attended to most by
   q1"), the peak word after both cells ("the weight of q1 on k0 is the largest", q1 对 k0 的权重最大) or the key first
   (k0 是 q1 权重最大的位置). A false one earned its sentence and was not flagged; now it is checked against the weights
   the student's code computes. A question answered "no" ("q1 puts most of its weight on k0? No.") denies the reading:
   it was flagged as a misread cell, now it reads nothing.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, make_heatmap

FIGURE = make_heatmap()
OPENER = "My heatmap has rows q0, q1 and columns k0-k2.\n"


def misread(sentence: str, checklist) -> bool:
    r = grade_audit(OPENER + sentence + "\n", FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


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
    # denied, the low end, another quantity, another tensor, hedged, a value that is true
    "k0 is not where q1 puts most of its weight.",
    "q1 对 k0 的权重不是最大的。",
    "The weight of q1 on k0 is the smallest.",
    "k0 是 q1 权重最小的位置。",
    "The weight of q1 on k0 is lower than the largest.",
    "q1 has the highest entropy, spread over k0.",
    "k0 is where q1 puts most of its weight in the masked experiment.",
    "k0 might be where q1 puts most of its weight.",
    "k0 可能是 q1 权重最大的位置。",
    "The weight of q1 on k0 is 0.09, the smallest.",
    "q1 puts most weight on k2, while k0 gets the least.",
    # a question answered no denies the reading
    "q1 puts most of its weight on k0? No.",
    "Does q1 put most of its weight on k0? No.",
])
def test_a_true_denied_low_end_hedged_or_other_quantity_peak_is_no_misread(sentence, checklist):
    assert not misread(sentence, checklist)
