"""Round 42 second mend (second review of A): asides that assert or take back, and caveats read into "no effect" sentences.

HIGH 1: a dash aside holding a decimal, a key or two keys ("k2 - it has weight 0.67 - causes", "the brightest keys - k1 and
  k2 - cause") splits no clause: the caveat stays one. A key with a verb of its own between dashes is still a claim.
HIGH 3: an aside after a negated verb that takes the negation back ("cannot, in fact it does, prove", 不能，其实它可以，证明)
  is no aside: the sentence asserts the claim.
MED 4: a negated "no effect" sentence ("the mask never leads to a different output") is no causal caveat.
MED 5: "accounts for" is a share of a mix, not a key's cause claim.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _graded(sentence: str) -> dict:
    return _grade((OPENER_ZH if _zh(sentence) else OPENER_EN) + sentence + "\n")


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot show that k2 - it has weight 0.67 - causes the output.",
    "We cannot know whether k2 - it gets 0.67 - causes the output.",
    "We cannot claim that the brightest keys - k1 and k2 - cause the output.",
    "We cannot say that key 2 - key 2 being the brightest - causes the output.",
])
def test_dash_aside_with_a_decimal_or_keys_keeps_the_causal_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


@pytest.mark.parametrize("sentence", [
    "Nothing else explains the output - k2 causes it - really.",
    "Nothing else explains the output - k2 leads to it.",
])
def test_guard_key_with_its_own_verb_between_dashes_is_still_a_claim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r), sentence
    assert items(r)["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot, in fact it does, prove causation.",
    "The heatmap cannot, I mean it can, prove causation.",
    "热力图不能，其实它可以，证明因果关系。",
])
def test_aside_taking_back_the_negation_earns_no_causal_caveat(sentence: str) -> None:
    assert items(_graded(sentence))["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot, as far as I can tell, prove causation.",
    "The heatmap cannot, as far as I know, prove causation.",
    "热力图不能，在我看来，证明因果关系。",
])
def test_guard_neutral_aside_after_a_negated_verb_keeps_the_caveat(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


@pytest.mark.parametrize("sentence", [
    "The mask never leads to a different output.",
    "k2 never triggers a different output.",
    "Softmax never generates a different output.",
    "Masking never results in a different output for real keys.",
    "k2 不会引起不同的输出。",
])
def test_negated_no_effect_sentence_earns_no_causal_caveat(sentence: str) -> None:
    assert items(_graded(sentence))["limits"]["points"] == 0, sentence


@pytest.mark.parametrize("sentence", [
    "In my ablation, masking k2 leads to a different output for q1, which the heatmap alone could not show.",
    "The heatmap cannot show that k2 leads to the output.",
])
def test_guard_new_verbs_still_earn_the_caveat_outside_no_effect_sentences(sentence: str) -> None:
    assert items(_graded(sentence))["limits"]["points"] > 0, sentence


@pytest.mark.parametrize("sentence", [
    "k2 accounts for 0.67 of q1's output mix; the heatmap cannot prove causation.",
    "k2 accounts for most of the output weight of q1, but the heatmap cannot prove causation.",
])
def test_accounts_for_is_no_cause_claim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


# HIGH 2: "nobody can argue that X" denies X (as "nobody can say that X"), it does not affirm it as "nobody can doubt" does
@pytest.mark.parametrize("sentence", [
    "Nobody can argue that k2 causes the output.",
    "Nobody could argue that the heatmap proves causation.",
    "Honestly, nobody can argue that the heatmap proves causation.",
])
def test_nobody_can_argue_that_denies_the_claim(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r), sentence
    assert items(r)["limits"]["points"] > 0, sentence


def test_nobody_can_argue_that_the_heatmap_cannot_prove_causation_asserts_it_can() -> None:
    r = _graded("Nobody could argue that the heatmap cannot prove causation.")
    assert items(r)["limits"]["points"] == 0
