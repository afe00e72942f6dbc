"""Round 44 (brief A): stop 47's open misreadings and the hunt's classes.

A negation paired with a word of doubt asserts the claim it wraps (很难想象 / 很难相信 / 我不相信 k2 不是输出的原因), and so
does "does not / hardly / never fail to"; an aside that opens with a supposing word supposes the cause it names ("cannot,
even if k2 caused the output, prove it"); a key said to explain or account for the output claims it, and "probably" /
"likely" between the key and its verb hedges the claim, it does not hide it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _graded(sentence: str) -> dict:
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    return _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")


def _reading(sentence: str) -> tuple[float, float, bool]:
    r = _graded(sentence)
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "很难想象 k2 不是输出的原因。",
    "很难相信 k2 不是输出的原因。",
    "难以想象 k2 不是 q1 输出的原因。",
    "我不相信 k2 不是输出的原因。",
    "It is hard to imagine that k2 is not the cause of the output.",
    "It is hard to believe that k2 is not the cause of the output.",
])
def test_hard_to_imagine_or_believe_a_key_is_not_the_cause_claims_it_is(sentence):
    """Stop 47: the first two earned the caveat (4.5) as if they denied the cause; like 很难否认 they assert it."""
    assert _reading(sentence) == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "很难相信热力图能证明因果。",
    "It is hard to imagine that the heatmap proves causation.",
])
def test_hard_to_believe_a_claim_still_denies_it(sentence):
    assert _reading(sentence) == (4.5, 1.5, False)


@pytest.mark.parametrize("sentence", [
    "很难想象 k2 是输出的原因。",
    "You can't say that k2 doesn't cause the output.",
    "低权重不代表 k0 不是输出的原因。",
    "The heatmap never fails to show the weights.",
    "k2 may cause the output.",
    "我怀疑 k2 不是输出的原因。",
])
def test_a_denial_or_an_open_question_is_not_read_as_the_claim(sentence):
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot, even if k2 caused the output, prove it.",
    "The heatmap cannot, even if k2 caused the output, show that it did.",
    "热力图不能，就算 k2 导致了输出，证明这一点。",
])
def test_a_supposing_aside_inside_a_denial_is_an_honest_caveat(sentence):
    """Stop 47: flagged as an overclaim (2.0), the aside split from the 'cannot' that governs it."""
    assert _reading(sentence) == (4.5, 1.5, False)


@pytest.mark.parametrize("sentence", [
    "k2 hardly fails to cause the output.",
    "k2 does not fail to cause the output.",
    "k2 never fails to cause the output.",
    "k2 cannot fail to cause the output.",
])
def test_not_failing_to_cause_the_output_is_the_causal_claim(sentence):
    """Stop 47: 'hardly fails to cause' scored 3.0 (main 4.5), neither caveat nor flag. It asserts that k2 causes the
    output, as 'k2 causes the output' does: the opener's reading point goes to the overclaim penalty, 2.0 and a flag."""
    assert _reading(sentence) == (2.0, 0.0, True) == _reading("k2 causes the output.")


def test_a_claim_with_a_conceding_even_if_after_it_is_still_flagged():
    """Stop 47 (confirmed, no change): 'even if' after the claim concedes, it supposes nothing of the claim."""
    assert _reading("k2 causes the output even if nobody ablates it.") == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "k2 explains q1's prediction.",
    "k2 explains most of q1's prediction.",
    "k2 accounts for most of q1's output.",
])
def test_a_key_said_to_explain_the_output_is_an_overclaim(sentence):
    assert _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot show that k2 explains q1's output.",
    "Whether k2 explains the output needs an ablation.",
])
def test_a_denied_or_asked_explanation_is_not_flagged(sentence):
    assert not _reading(sentence)[2]


VALIDATION = Path(__file__).resolve().parent / "validation"


@pytest.mark.parametrize("claim", [
    "k2 probably causes the output.",
    "q1 reads mostly from k2 (0.67), so k2 probably explains most of q1's prediction.",
])
def test_a_likely_causal_claim_costs_the_hedged_penalty(claim):
    """The hunt's en_r44_hedged_overclaim: 'probably' between the key and its verb hid the claim (no flag at all)."""
    base = (VALIDATION / "en_excellent_prose.md").read_text(encoding="utf-8")
    plain, added = _grade(base), _grade(base + "\n" + claim + "\n")
    assert "overclaim" in kinds(added) and plain["score"] - added["score"] == 1.0, (plain["score"], added["score"])


@pytest.mark.parametrize("caveat", [
    "The heatmap cannot, even if k2 caused the output, prove it.",
    "I find it hard to believe that a heatmap alone could prove causation.",
])
def test_an_excellent_audit_keeps_its_score_with_these_caveats(caveat):
    base = (VALIDATION / "en_excellent_prose.md").read_text(encoding="utf-8")
    plain, added = _grade(base), _grade(base + "\n" + caveat + "\n")
    assert added["score"] == plain["score"] and "overclaim" not in kinds(added)
