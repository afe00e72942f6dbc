"""Round 39 mend (review RB of builder B's branch): the round's new claim forms, their denials and the gaming bound.

HIGH 1. A claim read only once glossed or its aside taken out ("k2 is, in my view, the most important key", "k2 是最
   important 的 key") was denied by no next-sentence or closing denial: text._rejections looked for a claim in the raw
   text. It now reads the claim as the overclaim check does (text._claim_reading), and the "no" / 不会 / 没有 of a
   counterfactual's breakdown or condition is no negation of its own (text._own_cues).
HIGH 2. The figure's setting in a denial ("My 2-by-3 heatmap (fixed seed)", "(torch 2.1)", "seed zero", "6-cell",
   "This 2-query example", 第 0 号种子) grounded a list of denials. The rule is turned around: in a sentence that denies
   something only what is read from the figure (cues.grounding_read: a key, a cell's value, a reading, the diagonal,
   the row sums) grounds it. The texts are in tests/audit/gaming/r39m_setting_*.md.
MED 3. Aside hedges missing from cues.hedge ("arguably", "it seems", "as far as I can tell", "apparently", "I guess",
   "I suppose", 看起来, 应该) took the full unhedged penalty; "k2 is arguably the most important key" was missed.
MED 4. The aside regex ran on nearly every sentence (any comma or CJK character let it): text._may_hold_aside.
LOW 5. More breakdowns said with a negation word ("would output nothing meaningful", "could not produce a sensible
   output", 不可能给出正确的预测).
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from rubric.audit import text as audit_text
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()
E = "Rows are queries, columns are keys; each row sums to 1.\n"
Z = "行是 query，列是 key；每行和为 1。\n"


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


# --- HIGH 1: a denial after the new claim forms denies them ----------------------------------------------------------

@pytest.mark.parametrize("denied, plain", [
    (E + "k2 is, in my view, the most important key. The heatmap cannot show that.\n",
     E + "k2 is the most important key. The heatmap cannot show that.\n"),
    (Z + "k2 是最 important 的 key。这一点热力图无法说明。\n", Z + "k2 是最重要的 key。这一点热力图无法说明。\n"),
    (Z + "q1 最 attend to k2，所以 k2 最 important。这一点热力图证明不了。\n",
     Z + "q1 最关注 k2，所以 k2 最重要。这一点热力图证明不了。\n"),
    (E + "k2 is, in my view, the most important key. This my figure does not prove.\n",
     E + "k2 is the most important key. This my figure does not prove.\n"),
])
def test_a_denial_after_an_aside_or_mixed_claim_denies_it_as_it_denies_the_plain_claim(denied, plain):
    r, ref = _grade(denied), _grade(plain)
    assert "overclaim" not in kinds(r) and "overclaim" not in kinds(ref)
    assert r["score"] == ref["score"], (r["score"], ref["score"])


@pytest.mark.parametrize("text", [
    E + "Without k2 there would be no sensible output. The heatmap cannot show that.\n",
    E + "Without k2 there would be no sensible output, but the heatmap cannot show that.\n",
    Z + "如果没有 k2，输出就不会有意义。这一点热力图无法说明。\n",
])
def test_a_denial_after_a_breakdown_counterfactual_denies_it(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r), r["flags"]
    assert r["score"] >= 4, r["score"]


@pytest.mark.parametrize("text", [
    E + "Without k2 there would be no sensible output.\n",
    Z + "如果没有 k2，输出就不会有意义。\n",
    E + "k2 is, in my view, the most important key. The heatmap shows that clearly.\n",
])
def test_the_same_claims_without_a_denial_stay_overclaims(text):
    assert "overclaim" in kinds(_grade(text))


def test_a_claim_with_a_negation_of_its_own_before_the_denial_is_still_read_as_written():
    # "not" is the student's, no breakdown of a counterfactual: the sentence is a caveat already and no overclaim
    r = _grade(E + "k2 is, in my view, not the most important key. The heatmap cannot show that.\n")
    assert "overclaim" not in kinds(r)


# --- HIGH 2: only what is read from the figure grounds a list of denials -----------------------------------------------

DENIALS_EN = ("{first} cannot show causation. It cannot show feature importance. It cannot show the true mechanism. "
              "It does not generalise to other inputs.\n")
DENIALS_ZH = "{first}不能证明因果。它也不能说明特征重要性。它不能说明真实机制。它不能推广到其他输入。\n"


@pytest.mark.parametrize("text", [
    DENIALS_EN.format(first="My 2-by-3 heatmap (fixed seed)"),
    DENIALS_EN.format(first="My heatmap (torch 2.1)"),
    DENIALS_EN.format(first="My heatmap (seed zero)"),
    DENIALS_EN.format(first="My 6-cell heatmap"),
    DENIALS_EN.format(first="This 2-query example"),
    DENIALS_EN.format(first="My heatmap (v1.0)"),
    DENIALS_EN.format(first="What the heatmap reads"),
    DENIALS_ZH.format(first="我的热力图（固定种子）"),
    DENIALS_ZH.format(first="第 0 号种子的热力图"),
])
def test_the_figures_setting_in_any_words_does_not_ground_a_list_of_denials(text):
    assert items(_grade(text))["limits"]["points"] == 2


@pytest.mark.parametrize("text", [
    DENIALS_EN.format(first="The weight 0.67 of k2"),
    DENIALS_EN.format(first="My heatmap, where q1 reads mostly from k2,"),
    DENIALS_EN.format(first="A 67% weight"),
    DENIALS_EN.format(first="The bright diagonal"),
    DENIALS_ZH.format(first="k2 的 0.67 "),
    "My heatmap is 2x3, from seed 0.\n" + DENIALS_EN.format(first="My heatmap"),
])
def test_a_reading_in_a_denial_or_the_setting_stated_on_its_own_still_grounds_the_list(text):
    assert items(_grade(text))["limits"]["points"] > 2


# --- MED 3: aside hedges are hedges ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    E + "k2 is, arguably, the most important key.\n",
    E + "k2 is arguably the most important key.\n",
    E + "k2 is apparently the most important key.\n",
    E + "k2 is, it seems, the most important key.\n",
    E + "k2 is, as far as I can tell, the most important key.\n",
    E + "k2 is, I guess, the most important key.\n",
    E + "k2 is, I suppose, the most important key.\n",
    Z + "k2，看起来，是最重要的 key。\n",
    Z + "k2，应该，是最重要的 key。\n",
])
def test_a_hedge_set_off_or_inserted_in_a_claim_makes_it_a_hedged_overclaim(text):
    r = _grade(text)
    assert [f["message"]["en"].startswith("This sentence still reads") for f in r["flags"]] == [True], r["flags"]


# --- MED 4: the aside regex runs only where an aside word is -----------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("k2 is, in my view, the most important key", True),
    ("k2，在我看来，是最重要的 key", True),
    ("k2 我认为是最重要的", True),
    ("rows are queries, columns are keys, and each row sums to 1", False),
    ("行是 query，列是 key，每行和为 1", False),
    ("q1 attends to k2 with weight 0.67 - the largest in its row", False),
])
def test_the_aside_prefilter_passes_sentences_with_an_aside_word_only(text, expected):
    assert audit_text._may_hold_aside(text) is expected
    if not expected:
        assert audit_text._CLAIM_ASIDE.search(text) is None       # the prefilter never hides an aside the regex would find
# --- LOW 5: more breakdowns --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    E + "Without k2 q1 would output nothing meaningful.\n",
    E + "Without k2 nothing in the output would make sense.\n",
    E + "Without k2 the output would lose all meaning.\n",
    E + "Without k2 the model could not produce a sensible output.\n",
    Z + "没有 k2，模型不可能给出正确的预测。\n",
])
def test_more_breakdowns_said_with_a_negation_word_are_unhedged_overclaims(text):
    r = _grade(text)
    assert "overclaim" in kinds(r)
    # "could" / 可能 inside "could not produce" / 不可能 hedges nothing
    assert not any(f["message"]["en"].startswith("This sentence still reads") for f in r["flags"]), r["flags"]


@pytest.mark.parametrize("text", [
    E + "Without k2 q1 would output nothing meaningful, but I have not tested that.\n",
    E + "Without k2 the model could not produce a sensible output? Only an ablation can tell.\n",
    E + "Without k2 the output would lose all meaning. The heatmap cannot show that.\n",
])
def test_the_new_breakdowns_untested_asked_or_denied_are_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    E + "Without k2 nothing in the output would change.\n",
    E + "Without k2 the model would still produce a sensible output.\n",
    E + "Without k2 the model would not produce a different output.\n",
    E + "Without k2 the output would still make sense.\n",
])
def test_a_null_result_near_the_new_breakdown_words_is_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


@pytest.mark.parametrize("text, expected", [
    ("without k2 the output would fall apart", True),
    ("if you removed key 2, the prediction would change", True),
    ("rows are queries, columns are keys", False),
])
def test_the_counterfactual_prefilter_runs_the_patterns_only_where_a_key_is_named(text, expected):
    cc = CHECKLIST
    assert (audit_text._counterfactuals(cc, text) is not None) is expected
    assert (cc.counterfactual.search(text) is not None) is expected    # the prefilter hides no match
