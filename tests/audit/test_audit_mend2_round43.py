"""Round 43 second mend (second review RA2 of brief A).

A dash or a bracket splits off a key's claim only when the clause asserts it: a hedge, another's view or a purpose
claims nothing, as on main (HIGH 1); a supposing word exempts a bracket only before the key or as a narrowing "only
if" (MED 2); 很难 before a negated claim is read as main reads it (MED 3).
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
HEDGED_ASIDES_AS_MAIN = [
    ("The heatmap cannot prove causation (perhaps k2 causes the output, perhaps not).", (4.5, 1.5, False)),
    ("The heatmap cannot prove causation (one might think k2 causes the output).", (4.5, 1.5, False)),
    ("The heatmap cannot prove causation (it is tempting to say k2 causes the output).", (4.5, 1.5, False)),
    ("The heatmap cannot prove causation (many readers would say k2 causes the output).", (4.5, 1.5, False)),
    ("The heatmap cannot prove causation (to test that k2 causes the output, ablate it).", (4.5, 1.5, False)),
    ("The heatmap cannot prove causation (k2 may well cause the output, but we would need to ablate it).",
     (4.5, 1.5, False)),
    ("The heatmap cannot prove causation - perhaps k2 causes the output, perhaps not.", (4.5, 1.5, False)),
    ("The heatmap cannot prove causation - one might think k2 causes the output, but that needs an ablation.",
     (4.5, 1.5, False)),
    ("The heatmap cannot prove causation - to show that k2 causes the output we would ablate it.", (4.5, 1.5, False)),
    ("热力图不能证明因果（有人会认为 k2 导致了输出）。", (4.5, 1.5, False)),
    ("热力图不能证明因果（很多人以为 k2 导致了输出，但这需要验证）。", (4.5, 1.5, False)),
    ("热力图不能证明因果（也许 k2 导致了输出）。", (4.5, 1.5, False)),
    ("热力图不能证明因果——也许 k2 导致了输出，也许没有。", (3.0, 0.0, False)),
    ("热力图不能证明因果——有人会认为 k2 导致了输出，但这需要消融实验。", (4.5, 1.5, False)),
]


@pytest.mark.parametrize(("sentence", "expected"), HEDGED_ASIDES_AS_MAIN)
def test_a_hedged_reported_or_purposive_aside_claims_nothing(sentence, expected):
    assert _reading(sentence) == expected


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causation (k2 causes the output, whether you like it or not).",
    "The heatmap cannot prove causation (k2 causes the output even if nobody ablates it).",
    "The heatmap cannot prove causation (k2 causes the output, in the sense that it drives it).",
    "The heatmap cannot prove causation (k2 causes the output; if you doubt it, look at 0.67).",
    "Nothing else explains the output (k2 causes the output, whether or not you ablate it).",
    "热力图不能证明因果（k2 导致了输出，如果你不信，看 0.67）。",
    "热力图不能证明因果（k2 导致了输出，是否消融都一样）。",
    "热力图不能证明因果（只有 k2 导致了输出）。",
    "热力图不能证明因果（我认为只有 k2 导致了输出）。",
])
def test_a_supposing_word_after_a_bracketed_claim_does_not_exempt_it(sentence):
    r = _graded(sentence)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causation (k2 causes the output only if an ablation shows it).",
    "The heatmap cannot prove causation (whether k2 causes the output needs an ablation).",
    "热力图不能证明因果（只有消融实验才能说明 k2 导致了输出）。",
    "热力图不能证明因果（为了检验 k2 是否导致了输出，需要消融）。",
])
def test_a_bracket_that_opens_with_or_narrows_by_a_supposition_stays_honest(sentence):
    r = _graded(sentence)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (r["score"], kinds(r))


@pytest.mark.parametrize("sentence", [
    "很难证明 k0 不是输出的原因。",
    "很难证明 k0 不是输出的原因，0.09 的低权重说明不了什么。",
    "仅凭 0.09 的权重，很难断定 k0 不是输出的原因。",
    "It is hard to prove that k0 is not the cause of the output from its 0.09 weight.",
])
def test_hard_to_prove_a_key_is_not_the_cause_keeps_mains_caveat(sentence):
    assert _reading(sentence) == (4.5, 1.5, False)


VALIDATION = Path(__file__).resolve().parent / "validation"


@pytest.mark.parametrize(("name", "caveat"), [
    ("en_excellent_prose.md", "The heatmap cannot prove causation (one might think k2 causes the output, but only an "
                              "ablation can tell)."),
    ("en_excellent_prose.md", "The heatmap cannot prove causation - perhaps k2 causes the output, perhaps not."),
    ("zh_excellent_prose.md", "热力图不能证明因果（有人会认为 k2 导致了输出，但这需要消融实验验证）。"),
])
def test_an_excellent_audit_keeps_its_score_with_a_hedged_aside(name, caveat):
    """Review HIGH 1: these cost a full audit 1-2 points and a flag."""
    base = (VALIDATION / name).read_text(encoding="utf-8")
    plain, added = _grade(base), _grade(base + "\n" + caveat + "\n")
    assert added["score"] == plain["score"] and "overclaim" not in kinds(added), (plain["score"], added["score"])


@pytest.mark.parametrize("sentence", [
    "很难否认 k2 导致了输出。",
    "很难怀疑 k2 导致了输出。",
    "很难不承认 k2 导致了输出。",
    "There can hardly be any doubt that k2 causes the output.",
    "Hardly anyone would doubt that k2 causes the output.",
    "We can hardly doubt that k2 causes the output.",
])
def test_a_hedged_denial_or_doubt_asserts_the_claim(sentence):
    """Review MED 4: 'hard to deny' already asserted; these earned the caveat (4.5) on main."""
    r = _graded(sentence)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


@pytest.mark.parametrize("sentence", [
    "热力图不能证明因果关系（k2 或许导致了输出）。",
    "热力图不能证明因果关系（我猜 k2 可能导致了输出）。",
    "热力图不能证明因果关系（我猜 k2 可能导致了输出，但需要消融实验验证）。",
    "热力图不能证明因果关系（k2 可能导致了输出，但需要消融实验验证）。",
])
def test_a_hedge_inside_a_bracketed_claim_keeps_the_bracket_under_its_negation(sentence):
    """HIGH 1's class: the hedge taken out of the claim let the bracket split the claim off (3.5 and a flag)."""
    assert _reading(sentence) == (4.5, 1.5, False)


@pytest.mark.parametrize("sentence", ["（k2 或许导致了输出）。", "我认为（k2 或许导致了输出）。"])
def test_a_hedged_bracketed_claim_on_its_own_is_still_flagged_as_on_main(sentence):
    assert _reading(sentence) == (2.0, 0.0, True)
