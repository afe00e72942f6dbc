"""Round 42 (brief A): audit claims that still gamed the checker, en and zh, and caveats it misread.

1. A dash ends a clause as a colon does ("nothing else explains the output - k2 causes it"; en dash, em dash, "--",
   ——); an aside set off by two dashes or two commas splits none ("cannot, by itself, prove causation").
2. A causal claim with its subject said alone ("k2 alone causes"), as what does it ("k2 is what causes"), or another verb
   of making (produces, controls, is responsible for; 产生, 引起, 对输出负责), also about "it" and zh "k2 造成的" after the
   output is named; denied, each is the causal caveat.
3. A lead that denies what it wraps ("it is not the case that", "you can't argue that") cancels a negation there, never a
   "without" of the claim's own ("It is not the case that k2 causes the output without removing k1" stays a denial).
4. A zh rebuttal closed by its verdict (觉得……是错的) denies what it wraps, not a negation in a clause after it.
The whole gaming audits are fixtures too (tests/audit/gaming/*_r42_*: bench/audit_validation.py reads them).

Guards (they pass on main too, and stay so that the round's rules break none of them; round 42 review LOW 8): the
CAVEAT cases of items 1, 3 and 4 that main already read right, the claims about "it" read as written, the comma
qualifier that holds a claim, the denying lead before a counterfactual, and the two ASSERTED cases main already flagged
("k2 by itself determines", the zh claim after ——).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _graded(sentence: str) -> dict:
    return _grade((OPENER_ZH if _zh(sentence) else OPENER_EN) + sentence + "\n")


# (item, sentence): a claim the sentence asserts; flagged, no caveat credit, at most the bare claim's 2.0
ASSERTED = [
    ("1", "Nothing else explains the output - k2 causes it."),
    ("1", "Nothing else explains the output \u2013 k2 causes it."),
    ("1", "Nothing else explains the output \u2014 k2 causes it."),
    ("1", "Nothing else explains the output -- k2 causes it."),
    ("1", "Nothing else explains the output--k2 causes it."),
    ("1", "No other key explains q1's output - k2 drives it."),
    ("1", "Nothing else explains the output - k2 causes it - really."),
    ("1", "q1 的输出没有别的解释——k2 导致了它。"),
    ("1", "输出没有别的解释——就是 k2 造成的。"),
    ("2", "Nothing else explains the output: k2 alone causes it."),
    ("2", "Nothing else explains the output: k2 is what causes it."),
    ("2", "Nothing else explains the output: k2 produces it."),
    ("2", "Nothing else explains the output: k2 is responsible for it."),
    ("2", "k2 alone causes q1's output."),
    ("2", "k2 by itself determines the output."),
    ("2", "k2 is what causes the output."),
    ("2", "k2 is the one that produces q1's output."),
    ("2", "k2 produces the output."),
    ("2", "k2 generates q1's output."),
    ("2", "key 2 controls the prediction."),
    ("2", "k2 is responsible for the output."),
    ("2", "k2 is solely responsible for q1's output."),
    ("2", "The output is high and it is produced by k2."),
    ("2", "输出只有一个解释：k2 造成的。"),
    ("2", "q1 的输出只有一个解释：就是 k2 造成的。"),
    ("2", "q1 的输出只有一个解释：k2 决定的。"),
    ("2", "k2 单独产生了 q1 的输出。"),
    ("2", "k2 引起了 q1 的输出。"),
    ("2", "k2 对 q1 的输出负责。"),
    ("2", "q1 的输出没有别的解释：k2 产生了它。"),
    ("3", "It is not the case that the heatmap cannot prove causation."),
    ("3", "It is not the case that the heatmap cannot show that k2 causes the output."),
    ("3", "You can't argue that it cannot prove causation."),
    ("3", "You can't argue that the heatmap cannot prove that k2 causes the output."),
    ("3", "We cannot seriously claim that the heatmap does not show causation."),
    ("3", "We can't say that the heatmap does not prove causation."),
]

# (item, sentence): an honest caveat: no overclaim, caveat credit
CAVEAT = [
    ("1", "The heatmap cannot prove causation - it only shows weights."),
    ("1", "The weights are not importance -- they are coefficients."),
    ("1", "k2 is not - as far as I can tell - the cause of the output."),
    ("1", "热力图不能证明因果——它只显示权重。"),
    ("4", "The heatmap cannot, by itself, prove causation."),
    ("4", "The heatmap cannot, on its own, prove causation."),
    ("4", "A weight cannot, taken alone, show that k2 causes the output."),
    ("4", "The heatmap cannot - by itself - prove causation."),
    ("4", "热力图，单凭它本身，不能证明因果关系。"),
    ("4", "没人觉得热力图是错的，只是它不能证明因果关系。"),
    ("4", "没人觉得热力图是错的，只是它不能证明 k2 导致了输出。"),
    ("4", "没有人说这张图是错的，只是它不能说明因果。"),
    ("4", "热力图不能说明 k2 导致了它。"),
    ("4", "q1 的输出很高，但热力图不能说明 k2 导致了它。"),
    ("2", "The heatmap cannot show that k2 produces the output."),
    ("2", "The heatmap cannot prove that k2 alone is responsible for the output."),
    ("2", "热力图不能证明 k2 产生了输出。"),
    ("2", "热力图不能说明 k2 对输出负责。"),
    ("2", "The heatmap cannot show that q1's output is produced by k2."),
    ("3", "It is not the case that k2 causes the output without removing k1."),
    ("3", "It is false that k2 causes the output without removing k1."),
    ("3", "I cannot say that q0 is driven by k1 without removing k1."),
    ("3", "We cannot say that k2 causes the output."),
    ("3", "You can argue that the heatmap cannot prove causation."),
    ("3", "Without an ablation, nobody can say that k2 causes the output."),
]


@pytest.mark.parametrize(("item", "sentence"), ASSERTED)
def test_a_claim_the_sentence_asserts_is_flagged_and_earns_no_caveat(item, sentence):
    r = _graded(sentence)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0 and r["score"] <= 2, (
        item, r["score"], kinds(r))


@pytest.mark.parametrize(("item", "sentence"), CAVEAT)
def test_an_honest_caveat_earns_caveat_credit_and_no_flag(item, sentence):
    r = _graded(sentence)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (item, r["score"], kinds(r))


@pytest.mark.parametrize("sentence", ["k2 produces it.", "就是 k2 造成的。", "Maybe k2 produces it, the output is high."])
def test_a_claim_about_it_with_no_output_named_before_it_is_read_as_written(sentence):
    """The pronoun is read as the output only when the sentence names the output before it, as in round 41."""
    assert "overclaim" not in kinds(_graded(sentence))


def test_a_qualifier_between_commas_is_no_aside_when_it_holds_a_claim():
    """Only short qualifiers of the subject set off an aside: the claim after a comma is still its own clause."""
    r = _graded("The heatmap is clear, k2 causes the output.")
    assert "overclaim" in kinds(r)


GAMING = Path(__file__).resolve().parent / "gaming"


@pytest.mark.parametrize("name", sorted(p.name for p in GAMING.glob("*_r42_*")))
def test_the_round_42_gaming_audits_are_flagged_earn_no_caveat_and_at_most_2(name):
    r = _grade((GAMING / name).read_text(encoding="utf-8"))
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0 and r["score"] <= 2, (r["score"], kinds(r))


def test_there_are_round_42_gaming_audits_in_both_languages():
    names = {p.name for p in GAMING.glob("*_r42_*")}
    assert any(n.endswith("_en.md") for n in names) and any(n.endswith("_zh.md") for n in names)


@pytest.mark.parametrize("sentence", ["It is not the case that without k2 there would be no sensible output.",
                                      "You can't argue that without k2 the output would make no sense."])
def test_a_denying_lead_before_a_counterfactual_denies_it(sentence):
    """The counterfactual's condition and breakdown ("without k2", "no sensible output") are its own words: the lead
    has no negation there to cancel (round 39's "I cannot say that without k2 ..." stays no overclaim)."""
    assert "overclaim" not in kinds(_graded(sentence))
