"""Round 39 (brief B): audit checker misses found last round, each fixed as a class.

1. The figure's setting named inside a denial ("My 2x3 heatmap (seed 0) cannot show ...", "This example cannot prove
   ...") grounded a list of denials that names nothing else of the figure: the cap at half the limits was escaped.
   In a denial only cues.grounding_read (what is read from the figure) grounds the list (round 39 mend: the setting
   blanked by a list of its forms, cues.grounding_setup, missed "(fixed seed)", "(torch 2.1)", "6-cell" ...).
2. A counterfactual whose result is a breakdown said with a negation word ("Without k2 there would be no sensible
   output", 如果没有 k2，输出就不会有意义) was read as negated (overclaims.counterfactual_collapse).
3. A reading and a claim drawn from it in one sentence, then a denial of the claim: the reading lost its credit. The
   denial now denies from the claim's clause on (text._claim_clause); "the causal part" / 因果这一部分 point back too.
4. Mixed zh/en importance claims ("k2 是最 important 的 key", "q1 最 attend to k2 所以 k2 最 important") were missed:
   a mixed sentence is read again with its English words in Chinese (grade._variant).
5. An aside inside the claim ("k2 is, in my view, the most important key") cut it into three clauses: it is taken out
   (a hedge aside keeps the claim hedged).
6. 没有 k2 conditions in other words (没有 k2 的话, 假如没有 k2, 要是没有 k2 这个 key, 在没有 k2 的情况下, 缺少 k2) were
   missed.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()
OPENER_EN = "Rows are queries, columns are keys.\n"
OPENER_ZH = "行是 query，列是 key。\n"


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


def _limits(text: str) -> float:
    return items(_grade(text))["limits"]["points"]


# --- 1. the figure's setting inside a denial grounds nothing ----------------------------------------------------------

DENIALS_EN = ("{first} cannot show causation. It cannot show feature importance. It cannot show the true mechanism. "
              "{last}\n")
DENIALS_ZH = "{first}不能证明因果。它也不能说明特征重要性。它不能说明真实机制。{last}\n"


@pytest.mark.parametrize("text", [
    DENIALS_EN.format(first="My 2x3 heatmap (seed 0)", last="One small example does not generalise to other inputs."),
    DENIALS_EN.format(first="The heatmap", last="This example cannot prove anything about other inputs."),
    DENIALS_EN.format(first="The heatmap", last="This one example (seed 0) does not generalise to other inputs."),
    DENIALS_EN.format(first="My 2 by 3 figure, with 2 rows and 3 columns,", last="My run does not generalise."),
    DENIALS_ZH.format(first="我的 2x3 热力图（种子 0）", last="一个小例子不能推广到其他输入。"),
    DENIALS_ZH.format(first="热力图", last="这个例子不能推广到其他输入。"),
])
def test_the_figures_setting_inside_a_denial_does_not_lift_the_denial_lists_cap(text):
    assert _limits(text) == 2, _limits(text)


@pytest.mark.parametrize("text", [
    DENIALS_EN.format(first="The weight 0.67 of k2", last="One small example does not generalise to other inputs."),
    "My heatmap is 2x3, from seed 0.\n" + DENIALS_EN.format(first="My heatmap",
                                                            last="One small example does not generalise to other inputs."),
    DENIALS_ZH.format(first="k2 的 0.67 这个权重", last="一个小例子不能推广到其他输入。"),
])
def test_a_key_or_value_in_a_denial_or_the_setting_stated_on_its_own_still_grounds_the_list(text):
    assert _limits(text) > 2, _limits(text)


# --- 2 and 6. counterfactuals with a breakdown said with a negation word, 没有 conditions ------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "Without k2 there would be no sensible output.\n",
    OPENER_EN + "Without k2, there would be no meaningful output for q1.\n",
    OPENER_EN + "If you removed k2, q1's output would make no sense.\n",
    OPENER_EN + "If k2 were masked, the output would be meaningless.\n",
    OPENER_ZH + "如果没有 k2，输出就不会有意义。\n",
    OPENER_ZH + "没有 k2，就不会有合理的输出。\n",
    OPENER_ZH + "没有 k2 的话，输出会崩。\n",
    OPENER_ZH + "假如没有 k2，输出会崩。\n",
    OPENER_ZH + "如果没有了 k2，输出会崩。\n",
    OPENER_ZH + "要是没有 k2 这个 key，输出会崩。\n",
    OPENER_ZH + "在没有 k2 的情况下，输出会崩。\n",
    OPENER_ZH + "如果没有 k2 的话，模型的输出会崩。\n",
    OPENER_ZH + "缺少 k2，输出会崩。\n",
    OPENER_EN + "Removing k2 would leave q1 with no useful output.\n",
    OPENER_ZH + "k2 去掉的话，输出就没有意义了。\n",
])
def test_a_counterfactual_breakdown_or_a_missing_key_condition_is_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "Without k2 the output would not change.\n",
    OPENER_EN + "Without k2 the output would be no different.\n",
    OPENER_EN + "I cannot say that without k2 there would be no sensible output.\n",
    OPENER_EN + "Whether without k2 there would be no sensible output, the heatmap cannot tell.\n",
    OPENER_EN + "Without k2 there would be no sensible output; I have not tested that.\n",
    OPENER_ZH + "如果没有 k2，输出不会变。\n",
    OPENER_ZH + "不能说如果没有 k2，输出就不会有意义。\n",
    OPENER_ZH + "如果没有 k2，输出会不会变，需要做消融才能知道。\n",
])
def test_the_same_counterfactuals_null_denied_asked_or_untested_are_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


# --- 3. a denial of the claim drawn from a reading keeps the reading -------------------------------------------------

@pytest.mark.parametrize(("text", "plain"), [
    (OPENER_EN + "q1 reads mostly from k2 (0.67), so k2 causes q1's output. The heatmap cannot show that.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_EN + "q1 reads mostly from k2 (0.67), so k2 causes q1's output. But the heatmap cannot prove the causal part.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_EN + "q1 reads mostly from k2 (0.67), so k2 is the most important key: the heatmap cannot show that.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
    (OPENER_ZH + "q1 主要从 k2 读取（0.67），所以 k2 导致了 q1 的输出。这一点热力图无法说明。\n",
     OPENER_ZH + "q1 主要从 k2 读取（0.67）。\n"),
    (OPENER_ZH + "q1 主要从 k2 读取（0.67），所以 k2 导致了 q1 的输出。但因果这一部分热力图说明不了。\n",
     OPENER_ZH + "q1 主要从 k2 读取（0.67）。\n"),
])
def test_a_denial_of_the_claim_drawn_from_a_reading_keeps_the_readings_credit_and_clears_the_claim(text, plain):
    r = _grade(text)
    got, want = items(r)["figure_reading"]["points"], items(_grade(plain))["figure_reading"]["points"]
    assert got == want > 1 and "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (got, want, kinds(r))


def test_a_denial_after_readings_alone_still_denies_them():
    r = _grade("Rows are queries, columns are keys, but the heatmap cannot show that.\n")
    assert items(r)["figure_reading"]["points"] == 0


# --- 4. mixed zh/en importance claims --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_ZH + "k2 是最 important 的 key。\n",
    OPENER_ZH + "q1 最 attend to k2 所以 k2 最 important。\n",
    OPENER_ZH + "k2 对 q1 的 output 最重要。\n",
    OPENER_ZH + "k2 决定了 q1 的 output。\n",
    OPENER_ZH + "k2 causes 了 q1 的输出。\n",
    OPENER_ZH + "k2 is 最重要的 key。\n",
    OPENER_ZH + "k2 是最 crucial 的 key。\n",
    OPENER_ZH + "k2 对模型很 important。\n",
    OPENER_ZH + "k2 对 prediction 的 contribution 最大。\n",
])
def test_a_mixed_zh_en_importance_or_cause_claim_is_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_ZH + "k2 不是最 important 的 key。\n",
    OPENER_ZH + "不能说 k2 最 important。\n",
    OPENER_ZH + "heatmap 不能证明 k2 是最 important 的 key。\n",
    OPENER_ZH + "k2 是否最 important，需要做 ablation 才能知道。\n",
    OPENER_ZH + "q1 最 attend to k2，但这不代表 k2 最 important。\n",
    OPENER_ZH + "这张图只能说明 q1 最 attend to k2。\n",
])
def test_the_mixed_claims_denied_or_asked_or_a_mixed_reading_are_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


# --- 5. an aside inside the claim ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 is, in my view, the most important key.\n",
    OPENER_EN + "k2 is, I think, the most important key.\n",
    OPENER_EN + "k2 is (in my opinion) the most important key.\n",
    OPENER_EN + "k2 is \u2014 in my view \u2014 the most important key.\n",
    OPENER_EN + "k2, clearly, causes q1's output.\n",
    # (round 39 mend, review LOW 6: "k2，在我看来，是最重要的 key" and "k2 我认为是最重要的 key" were flagged on main already)
    OPENER_ZH + "k2，在我看来，是最 important 的 key。\n",
    OPENER_ZH + "k2，说实话，决定了 q1 的输出。\n",
    OPENER_ZH + "k2 我觉得最重要。\n",
])
def test_a_claim_with_an_aside_inside_it_is_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 is, probably, the most important key.\n",
    OPENER_ZH + "k2，可能，是最重要的 key。\n",
])
def test_a_hedge_aside_keeps_the_claim_hedged(text):
    r = _grade(text)
    assert [f["message"]["en"].startswith("This sentence still reads") for f in r["flags"]] == [True], r["flags"]


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 is, in my view, not the most important key.\n",
    OPENER_EN + "Whether k2 is, in my view, the most important key, the heatmap cannot tell.\n",
    OPENER_ZH + "k2 在我看来不是最重要的 key。\n",
    OPENER_EN + "q1, in my view, reads mostly from k2 (0.67).\n",
])
def test_an_aside_in_a_denied_asked_or_true_sentence_claims_nothing(text):
    assert "overclaim" not in kinds(_grade(text))
