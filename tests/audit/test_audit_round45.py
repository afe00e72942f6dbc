"""Round 45 (brief A): stop 48's open misreadings.

A doubted denial of a key's importance (很难想象 k2 不重要, "hard to imagine k2 being unimportant") and "never fails to be"
assert the claim; "almost certainly causes" is certainty, not a hedge; a supposition without a comma ("If k2 causes q1's
output an ablation would show it") and a reported view rebutted without a negation word ("the heatmap is silent on that",
热图对此无从判断) claim nothing.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "很难想象 k2 不重要。",
    "很难想象 k2 对输出不重要。",
    "It is hard to imagine k2 being unimportant.",
    "It is hard to imagine that k2 does not matter.",
    "It is hard to imagine k2 not being important.",
])
def test_doubting_that_a_key_is_unimportant_claims_it_matters(sentence):
    """Stop 48: 3.0 and no flag (the pair's blanked reading, 'k2 重要', matched no pattern); as 很难想象 k2 不是输出的原因."""
    assert _reading(sentence) == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "我怀疑 k2 不重要。",
    "很难想象缩放不重要。",
    "It is hard to imagine that scaling does not matter.",
    "我不相信热力图能证明 k2 重要。",
])
def test_a_suspicion_or_a_computation_step_said_to_matter_is_no_claim_about_a_key(sentence):
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "k2 never fails to be the most important key.",
    "k2 does not fail to be the most important key.",
])
def test_never_failing_to_be_the_most_important_key_is_the_claim(sentence):
    """Stop 48: 3.0 and no flag ('does be the most important key' matched no pattern); 'k2 is the most important key' is
    flagged."""
    assert _reading(sentence) == (2.0, 0.0, True)


def test_never_failing_to_be_something_else_is_no_claim():
    assert not _reading("The heatmap never fails to be readable.")[2]


@pytest.mark.parametrize("sentence", [
    "k2 almost certainly causes the output.",
    "k2 is almost certainly the cause of the output.",
    "k2 nearly certainly drives q1's output.",
    "几乎可以肯定 k2 导致了输出。",
    "k2 几乎可以肯定导致了输出。",
])
def test_almost_certainly_causes_is_an_overclaim(sentence):
    """Stop 48: the en forms scored 3.0 with no flag (the zh ones were flagged)."""
    assert _reading(sentence) == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "k2 almost causes the output.",
    "The heatmap cannot show that k2 almost certainly causes the output.",
])
def test_almost_alone_or_a_denied_almost_certainly_is_no_claim(sentence):
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "If k2 causes q1's output an ablation would show it.",
    "If k2 causes the output then removing it would change the output.",
    "如果 k2 导致了输出那么消融会显示出来。",
    "如果 k2 是输出的原因的话消融会显示出来。",
])
def test_a_claim_only_supposed_without_a_comma_is_no_claim(sentence):
    """Stop 48: flagged (2.0), while the comma form ('If k2 causes q1's output, an ablation ...') was not."""
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "If q1 attends most to k2 then k2 causes the output.",
    "如果 q1 最关注 k2 那么 k2 就是输出的原因。",
    "If you ask me k2 causes the output.",
    "If k2 causes the output as it obviously does an ablation would show it.",
    "如果没有消融实验也能看出 k2 导致了 q1 的输出。",
])
def test_a_comma_less_conditional_whose_consequent_or_aside_asserts_is_a_claim(sentence):
    assert _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "Some say k2 causes the output; the heatmap is silent on that.",
    "Some say k2 causes the output, but the heatmap is silent on that.",
    "有人说 k2 导致了输出，但热图对此无从判断。",
    "有人说 k2 导致了输出；热力图对此无从判断。",
])
def test_a_reported_view_rebutted_without_a_negation_word_is_no_claim(sentence):
    """Stop 48: flagged (2.0); the rebuttal says what the heatmap does not tell without 不 / not."""
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "Some say k2 causes the output; the heatmap confirms it.",
    "Some say k2 causes the output; I agree.",
    "有人说 k2 导致了输出，热力图也说明了这一点。",
    "有人说 k2 导致了输出，热力图证实了这一点，没有疑问。",
])
def test_a_reported_view_the_writer_then_backs_is_still_a_claim(sentence):
    assert _reading(sentence)[2]
