"""Round 43 mend (review RA of brief A).

Item 2 of the brief ("a double negation asserts") is reverted as a class: "you can't say k0 isn't the cause just from
its 0.09 weight" is the lab's most natural honest caveat, and denials of both sides in any wording were flagged. Double
negations are read as main read them: the guards below hold main's score for each (review HIGH 1, HIGH 2).
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


def _reading(sentence: str) -> tuple[float, float, bool]:
    r = _graded(sentence)
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


# (sentence, (score, caveat points, flagged)) as main grades them
DOUBLE_NEGATIONS_AS_MAIN = [
    ("You can't say k0 isn't the cause of the output just from its 0.09 weight.", (4.5, 1.5, False)),
    ("You can't say k2 doesn't cause the output.", (4.5, 1.5, False)),
    ("We can't say k2 isn't the cause of the output.", (4.5, 1.5, False)),
    ("You can't say that k2 doesn't cause the output.", (3.0, 0.0, False)),
    ("One cannot say that k2 is not the cause of the output.", (3.0, 0.0, False)),
    ("It is not the case that k2 doesn't cause the output.", (3.0, 0.0, False)),
    ("We cannot say k2 doesn't cause the output, and we cannot say it does either; only an ablation can tell.",
     (4.5, 1.5, False)),
    ("Nobody can say k2 doesn't cause the output without an ablation, and nobody can say it does.", (4.5, 1.5, False)),
    ("You can't say k2 doesn't cause the output, but you can't say it does either.", (4.5, 1.5, False)),
    ("We cannot say k2 doesn't cause the output, nor can we say that it causes it.", (4.5, 1.5, False)),
    ("We cannot conclude k2 doesn't cause the output, nor that it does.", (4.5, 1.5, False)),
    ("We can't say k2 causes the output, and we can't say it doesn't.", (4.5, 1.5, False)),
    ("A low weight does not mean k0 is not the cause of the output.", (4.5, 1.5, False)),
    ("The heatmap cannot show that k2 is not the cause of the output.", (4.5, 1.5, False)),
    ("不能说 k0 不是输出的原因，因为注意力权重不等于因果效应。", (4.5, 1.5, False)),
    ("不能说 k2 不是输出的原因，也不能说 k2 是输出的原因。", (4.5, 1.5, False)),
    ("既不能说 k2 是输出的原因，也不能说它不是。", (4.5, 1.5, False)),
    ("不能说 k2 不是输出的原因。", (3.0, 0.0, False)),
    ("我们不能说 k2 不是 q1 输出的原因。", (3.0, 0.0, False)),
    ("不能说 k2 不是输出的原因，也不能说它是。", (3.0, 0.0, False)),
    ("低权重不代表 k0 不是输出的原因。", (3.0, 0.0, False)),
    ("不能否认 k2 导致了输出。", (2.0, 0.0, True)),
]


@pytest.mark.parametrize(("sentence", "expected"), DOUBLE_NEGATIONS_AS_MAIN)
def test_a_double_negation_is_read_as_main_reads_it(sentence, expected):
    assert _reading(sentence) == expected


VALIDATION = Path(__file__).resolve().parent / "validation"


@pytest.mark.parametrize(("name", "caveat"), [
    ("en_excellent_prose.md", "A low weight is not evidence either: we can't say k0 isn't the cause of the output just "
                              "from its 0.09 weight."),
    ("en_excellent_prose.md", "We cannot say k2 doesn't cause the output, and we cannot say it does either; only an "
                              "ablation can tell."),
    ("zh_excellent_prose.md", "低权重也不是证据：不能说 k0 不是输出的原因，因为注意力权重不等于因果效应。"),
])
def test_an_excellent_audit_keeps_its_score_with_a_caveat_in_double_negation(name, caveat):
    """Review HIGH 1: the caveat added to an excellent audit cost it 2 points (15.0 -> 13.0) and a flag."""
    base = (VALIDATION / name).read_text(encoding="utf-8")
    plain, added = _grade(base), _grade(base + "\n" + caveat + "\n")
    assert added["score"] == plain["score"] and "overclaim" not in kinds(added), (plain["score"], added["score"])


def _claimed(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0 and r["score"] <= 2, (r["score"], kinds(r))


def _honest(sentence: str) -> None:
    r = _graded(sentence)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (r["score"], kinds(r))


@pytest.mark.parametrize("sentence", [
    "The heatmap does not, despite k2 causing the output, prove causation.",
    "The heatmap does not, despite k2 being the cause of the output, prove causation.",
    "The heatmap cannot, with k2 causing the output, prove causation.",
    "The heatmap cannot, even with k2 driving the output, prove causation.",
    "The heatmap cannot, given k2's role as the cause of the output, prove causation.",
    "The heatmap does not, despite k2 driving the output, prove causation.",
    "The heatmap cannot, given that k2 is responsible for the output, prove causation.",
    "The heatmap cannot, even though k2 is the brightest cause, prove causation.",
])
def test_a_concession_aside_holding_a_keys_causal_claim_is_a_claim(sentence):
    """Review HIGH 3: the en concession aside had no veto for a key said to cause (any form: causing, being the cause,
    drives, role as the cause), as zh's 尽管 k2 导致了输出 had; 2.0 and flagged on main, 4.5 on A."""
    _claimed(sentence)


def test_an_aside_naming_the_key_that_causes_the_output_earns_no_caveat():
    """Review HIGH 3: "Weights cannot, at least for k2 which causes the output, be ignored." kept main's 3.0, no caveat."""
    r = _graded("Weights cannot, at least for k2 which causes the output, be ignored.")
    assert items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


@pytest.mark.parametrize("sentence", [
    "Nothing else explains the output - frankly k2 causes it.",
    "Nothing else explains the output - in my view k2 causes it.",
    "Nothing else explains the output - I think k2 causes it.",
    "Nothing else explains the output - no doubt k2 causes it.",
    "Nothing else explains the output - without doubt k2 causes it.",
    "Nothing else explains the output - and k2 causes it.",
    "Nothing else explains the output - the key k2 causes it.",
    "Nothing else explains the output - the output is caused by k2.",
    "Nothing else explains the output - q1's output is caused by k2.",
    "Nothing else explains the output (I think k2 causes it).",
    "Nothing else explains the output (so k2 causes it).",
    "Nothing else explains the output (k2 causes it) and that is my finding.",
    "输出没有别的解释——我认为 k2 导致了输出。",
])
def test_any_words_after_a_dash_or_in_a_bracket_before_a_keys_claim_leave_it_a_claim(sentence):
    """Review MED 2: A's adverb list after the dash missed most leads ("frankly", "I think", "and", a passive)."""
    _claimed(sentence)


@pytest.mark.parametrize("sentence", [
    # review MED 3: a bracket that supposes or narrows the statement claims nothing
    "We cannot conclude anything about causation (k2 causes the output only if an ablation shows it).",
    "The heatmap cannot prove that k2 causes the output (k2 causes it only in the sense that it gets most weight).",
    "热力图不能证明因果（只有消融实验才能说明 k2 导致了输出）。",
    "热力图不能证明因果（如果 k2 导致了输出，消融实验会显示）。",
    # ... and the dash's own forms that suppose or name a key after a preposition
    "The heatmap cannot prove causation - whether k2 causes the output needs an ablation.",
    "The heatmap cannot prove that k2 causes the output - an ablation of k2 would be needed.",
    "We cannot conclude from the heatmap - not without an ablation - that k2 causes the output.",
    "The heatmap cannot show - for k2 or any key - causation.",
    "Causality (of k2) cannot be inferred from the weights.",
    # review MED 4: 很难 / hardly / hard to reach their verb across a short adverbial
    "热力图很难据此证明 k2 导致了输出。",
    "仅凭热力图很难真正证明 k2 导致了输出。",
    "我们很难从热力图中看出 k2 导致了输出。",
    "很难单凭 0.67 的权重证明 k2 是输出的原因。",
    "很难用注意力权重来证明 k2 导致了输出。",
    "很难断言 k2 导致了输出。",
    "The heatmap can hardly, by itself, prove that k2 causes the output.",
    "The heatmap hardly ever proves that a key causes the output.",
    "It is hard to prove that k2 causes the output from the heatmap.",
    "It is difficult to tell from the weights whether k2 causes the output.",
    # review MED 5: an aside reading a key's weight off the figure is an aside
    "热力图无法，就算 k2 的权重是最高的，证明 k2 是输出的原因。",
    "The heatmap cannot, even though k2 has 0.67, prove causation.",
    "The heatmap does not, given that k2 is the brightest, prove that k2 causes the output.",
    "Weights cannot, in spite of k2 being at 0.67, establish that k2 is the cause of the output.",
])
def test_an_honest_caveat_in_these_forms_earns_the_caveat_unflagged(sentence):
    _honest(sentence)


@pytest.mark.parametrize(("sentence", "expected"), [
    ("q1 barely attends to k0, which shows that k2 causes the output.", (2.0, 0.0, True)),
    ("q1 barely attends to k0 (0.09).", (4.0, 0.0, False)),
    ("It is hard to ignore that k2 causes the output.", (2.0, 0.0, True)),
    ("It is hardly surprising that k2 causes the output.", (2.0, 0.0, True)),
])
def test_a_hedge_reaches_no_verb_across_a_clause_or_a_verb_of_neglect(sentence, expected):
    """The widened hedges keep main's reading where they reach no verb of proving (a clause or "ignore" in between)."""
    assert _reading(sentence) == expected
