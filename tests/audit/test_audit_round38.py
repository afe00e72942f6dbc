"""Round 38 on the audit (brief D): the audit scores what the text shows, in zh and en.

1. What removing a key would do, asserted ("if you took k2 away, the output would fall apart for sure", 如果去掉 k2，输出
   一定会崩), was no overclaim: the condition and its result sit in two clauses (split by a comma) and the patterns are
   read clause by clause. A heatmap of weights shows no intervention: overclaims.counterfactual reads the sentence.
2. A claim denied by the NEXT sentence, which names it ("k2 causes q1's output. That, the heatmap cannot show.",
   这一点热力图无法说明。) stayed an overclaim where the same denial in the same sentence made it a caveat. A denial of
   another topic, or one that names nothing ("The heatmap cannot show everything."), still clears nothing.
3. Importance and intent read off the weights in other words than round 37's ("k2 对 q1 的输出最重要", "the model cares
   about k2 most", "k2 is the most relevant key", 模型用 k2 来做判断, "q1 looks at k2 because it is important").
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


# --- 1. what removing a key would do ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "if you took k2 away, the output would fall apart for sure.\n",
    OPENER_EN + "Without k2, q1's output would collapse.\n",
    OPENER_EN + "Removing k2 would make q1's output fall apart.\n",
    OPENER_EN + "q1's output would change completely if you removed k2.\n",
    OPENER_ZH + "如果去掉 k2，输出一定会崩。\n",
    OPENER_ZH + "要是把 k2 拿掉，q1 的输出就会完全不一样。\n",
])
def test_what_removing_a_key_would_do_asserted_is_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "Only an ablation can tell whether removing k2 would change the output.\n",
    OPENER_EN + "I masked k2 and the output changed by 0.3.\n",
    OPENER_ZH + "要知道去掉 k2 会不会改变输出，需要做消融。\n",
    OPENER_ZH + "去掉 k2 以后输出不会变。\n",
])
def test_a_removal_asked_or_run_is_no_counterfactual_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


# --- 2. a claim denied by the next sentence -------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output. That, the heatmap cannot show.\n",
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show that.\n",
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show that: a weight is a reading share.\n",
    OPENER_ZH + "k2 导致了 q1 的输出。这一点热力图无法说明。\n",
    OPENER_ZH + "k2 导致了 q1 的输出。这张图证明不了这个结论。\n",
])
def test_a_claim_the_next_sentence_denies_by_name_is_a_caveat_as_in_one_sentence(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] == 1.5, (kinds(r), items(r)["limits"]["points"])


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show everything.\n",
    OPENER_EN + "k2 causes q1's output. Whether it holds for other seeds, the heatmap cannot show that.\n",
    OPENER_EN + "k2 causes q1's output.\n\nThe heatmap cannot show that.\n",
    OPENER_ZH + "k2 导致了 q1 的输出。这张图证明不了。\n",
    OPENER_ZH + "k2 导致了 q1 的输出。至于换 seed 还是不是这样，这张图证明不了。\n",
])
def test_a_next_sentence_naming_nothing_or_another_topic_leaves_the_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


# --- 3. importance and intent in other words ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_ZH + "k2 对 q1 的输出最重要。\n",
    OPENER_ZH + "k2 最关键。\n",
    OPENER_ZH + "模型更看重 k2。\n",
    OPENER_ZH + "模型用 k2 来做判断。\n",
    OPENER_ZH + "q1 最关注 k2，因为 k2 更重要。\n",
    OPENER_EN + "The model cares about k2 most.\n",
    OPENER_EN + "k2 is the most relevant key for q1.\n",
    OPENER_EN + "k2 is crucial for q1's output.\n",
    OPENER_EN + "The model uses k2 to decide.\n",
    OPENER_EN + "q1 looks at k2 because it is important.\n",
])
def test_importance_or_intent_read_off_the_weights_is_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "q1 attends most to k2 (0.67).\n",
    OPENER_EN + "q1 reads mostly from k2.\n",
    OPENER_ZH + "q1 最关注 k2（0.67）。\n",
    OPENER_ZH + "q1 最看重 k2（0.67）。\n",
    OPENER_ZH + "不能说 k2 对 q1 的输出最重要。\n",
])
def test_a_weight_read_as_a_weight_or_an_importance_denied_is_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


# --- 4. a list of denials naming nothing of the figure --------------------------------------------------------------

DENIALS_EN = ("The heatmap cannot show causation. It cannot show feature importance. It cannot show the true mechanism. "
              "One small example does not generalise to other inputs.\n")
DENIALS_ZH = "热力图不能说明某个 key 导致了输出。它也不能说明特征重要性。它不能说明真实机制。一个例子不能推广到所有输入。\n"


@pytest.mark.parametrize("text", [DENIALS_EN, DENIALS_ZH, "- " + DENIALS_EN.replace(". ", ".\n- ")])
def test_denials_naming_nothing_of_the_figure_earn_at_most_half_the_limits_with_the_reason_said(text):
    limits = items(_grade(text))["limits"]
    assert limits["points"] == 2.0, limits["points"]
    assert "name nothing of your figure" in limits["feedback"]["en"] and "没有提到你的图" in limits["feedback"]["zh"]


@pytest.mark.parametrize("text", [
    # the same denials with the figure's own key, or after a reading of the figure (a longer generic text falls under the
    # anchor rule instead: anchor.min_units)
    DENIALS_EN.replace("causation", "that k2 causes q1's output"),
    DENIALS_ZH.replace("某个 key", "k2"),
    OPENER_ZH + DENIALS_ZH,
])
def test_denials_that_name_the_figure_or_what_the_weights_are_keep_their_credit(text):
    assert items(_grade(text))["limits"]["points"] >= 3.0


# --- 5. the hunt: a caveat with its reason in an aside after another caveat -----------------------------------------

@pytest.mark.parametrize("note", [
    "Not feature importance, not causal (needs an ablation).",
    "Not causal (needs an ablation), not feature importance.",
])
def test_a_caveat_whose_reason_opens_an_aside_after_another_caveat_keeps_both(note):
    # validation/mixed_r38_terms.md: the warning "causal (needs an ablation" and the "not" before it read as a double
    # negation once another item came first (limits 1.5 against a hand 3)
    assert items(_grade(OPENER_EN + note + "\n"))["limits"]["points"] == 3.0
