"""Audit round 29: evidence of the audit.

1. Honest caveats in the student's own words were taken for the handout translated (round 22's ``handout.translated``):
   "the dark k2 cell does not show that k2 causes q1's output or makes k2 important; the weights are the layer's
   internal reading coefficients, not the real mechanism" names causality, importance, the real mechanism and
   internality, five ideas of the course page's sentence "把 attention weight 直接解释成因果重要性；权重是模型内部计算，
   不等于真实机制", so it was a copy and lost all 4 limits points. Those are the caveats the rubric asks every student to
   state; a translation also keeps the handout sentence's other ideas (automatic, discovery, routing, upgrade...). Now a
   copy needs ``translated.min_other`` of those: the honest sentences keep their points, every translation of round 22
   is still a copy.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
READINGS_EN = ("My heatmap is weights[0,0] of the 2x3 example: rows are the queries q0, q1 and columns the keys k0-k2.\n"
               "q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\n")
READINGS_ZH = "我的图是 weights[0,0] 的 2×3 热力图：两行是 q0、q1 两个 query，三列是 k0–k2 三个 key。\nq0 主要读 k1（0.58），q1 主要读 k2（0.67）。\n"


def _limits(sentence: str, checklist) -> tuple[float, dict]:
    opener = READINGS_ZH if any("\u4e00" <= ch <= "\u9fff" for ch in sentence) else READINGS_EN
    r = grade_audit(opener + sentence + "\n", FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return items(r)["limits"]["points"], r


# ------------------------------------------------------------------ 1. own caveats are no translation of the handout

@pytest.mark.parametrize(("sentence", "points"), [
    ("The dark k2 cell does not show that k2 causes q1's output, and it does not make k2 the most important key; the "
     "weights are the layer's internal reading coefficients, not the real mechanism.", 4),
    ("A high weight on k2 does not mean k2 caused q1's output or that k2 is the important feature; it is an internal "
     "reading weight of this layer and says nothing about the true mechanism.", 4),
    # two points a sentence (settings.max_concepts_per_sentence): causality and importance, 3 of the 4
    ("My heatmap does not show causal effects or feature importance: the weights are internal reading coefficients, "
     "not the real mechanism.", 3),
    ("q1 在 k2 上权重最大，并不等于 k2 对输出有因果作用或者 k2 更重要；权重是模型内部的读取系数，不是真实机制。", 4),
])
def test_a_caveat_in_own_words_naming_the_asked_ideas_is_no_copy(sentence, points, checklist):
    """Before: limits 0, flagged copied (five ideas of one handout sentence); after: what the caveats earn."""
    got, r = _limits(sentence, checklist)
    assert "copied" not in kinds(r)
    assert got == points, items(r)["limits"]["feedback"]["en"]


@pytest.mark.parametrize("sentence", [
    # the handout's other ideas kept beside the asked ones (automatic, equal, explanation, discovery; direct,
    # computation...): still a translation, with a cell named or not
    "The weight on k2 does not automatically equal causal explanation, feature importance or real mechanism discovery.",
    "Interpreting the k2 weight directly as causal importance is wrong; weights are internal computation of the model, "
    "not equal to the real mechanism.",
    "This does not automatically mean a causal explanation, feature importance, or the discovery of a true mechanism.",
    "k2 的权重高不能说明 k2 导致了输出，也不说明它更重要；这只是模型内部的计算，不等于真实机制。",
])
def test_a_translation_keeping_the_handouts_other_ideas_is_still_a_copy(sentence, checklist):
    got, r = _limits(sentence, checklist)
    assert got == 0 and "copied" in kinds(r), items(r)["limits"]["feedback"]["en"]


def test_the_checklist_refuses_asked_ideas_it_does_not_define(checklist, tmp_path):
    """``translated.asked`` names ideas of ``translated.terms``: a misspelt one would silently ask for nothing."""
    from rubric.audit.checklist import ChecklistError
    from tests.audit.test_audit_checklist import _edited

    with pytest.raises(ChecklistError, match="asked"):
        _edited(checklist, tmp_path, lambda d: d["handout"]["translated"].update(asked=["causal", "causality"]))
