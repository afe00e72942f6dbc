"""Round 46 (builder A): the audit checker's misreadings left open at stop 49, and the hunt's.

1. A denied requirement of the test a causal or importance question needs ("Whether k2 matters needs no ablation: the
   heatmap shows it", k2 是否重要不需要做消融) rejects the caveat: it earned the causal caveat on its "no"; it earns nothing
   and is an overclaim.
2. A certainty set off by commas ("k2 is, almost certainly, the cause of q1's output", k2，毫无疑问，是 q1 输出的原因) asserts
   the claim as without the commas: it was no claim at all.
3. A supposition written without a comma and denied ("If k2 causes it the heatmap cannot prove it", 如果 k2 导致了输出热力图
   也证明不了) is the caveat its comma'd twin is: it earned nothing (en) or was flagged as the claim it supposes (zh).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    """(score, limits points, overclaim flagged) of the one-line opener and ``sentence``."""
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


# ------------------------------------------------------------------------------------------------ 1. "needs no ablation"
@pytest.mark.parametrize("sentence", [
    "Whether k2 matters needs no ablation: the heatmap shows it.",
    "Whether k2 causes q1's output requires no ablation: the heatmap already shows it.",
    "Whether k2 causes the output does not need an ablation: the heatmap already shows it.",
    "To know whether k2 matters you need no ablation: the heatmap shows it.",
    "We need no ablation to see that k2 causes the output.",
    "k2 是否重要不需要做消融：热力图已经说明了。",
    "k2 是否导致了输出不用做消融，热力图就能看出来。",
    "想知道 k2 是否导致输出，不需要消融实验。",
    "An ablation is not needed to see that k2 matters.",
    "I do not need to intervene on the keys to claim a causal effect.",
])
def test_a_causal_question_said_to_need_no_ablation_is_an_overclaim_and_no_caveat(sentence):
    """Before: limits 1.5 (the causal caveat, on the "no") and no flag; the zh twins 0 and no flag."""
    _, limits, flagged = _reading(sentence)
    assert limits == 0 and flagged


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove that k2 causes the output; only an ablation can.",
    "热力图不能证明 k2 导致了输出，需要做消融。",
])
def test_the_ablation_a_causal_claim_needs_stays_a_caveat(sentence):
    _, limits, flagged = _reading(sentence)
    assert limits > 0 and not flagged


@pytest.mark.parametrize("sentence", [
    "Experiment B needs no ablation: the padding keys get weight 0.",
    "No ablation is needed for the parity check.",
    "parity 检查不需要做消融。",
    "Padding is not needed for experiment C.",
    "The heatmap cannot prove causation, no ablation was needed for the parity check.",
])
def test_no_ablation_needed_for_something_else_claims_nothing(sentence):
    assert _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ 2. certainty in commas
@pytest.mark.parametrize("sentence", [
    "k2 is, almost certainly, the cause of q1's output.",
    "k2 is, without doubt, the cause of q1's output.",
    "k2, almost certainly, causes q1's output.",
    "k2，毫无疑问，是 q1 输出的原因。",
    "k2，几乎可以肯定，就是 q1 输出的原因。",
])
def test_a_certainty_set_off_by_commas_still_asserts_the_claim(sentence):
    """Before: 3.0, no flag (the commas cut the claim in three clauses and the certainty was no known aside)."""
    assert _reading(sentence)[2] is True


@pytest.mark.parametrize("sentence", [
    "k2 is, almost certainly, not the cause of q1's output.",
    "The heatmap, certainly, cannot prove that k2 causes the output.",
    "The rows sum to 1, which is, without doubt, correct.",
])
def test_a_certainty_in_commas_around_a_denial_or_a_fact_claims_nothing(sentence):
    assert _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ 3. comma-less supposition
@pytest.mark.parametrize("sentence", [
    "If k2 causes it the heatmap cannot prove it.",
    "If k2 causes q1's output the heatmap cannot show that.",
    "If k2 causes the output then the heatmap cannot prove it.",
    "如果 k2 导致了输出热力图也证明不了。",
    "如果 k2 导致了输出那么热力图也证明不了。",
])
def test_a_comma_less_supposition_denied_is_the_causal_caveat(sentence):
    """Before: limits 0 (en), or flagged as an overclaim (zh); its twin with a comma earned 1.5."""
    _, limits, flagged = _reading(sentence)
    assert limits == 1.5 and not flagged


@pytest.mark.parametrize("sentence", [
    "If we look at the heatmap k2 causes the output.",
    "If you look at row 2 k2 clearly causes q1's output.",
])
def test_a_condition_before_an_asserted_claim_keeps_the_overclaim(sentence):
    assert _reading(sentence)[2] is True


# ------------------------------------------------------------------------------------------------ 4. inline limits label
@pytest.mark.parametrize("sentence", [
    "局限：只跑了一个 seed。",
    "局限性：只用了一个 seed。",
    "局限：只有一个小例子。",
    "Limitations: I only ran one seed.",
])
def test_a_limits_label_with_its_content_on_the_line_credits_the_limit(sentence):
    """Before: limits 0 (the colon cut the label's clause from what it labels)."""
    assert _reading(sentence)[1] == 1


@pytest.mark.parametrize("sentence", ["Note: only one seed.", "Parity: I only ran one seed."])
def test_another_label_before_a_colon_is_no_limits_label(sentence):
    assert _reading(sentence)[1] == 0


# ------------------------------------------------------------------------------------------------ 5. appositive peak
def _reading_points(sentence: str) -> tuple[float, bool]:
    r = _grade(OPENER_EN + sentence + "\n")
    return items(r)["figure_reading"]["points"], "figure" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "q1 puts 0.67 on k2, its largest weight.",
    "q1 puts 0.67 on k2, which is its largest weight.",
    "q1 puts 0.67 on k2, more than on any other key.",
])
def test_a_peak_said_after_a_comma_reads_the_querys_peak(sentence):
    """Before: figure_reading 1 (the opener's axes only: the cell was read as a value, its peak missed)."""
    assert _reading_points(sentence) == (2, False)


def test_a_false_peak_said_after_a_comma_is_a_misreading():
    assert _reading_points("q1 puts 0.09 on k0, its largest weight.")[1] is True


def test_a_value_with_another_word_after_the_comma_reads_no_peak():
    assert _reading_points("q1 puts 0.67 on k2, the largest key index.")[0] == 1


# ------------------------------------------------------------------------------------------------ 6. code-switched
@pytest.mark.parametrize(("mixed", "zh"), [
    ("high weight 不代表 k2 导致了输出，要做 ablation 才知道。", "权重高不代表 k2 导致了输出，要做消融才知道。"),
    ("attention 高不代表 k2 导致了输出。", "注意力高不代表 k2 导致了输出。"),
    ("是不是 causal，要做消融才知道。", "是不是因果，要做消融才知道。"),
])
def test_a_code_switched_caveat_earns_what_its_zh_twin_earns(mixed, zh):
    """Before: the mixed sentences earned 1.5 less (the English weight or cause was not read by the zh phrases)."""
    assert _reading(mixed)[1] == _reading(zh)[1] > 0


def test_a_code_switched_high_weight_read_as_importance_is_an_overclaim():
    """Before: 3.0 and no flag; 权重高代表 k2 很重要 is flagged."""
    assert _reading("high weight 代表 k2 很重要。")[2] is True
