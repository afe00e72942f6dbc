"""Round 48 (helper A): the audit checker's misreadings left open by round 47, and the hunt's.

1. A caveat taken back by the next sentence, which points to it and calls it wrong ("We cannot prove k2 causes the
   prediction. That is wrong, though: it clearly does.", 我们不能证明……。不过这其实不对，k2 就是原因。): it earned the
   caveat; now it earns nothing, and it is an overclaim where the retraction then asserts the denied claim.
2. A test asked as a question and dismissed in the answer ("Ablation? Not necessary, k2 is clearly the cause.",
   消融？没必要，k2 就是原因。): the answer's "Not necessary" answered the question "no" and earned the causal caveat; now
   it is the dismissed-ablation overclaim, and a dismissal alone earns no caveat.
3. "This is not a toy example" earned the generality limit in en (a bare "a toy example", denied): no longer.
4. Three limits in one statement earn two: the checklist's rule (settings.max_concepts_per_sentence, per statement
   between semicolons), kept: it holds down stuffing; the same three split by a semicolon earn all three.
"""

from __future__ import annotations

import pytest

from rubric.audit import load_checklist
from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, dict, bool]:
    """(score, items by id, overclaim flagged) of the one-line opener and ``sentence``."""
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r), "overclaim" in kinds(r)


# ------------------------------------------------------------------------------------ 1. a caveat retracted by a pronoun
@pytest.mark.parametrize("text, asserts", [
    ("We cannot prove k2 causes the prediction. That is wrong, though: it clearly does.", True),
    ("我们不能证明 k2 导致了输出。不过这其实不对，k2 就是原因。", True),
    ("The heatmap does not show that k2 matters. That's wrong, of course: k2 is.", True),
    ("我们不能证明 k2 导致了输出。这一点是错的。", False),
    ("The example may not generalise. That is false too.", False),
])
def test_a_caveat_the_next_sentence_calls_wrong_earns_nothing_and_is_an_overclaim_where_it_asserts(text, asserts):
    """Before: limits 1.5 (1 for the generality limit; 0 for "does not show that k2 matters"), none flagged."""
    _, its, flagged = _reading(text)
    assert its["limits"]["points"] == 0 and flagged == asserts


@pytest.mark.parametrize("text", [
    "We cannot prove k2 causes the prediction. That would be wrong to claim without an ablation.",
    "We cannot prove k2 causes the prediction. That is wrong to assume from a weight.",
    "We cannot prove k2 causes the prediction. That is the main limit.",
    "热力图不能证明 k2 导致了输出。这一点需要消融才能检验。",
    "我们不能证明 k2 导致了输出。这不对称的权重只说明 q1 读哪里。",
    # the verdict rebuts a reported claim, not a caveat of the student's
    "Some say k2 causes the output. That is wrong: the heatmap cannot show it.",
])
def test_a_pointer_that_judges_the_claim_or_adds_to_the_caveat_keeps_it(text):
    _, its, flagged = _reading(text)
    assert its["limits"]["points"] == 1.5 and not flagged


# ------------------------------------------------------------------------------------ 2. a test asked, then dismissed
@pytest.mark.parametrize("text", [
    "Ablation? Not necessary, k2 is clearly the cause.",
    "Ablation? Not necessary. k2 is clearly the cause.",
    "Ablation? Pointless, k2 is the cause.",
    "消融？没必要，k2 就是原因。",
    "消融？没必要。k2 就是原因。",
])
def test_a_test_asked_and_dismissed_beside_a_causal_claim_is_an_overclaim_and_no_caveat(text):
    """Before: en limits 0.75 (the "Not" answered the question no) or 0, zh 0; none flagged."""
    _, its, flagged = _reading(text)
    assert flagged and its["limits"]["points"] == 0


def test_a_dismissed_test_alone_is_no_caveat():
    """Before: "Ablation? Not necessary." earned the causal caveat as a bare "no" (limits 0.75)."""
    _, its, flagged = _reading("Ablation? Not necessary.")
    assert its["limits"]["points"] == 0 and not flagged


@pytest.mark.parametrize("text", [
    "Ablation? Not necessary for reading the figure, but whether k2 causes the output would need one.",
    "Ablation? Not necessary here, since we do not claim that k2 is the cause.",
    "消融？没必要做，因为我们不声称 k2 是原因。",
])
def test_a_dismissed_test_with_the_claim_denied_or_asked_is_no_overclaim(text):
    assert not _reading(text)[2]


@pytest.mark.parametrize("text", ["Can the heatmap prove causality? No.", "热力图能证明因果吗？不能。"])
def test_a_question_answered_no_stays_the_caveat(text):
    assert _reading(text)[1]["limits"]["points"] > 0


def test_a_key_said_to_be_clearly_the_cause_beside_a_skipped_ablation_is_an_overclaim():
    """Before: no flag ("k2 clearly is the cause" was read, "k2 is clearly the cause" was not)."""
    assert _reading("We skipped the ablation, k2 is clearly the cause.")[2]


# ------------------------------------------------------------------------------------ 3. a toy example denied
@pytest.mark.parametrize("text", [
    "This is not a toy example.",
    "This is not a toy example; the pattern holds for real data as well.",
])
def test_a_denied_toy_example_is_no_generality_limit(text):
    """Before: limits 0.5 / 1 (the bare "a toy example" and its "not")."""
    assert _reading(text)[1]["limits"]["points"] == 0


@pytest.mark.parametrize("text", [
    "A toy example does not generalise.",
    "This toy example cannot tell us about other inputs.",
])
def test_a_toy_example_said_as_a_limit_stays_the_generality_limit(text):
    assert _reading(text)[1]["limits"]["points"] == 1


# ------------------------------------------------------------------------------------ 4. three limits, one statement
THREE = ("The heatmap does not prove that k2 causes q1's output, nor that k2 is the most important feature{sep} one seed "
         "on a 2x3 toy does not generalise.")


def test_the_concept_cap_is_two_per_statement_by_the_checklists_rule():
    assert load_checklist().max_per_sentence == 2


def test_three_limits_in_one_statement_earn_two_and_split_by_a_semicolon_earn_three():
    """The rule (audit.yaml, settings.max_concepts_per_sentence: "Stuffing is held down by ...") counts concepts per
    statement, the parts of a sentence between semicolons. A TA credits all three of the comma'd sentence (the hand
    scores of validation/*_r48_three_limits_one_sentence.md, one point above the checker); lifting the cap for limits
    would credit "not causal, not importance, not general" stuffing alike, so it is kept."""
    comma = _reading(THREE.format(sep=", and"))[1]["limits"]["points"]
    semicolon = _reading(THREE.format(sep="; and"))[1]["limits"]["points"]
    assert comma == 3 and semicolon == 4
