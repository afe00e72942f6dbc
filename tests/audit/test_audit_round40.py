"""Round 40 (brief B): audit checker misses left open by round 39, each fixed as a class (en and zh).

1. A denial wrapping a counterfactual ("It is not true that without k2 the output would collapse", "It is false that
   ...", "说没有 k2 输出就会崩是不对的") was flagged: the rebuttal cancelled its own negation against the claim's
   "without k2"; a rebuttal with no cue of its own ("It is false that k2 ...", "It is untrue that ...") denied nothing.
   The condition and breakdown of a counterfactual are the claim's words, and a rebuttal alone denies what it wraps.
   Its converse: a lead-in before "without k2" ("It is true that without k2 the output would collapse") hid the claim.
2. A reading joined to a claim by a plain "and" / 并且 (no comma), then a denial in the next sentence: the reading lost
   its credit (only the claim's clause is denied now).
3. A bracket holding only a denial after the claim, with or without an aside before it ("k2 drives the output (as the
   map seems to show) (not really)", k2 决定了输出（其实不然）) was no denial.
4. Denials said as what the figure is not ("That is not something the map can prove.", 这并不是热力图能证明的) and
   mixed zh/en counterfactuals (without k2 output 会崩) were missed.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(text: str) -> float:
    return items(_grade(text))["figure_reading"]["points"]


# --- 1. a denial outside the claim's clause ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "It is not true that without k2 the output would collapse.\n",
    OPENER_EN + "It is false that without k2 the output would collapse.\n",
    OPENER_EN + "It would be wrong to say that without k2 the output would collapse.\n",
    OPENER_EN + "It is a myth that without k2 the output would collapse.\n",
    OPENER_EN + "It is not true that without k2 there would be no sensible output.\n",
    OPENER_EN + "Nobody can claim that without k2 the output would collapse.\n",
    OPENER_EN + "I doubt that without k2 the output would collapse.\n",
    OPENER_ZH + "我怀疑没有 k2，输出就会崩。\n",
    OPENER_EN + "It is false that k2 is the most important key.\n",
    OPENER_EN + "It is untrue that k2 is the most important key.\n",
    OPENER_EN + "It is incorrect to say that removing k2 would break the output.\n",
    OPENER_ZH + "说 k2 是最重要的 key 是不对的。\n",
    OPENER_ZH + "认为去掉 k2 输出就会崩是错误的。\n",
    OPENER_ZH + "并不是说没有 k2，输出就会崩。\n",
])
def test_a_denial_wrapping_a_claim_or_counterfactual_is_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "It is true that without k2 the output would collapse.\n",
    OPENER_EN + "It is clear that without k2 the output would collapse.\n",
    OPENER_EN + "It is not true that the heatmap cannot show that k2 causes the output.\n",
    OPENER_ZH + "说热力图不能证明 k2 导致了输出是不对的。\n",
    OPENER_EN + "Nobody can deny that k2 causes q1's output.\n",
])
def test_a_lead_in_or_a_rebutted_caveat_still_leaves_the_claim(text):
    assert "overclaim" in kinds(_grade(text))


# --- 2. a reading joined by "and", the claim denied next ---------------------------------------------------------------

@pytest.mark.parametrize(("text", "plain"), [
    (OPENER_EN + "q1 reads mostly from k2 (0.67) and k2 causes q1's output. The heatmap cannot show that.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_EN + "q1 reads mostly from k2 (0.67) and thus k2 is the most important key. The heatmap cannot show that.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_EN + "q1 reads mostly from k2 (0.67) and k2 causes q1's output (not really).\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_EN + "q1 reads mostly from k2 (0.67), and so k2 drives the output. That is not something the map can prove.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_ZH + "q1 主要从 k2 读取（0.67）并且 k2 导致了 q1 的输出。这一点热力图无法说明。\n",
     OPENER_ZH + "q1 主要从 k2 读取（0.67）。\n"),
    (OPENER_ZH + "q1 主要从 k2 读取（0.67），所以 k2 导致了 q1 的输出。这并不是热力图能证明的。\n",
     OPENER_ZH + "q1 主要从 k2 读取（0.67）。\n"),
    (OPENER_ZH + "q1 主要从 k2 读取（0.67），所以 k2 决定了输出（其实不然）。\n",
     OPENER_ZH + "q1 主要从 k2 读取（0.67）。\n"),
])
def test_a_denied_claim_joined_to_a_reading_keeps_the_readings_credit(text, plain):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and _reading(text) == _reading(plain) > 1, (kinds(r), _reading(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "q1 reads mostly from k2 (0.67) and k2 causes q1's output.\n",
    OPENER_ZH + "q1 主要从 k2 读取（0.67）并且 k2 导致了 q1 的输出。\n",
])
def test_the_same_claim_undenied_is_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing about causality.\n",
    OPENER_EN + "The weight of q1 peaks at k2 (0.67), which does not mean k2 causes the output.\n",
    OPENER_ZH + "q1 的权重在 k2 处最高（0.67），这并不说明任何因果关系。\n",
])
def test_a_peak_reading_then_which_means_nothing_keeps_the_reading_and_earns_the_limit(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and _reading(text) == 2 and items(r)["limits"]["points"] > 0


# --- 3. a bracketed denial -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 drives the output (as the map seems to show) (not really).\n",
    OPENER_EN + "k2 is the most important key (as the map seems to show) (not really).\n",
    OPENER_EN + "k2 drives the output (as the heatmap suggests) (no, it cannot show that).\n",
    OPENER_EN + "k2 causes q1's output (no, the heatmap cannot show that).\n",
    OPENER_ZH + "k2 决定了输出（图上看起来如此）（其实不然）。\n",
    OPENER_ZH + "k2 是最重要的 key（这张图证明不了）。\n",
])
def test_a_bracket_holding_only_a_denial_takes_the_claim_back(text):
    assert "overclaim" not in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output (as the map seems to show).\n",
    OPENER_EN + "k2 causes q1's output (not only for q1).\n",
    OPENER_EN + "k2 is the most important key (not k1).\n",
    OPENER_ZH + "k2 决定了输出（不是 k1）。\n",
])
def test_a_bracket_that_denies_something_else_leaves_the_claim(text):
    assert "overclaim" in kinds(_grade(text))


# --- 4. mixed zh/en counterfactuals ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "claimed"), [
    (OPENER_ZH + "q1 最 attend to k2，所以 without k2 output 会崩。\n", True),
    (OPENER_ZH + "如果 remove k2，output 就会崩。\n", True),
    (OPENER_ZH + "不能说 without k2 output 会崩。\n", False),
    (OPENER_ZH + "如果 remove k2，output 会不会变，需要做 ablation 才知道。\n", False),
])
def test_a_mixed_counterfactual_is_read_as_its_chinese_twin(text, claimed):
    assert ("overclaim" in kinds(_grade(text))) is claimed
