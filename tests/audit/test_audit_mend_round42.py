"""Round 42 mend (review of A): honest caveats the round's new rules read as claims, and claims they still missed.

HIGH 1 / MED 4: a dash splits a clause only before a key or a pronoun that starts a statement ("- k2 causes it"); a dash
  pair around an aside ("cannot - as a self-attention map - prove", "the brightest key - k2 - causes") and a dash before
  a last word ("cannot prove one thing - causation") split none.
HIGH 2: produces / generates / 产生 / 引起 / accounts for ... are a causal claim only about a key: a query, an input or a
  position produces its output row.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _graded(sentence: str) -> dict:
    return _grade((OPENER_ZH if _zh(sentence) else OPENER_EN) + sentence + "\n")


# (finding, sentence): an honest caveat; no overclaim, the causal caveat's limits points
HONEST = [
    ("1", "The heatmap cannot - as a self-attention map - prove causation."),
    ("1", "The heatmap cannot - at least not without an intervention experiment of some kind - prove causation."),
    ("1", "The heatmap cannot \u2013 as a post-softmax picture \u2013 prove causation."),
    ("1", "The heatmap cannot - for key 2 - prove causation."),
    ("1", "The heatmap does not - for k2 or any key - show causation."),
    ("1", "热力图不能——对 k2 而言——证明因果关系。"),
    ("1", "We cannot claim that the brightest key - k2 - causes the output."),
    ("1", "We cannot claim that the brightest key -- k2 -- causes the output."),
    ("1", "We cannot claim that the brightest key \u2014 k2 \u2014 causes the output."),
    ("1", "不能说最亮的 key——k2——导致了输出。"),
    ("2", "q1 produces an output that mixes v2 mostly; the heatmap cannot prove causation."),
    ("2", "Query q1 produces its output from the weighted values; the heatmap cannot prove causation."),
    ("2", "q0 generates its output mostly from v1; the heatmap cannot prove causation."),
    ("2", "The input produces the output through the attention layer; the heatmap cannot prove causation."),
    ("2", "Each input generates an output row; the heatmap cannot prove causation."),
    ("2", "v2 accounts for 67% of q1's output mix; the heatmap cannot prove causation."),
    ("2", "q1 产生的输出主要来自 v2，热力图不能证明因果关系。"),
    ("2", "输入经过加权求和产生输出，热力图不能证明因果关系。"),
    ("2", "每个位置都会产生一个输出，热力图不能证明因果关系。"),
    ("4", "The heatmap cannot prove one thing - causation."),
    ("4", "The heatmap shows weights, not causes - an ablation would show causes."),
]


@pytest.mark.parametrize(("finding", "sentence"), HONEST)
def test_honest_caveat_with_dash_or_query_verb_keeps_its_limits_points(finding: str, sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), (finding, sentence)
    assert items(r)["limits"]["points"] > 0, (finding, sentence)


# guards: the claims the round's rules were made for stay claims under the mend
CLAIMS = [
    "Nothing else explains the output - k2 causes it.",
    "Nothing else explains the output\u2014k2 causes it.",
    "Nothing else explains the output -- k2 causes it.",
    "Nothing else explains the output--k2 causes it.",
    "q1 的输出只有一个解释——k2 导致了它。",
    "k2 produces the output.",
    "k2 alone is responsible for the output.",
    "key 2 generates q1's output.",
    "k2 产生了输出。",
    "k2 对输出负责。",
    "q1 causes the output.",
]


@pytest.mark.parametrize("sentence", CLAIMS)
def test_guard_dash_and_key_cause_claims_stay_overclaims(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


# claims the round's first try missed: a dash of another form before a key's claim
MISSED = [
    "Nothing else explains the output \u2015 k2 causes it.",
    "Nothing else explains the output \u2015\u2015 k2 causes it.",
    "Nothing else explains the output -k2 causes it.",
]


@pytest.mark.parametrize("sentence", MISSED)
def test_claim_after_horizontal_bar_or_unspaced_dash_is_overclaim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


# MED 5: a lead that denies what it wraps keeps a negation of the reading it wraps ("means ... does not matter")
# (a guard: main before round 42 passed it, round 42's first denying leads broke it; round 42 second review LOW 9)
LEAD_HONEST = [
    "It is not the case that a low weight means a key does not matter; the heatmap cannot prove causation.",
    "Nobody thinks a low weight means a key does not matter; the heatmap cannot prove causation.",
]


@pytest.mark.parametrize("sentence", LEAD_HONEST)
def test_guard_denying_lead_does_not_cancel_negation_inside_wrapped_reading(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


@pytest.mark.parametrize("sentence", ["It is not the case that the heatmap cannot prove causation.",
                                      "It is not the case that a high weight does not mean k2 causes the output."])
def test_guard_denying_lead_still_cancels_the_main_negation(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence


# MED 7: any short aside between a negated verb and its verb splits no clause (a key only after a preposition)
COMMA_ASIDES = [
    "The heatmap cannot, as far as I know, prove causation.",
    "The heatmap cannot, in my view, prove causation.",
    "The heatmap cannot, strictly speaking, prove causation.",
    "The heatmap cannot, on its face, prove that k2 causes the output.",
    "The heatmap cannot, however, prove causation.",
    "The heatmap cannot, unfortunately, prove causation.",
    "The heatmap cannot, without an ablation, prove causation.",
    "The heatmap cannot, for k2, prove causation.",
    "The heatmap cannot, for key 2 or any other key, prove causation.",
    "The heatmap does not, for q1, show that k2 causes the output.",
    "The heatmap cannot, by itself alone, prove causation.",
    "热力图不能，在我看来，证明因果关系。",
]


@pytest.mark.parametrize("sentence", COMMA_ASIDES)
def test_comma_aside_after_negated_verb_keeps_the_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


@pytest.mark.parametrize("sentence", ["The heatmap is not wrong, k2 causes the output, I think.",
                                      "It is not, k2 causes the output, as I said.",
                                      "It is not, for sure, k2 causes the output."])
def test_guard_commas_around_or_before_a_key_claim_set_off_no_aside(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


# HIGH 3: more leads that deny what they wrap; wrapping a caveat they assert the claim
DENIED_CAVEATS = [
    "It isn't the case that the heatmap cannot prove causation.",
    "It is not so that the heatmap cannot prove causation.",
    "You could never argue that the heatmap cannot prove causation.",
    "You cannot argue the heatmap cannot prove causation.",
    "One can hardly say that the heatmap cannot prove causation.",
    "It cannot be said that the heatmap cannot prove causation.",
    "不能说热力图不能证明因果关系。",
    "我们不能说热力图无法证明因果。",
    "并不是热力图不能证明因果关系。",
]


@pytest.mark.parametrize("sentence", DENIED_CAVEATS)
def test_denying_lead_variant_over_a_caveat_asserts_the_claim(sentence: str) -> None:
    r = _graded(sentence)
    assert items(r)["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", ["不能说 k2 不重要，也不能说它导致了输出。", "不能说热力图没有用，只是它不能证明因果关系。",
                                      "You cannot argue the heatmap proves causation.",
                                      "这并不是说热力图什么都不能证明，它只是不能证明因果关系。",
                                      "并不是 k2 导致了输出，热力图不能证明因果。"])
def test_guard_denying_lead_over_a_claim_or_another_clause_keeps_the_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


# LOW 9: the zh caveat of a denied 产生 / 引起 names its key in any of the lab's spellings
@pytest.mark.parametrize("sentence", ["热力图不能证明 key2 产生了输出。", "热力图不能证明 token 2 产生了输出。",
                                      "热力图不能证明第 2 个 key 产生了输出。"])
def test_zh_denied_produce_claim_with_key_spelling_is_the_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


# MED 6: claims still missed in the round's own classes (adverbs, more verbs of making, zh 全是/完全由)
MISSED_CLAIMS = [
    "k2 is clearly responsible for the output.",
    "k2 is 100% responsible for the output.",
    "k2 is wholly and solely responsible for the output.",
    "The output is produced solely by k2.",
    "The output is caused entirely by k2.",
    "Nothing else explains the output: it is produced solely by k2.",
    "k2 triggers the output.",
    "k2 leads to the output.",
    "k2 results in the output.",
    "k2 is behind the output.",
    "输出没有别的解释――就是 k2 造成的。",
    "输出没有别的解释－－就是 k2 造成的。",
    "输出没有别的解释：全是 k2 造成的。",
    "输出完全由 k2 产生。",
    "输出是由 k2 引起的。",
]


@pytest.mark.parametrize("sentence", MISSED_CLAIMS)
def test_causal_claim_with_adverb_or_other_verb_is_overclaim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", ["The heatmap cannot show that the output is produced solely by k2.",
                                      "热力图不能说明输出完全由 k2 产生。",
                                      "The heatmap cannot show that k2 is clearly responsible for the output.",
                                      "The heatmap cannot show that k2 leads to the output."])
def test_those_claims_denied_are_the_causal_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


# MED 6 (zh): 造就 / 左右 the output and 独自负责输出 said of a key; denied, the caveat
@pytest.mark.parametrize("sentence", ["k2 造就了输出。", "k2 左右了输出。", "k2 独自负责输出。"])
def test_zh_key_said_to_make_or_answer_for_the_output_is_overclaim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", ["热力图不能说明 k2 左右了输出。", "热力图不能证明 k2 独自负责输出。"])
def test_zh_those_claims_denied_are_the_causal_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


# MED 6: a key said alone between commas, or in a cleft
@pytest.mark.parametrize("sentence", ["k2, alone, causes the output.", "It is k2 (alone) that causes the output."])
def test_key_alone_between_commas_or_in_a_cleft_is_overclaim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", ["The heatmap cannot show that it is k2 that causes the output.",
                                      "We cannot say that k2, alone, causes the output."])
def test_guard_key_alone_or_cleft_denied_is_the_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence
