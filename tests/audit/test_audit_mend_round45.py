"""Round 45 mend (review RA of builder A).

HIGH 1: only a strong doubt (很难想象 / 很难相信 / 不相信 / "hard to imagine" / "don't believe") of a denied importance or
cause asserts it; words of uncertainty (很难说, "hard to say", 没有证据表明, "no evidence that", 不觉得) and a denial of
what a low weight is said to imply ("a low weight makes k0 unimportant") leave it open - the handout's own caveat.
HIGH 2: a reported view rebutted without a conjunction must be rebutted by a denial of what the figure can show or prove;
an endorsement ("the heatmap leaves no doubt", "the weights do not lie", 没有反驳, 没有反例) or siding with the report
after the rebuttal ("and I agree with them", 但他们是对的) keeps the overclaim.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


# ------------------------------------------------------------------------------------------------ HIGH 1
@pytest.mark.parametrize("sentence", [
    "k0 只有 0.09，但很难说 k0 对输出不重要。",
    "很难说 k0 不重要。",
    "没有证据表明 k0 不重要。",
    "我不觉得 k0 不重要。",
    "很难说 k2 不是 q1 输出的原因。",
    "k0 gets only 0.09, but it is hard to say that k0 does not matter for q1's output.",
    "It is hard to say that k2 is not the cause of q1's output.",
    "I don't believe a low weight makes k0 unimportant.",
    "I disagree that k0 is unimportant just because its weight is 0.09.",
    "我不相信权重低就说明 k0 不重要。",
])
def test_uncertainty_or_a_denied_low_weight_inference_claims_no_importance(sentence):
    """h_A: each lost 2 points to an overclaim flag (the pair of negations was read as 'k0 is very important')."""
    assert _reading(sentence)[2] is False


def test_no_evidence_that_unimportant_keeps_its_importance_caveat():
    r = _reading("There is no evidence that k0 is unimportant: the heatmap cannot tell importance.")
    assert r[1] > 0 and r[2] is False


@pytest.mark.parametrize("sentence", [
    "很难想象 k2 不重要。",
    "很难相信 k2 不重要。",
    "我不相信 k2 不重要。",
    "It is hard to imagine k2 being unimportant.",
    "I don't believe k2 is unimportant.",
    "很难想象 k2 不是 q1 输出的原因。",
    "我不相信 k2 不是 q1 输出的原因。",
])
def test_a_strong_doubt_of_a_denied_importance_or_cause_still_claims_it(sentence):
    assert _reading(sentence)[2] is True


# ------------------------------------------------------------------------------------------------ HIGH 2
@pytest.mark.parametrize("sentence", [
    "Some say k2 causes q1's output; the heatmap leaves no doubt about it.",
    "They say k2 causes the output; the weights do not lie.",
    "Some say k2 causes q1's output; the heatmap does not contradict that.",
    "有人说 k2 最重要，权重不会骗人。",
    "有人认为 k2 导致了 q1 的输出；热力图也没有反驳这一点。",
    "有人说 k2 是最重要的 key，图上没有任何反例。",
    "Some say k2 causes q1's output; the heatmap is silent on that, and I agree with them.",
    "Some say k2 causes q1's output; the heatmap is silent on that, but they are right.",
    "有人说 k2 导致了 q1 的输出，热力图对此无从判断，但他们是对的。",
])
def test_an_endorsed_report_is_the_writers_overclaim(sentence):
    """h_A: 7.5 and no flag (any negation word after an evidence noun was read as a rebuttal)."""
    assert _reading(sentence)[2] is True


@pytest.mark.parametrize("sentence", [
    "Some say k2 causes q1's output; the heatmap is silent on that.",
    "Some say k2 causes q1's output; the heatmap cannot prove that.",
    "Some say k2 causes q1's output; the heatmap does not show that.",
    "有人说 k2 导致了输出，但热图对此无从判断。",
    "有人说 k2 导致了 q1 的输出；热力图证明不了这一点。",
    "有人觉得 k2 是输出的原因，但热力图不能说明因果。",
    "Some say k2 causes q1's output; the heatmap is silent on that, and I do not agree with them.",
])
def test_a_report_rebutted_by_what_the_figure_cannot_show_is_no_claim(sentence):
    assert _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ MED 5(e)
@pytest.mark.parametrize("sentence", [
    "The heatmap proves k2 is important.",
    "The heatmap shows that k2 is important.",
    "Since q1 puts 0.67 on k2, k2 is important.",
    "q1 puts 0.67 on k2, so k2 matters.",
    "因为 q1 在 k2 上放了 0.67，所以 k2 很重要。",
])
def test_importance_shown_by_or_concluded_from_the_weights_is_an_overclaim(sentence):
    """h_A: the en sentences earned 7.5 and no flag while their zh twin 热力图说明 k2 很重要 was flagged."""
    assert _reading(sentence)[2] is True


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove k2 is important.",
    "The heatmap does not show that k2 is important.",
    "q1 puts 0.67 on k2, but that does not mean k2 is important.",
    "k2 的权重是 0.67，但这不说明 k2 很重要。",
    "Since q1 puts 0.67 on k2, k2 is the key it reads most.",
    "The figure shows k2 is the key q1 attends to most.",
])
def test_denied_importance_and_plain_readings_stay_unflagged(sentence):
    assert _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ MED 4
_CAVEAT_EN = "The heatmap cannot prove causation"
_CAVEAT_ZH = "热力图不能证明因果"


# a reading and the parity numbers, so that an overclaim's penalty does not floor both scores compared
_READ_EN = "Rows are queries and columns are keys, and every row sums to 1. q1 reads mostly from k2 (0.67).\n\n"
_READ_ZH = "行是 query，列是 key，每一行的和为 1。q1 主要读 k2（0.67）。\n\n"
_PARITY = "\n\nmax_abs_error = 2.6e-7, row_sum_error = 1.1e-7 against scaled_dot_product_attention (seed 0).\n"


def _caveat_gain(sentence: str) -> float:
    """What the caveat the sentence opens with adds to the score: 0 when it is taken back."""
    zh = sentence.startswith(_CAVEAT_ZH)
    rest = sentence[len(_CAVEAT_ZH if zh else _CAVEAT_EN) + 1:].lstrip()
    lead = _READ_ZH if zh else _READ_EN
    return _grade(lead + sentence + _PARITY)["score"] - _grade(lead + rest + _PARITY)["score"]


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causation. But many students write that k2 causes the output anyway.",
    '热力图不能证明因果。但是很多同学会写"k2 导致了输出"。',
    'The heatmap cannot prove causation, but the common reading "k2 causes the output" is tempting.',
    "热力图不能证明因果，但我去掉 k2 之后输出从 0.52 变成了 0.10，所以 k2 确实导致了输出。",
])
def test_a_misreading_mentioned_or_a_run_after_a_caveat_takes_nothing_back(sentence):
    """h_A: the caveat was read as taken back (5.5 in the review's probe, main 6.25 / 7.0)."""
    assert _caveat_gain(sentence) > 0


def test_the_zh_run_backed_claim_scores_as_its_en_twin():
    zh = _reading("热力图不能证明因果，但我去掉 k2 之后输出从 0.52 变成了 0.10，所以 k2 确实导致了输出。")
    en = _reading("The heatmap cannot prove causation, but when I removed k2 the output changed from 0.52 to 0.10, "
                  "so k2 does cause the output.")
    assert zh == en


# ------------------------------------------------------------------------------------------------ MED 3
@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causation. Nevertheless, k2 obviously causes q1's output.",
    "The heatmap cannot prove causation. Even so, k2 clearly causes q1's output.",
    "The heatmap cannot prove causation. That said, k2 clearly causes q1's output.",
    "The heatmap cannot prove causation. Of course, k2 causes q1's output anyway.",
    "The heatmap cannot prove causation. k2 clearly causes q1's output, though.",
    "The heatmap cannot prove causation.\nq1 reads mostly from k2 (0.67).\nBut of course k2 causes q1's output.",
    "热力图不能证明因果。尽管如此，k2 显然导致了 q1 的输出。",
    "热力图不能证明因果。话虽如此，k2 显然导致了 q1 的输出。",
    "热力图不能证明因果，可 k2 显然导致了 q1 的输出。",
    "热力图不能证明因果，只是 k2 显然导致了 q1 的输出。",
])
def test_a_caveat_taken_back_by_any_contrast_earns_nothing(sentence):
    """h_A: the causal caveat kept its points (only but / yet / however / though / still / 但 / 然而 / 可是 / 不过 were
    read, and only in the sentence right before)."""
    r = _grade((OPENER_ZH if sentence.startswith(_CAVEAT_ZH) else OPENER_EN) + sentence + "\n")
    assert "overclaim" in kinds(r)
    assert any(c.get("reason") == "taken_back" or "taken back" in str(c) or "收回" in str(c)
               for c in [items(r)["limits"]]), items(r)["limits"]


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causation. Nevertheless, it does show where q1 reads.",
    "热力图不能证明因果，可它能显示 q1 读了哪里。",
    "热力图不能证明因果，只是说明 q1 主要读 k2。",
])
def test_an_honest_follow_up_after_a_caveat_keeps_it(sentence):
    assert _reading(sentence)[1] > 0


# ------------------------------------------------------------------------------------------------ MED 5(a)
@pytest.mark.parametrize("sentence", [
    "If k2 causes q1's output, the heatmap cannot prove it.",
    "If k2 is important, the heatmap cannot prove it.",
    "If k2 causes q1's output, the heatmap cannot show that.",
])
def test_a_denial_of_a_supposed_claim_after_a_comma_is_the_caveat(sentence):
    """h_A: 0 (the "if" clause was read as a topic the denial is about) while "Even if ..., the heatmap cannot show
    that" and 如果 k2 导致了输出，热力图也不能证明 earn it."""
    assert _reading(sentence)[1] > 0 and _reading(sentence)[2] is False


def test_a_denial_after_an_if_clause_that_names_no_key_does_not_clear_the_claim_before():
    r = _reading("The heatmap proves that k2 causes q1's output; if it holds for other seeds, the heatmap cannot show.")
    assert r[2] is True


# ------------------------------------------------------------------------------------------------ MED 6
@pytest.mark.parametrize("sentence", [
    "k2 is beyond doubt the cause of q1's output.",
    "k2 必然是 q1 输出的原因。",
    "k2 必定是 q1 输出的原因。",
    "k2 绝对是 q1 输出的原因。",
    "k2 百分之百是 q1 输出的原因。",
    "k2 certainly is the cause of q1's output.",
    "k2 is without doubt the cause of q1's output.",
    "k2 is for sure the cause of q1's output.",
])
def test_words_of_certainty_assert_the_cause(sentence):
    """h_A: 'beyond doubt' earned the causal caveat on its 'doubt'; the others earned nothing and lost nothing."""
    score, limits, flagged = _reading(sentence)
    assert flagged and limits == 0


@pytest.mark.parametrize("sentence", ["k2 十有八九是 q1 输出的原因。", "k2 大概率是 q1 输出的原因。"])
def test_a_probability_hedge_is_a_hedged_overclaim(sentence):
    assert _reading(sentence) == _reading("k2 可能是 q1 输出的原因。")


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove beyond doubt that k2 causes q1's output.",
    "热力图不能绝对证明 k2 导致了输出。",
])
def test_a_denied_certainty_stays_a_caveat(sentence):
    assert _reading(sentence)[1] > 0 and _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ MED 7
@pytest.mark.parametrize("sentence", [
    "Some people think k2 causes q1's output; I would say the heatmap is silent on that.",
    "有同学认为 k2 是最重要的 key；我觉得这张图说明不了这一点。",
    "有人认为 k2 导致了输出，其实热力图不能证明这一点。",
    'A classmate wrote "k2 is the most important key", but the heatmap cannot show importance.',
])
def test_a_report_rebutted_after_i_would_say_or_in_fact_or_written_is_no_claim(sentence):
    """h_A: each flagged as the writer's overclaim (RA's honest audits h07, h23, h24 lost 2-3.5 points)."""
    assert _reading(sentence)[2] is False
