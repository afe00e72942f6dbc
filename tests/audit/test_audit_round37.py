"""Round 37 on the audit (brief D): misreadings found in terse notes and twins, each fixed for its class in zh and en.

1. A caveat's reason in an aside ("not causal (no ablation)", 不是因果（没做消融）, "not causal - no ablation") was read as
   a double negation with the caveat's own "not": the two cancelled and the causal caveat earned nothing (0 of 1.5),
   where "not causal, no ablation" earned it. A bracket or a dash between two negations now keeps them apart.
2. A claim named only to be denied ("k2 is the most important key: the heatmap cannot show that", 这张图证明不了这一点,
   "one might say k2 causes q1's output, but the heatmap cannot show that") was flagged as an overclaim (-2) and earned
   no caveat. A denial that closes the sentence and points back at the claim (that, this, it, 这一点, or nothing) now
   denies it (cues.rejection), as a verdict denies what an attribution reports; a question answered by such a sentence
   is answered no. "k2 causes q1's output (the heatmap cannot show everything)" points at nothing: the overclaim stands,
   and the "cannot" inside the aside no longer negates the claim before it (zh earned the causal caveat for it).
3. The twins validation/{en,zh}_r36_heading_entropy.md scored 9 and 10: "高权重只说明 q1 从哪里读取" (and 读哪里) earned "a
   row is how one query spends its reading budget", "a high weight says where q1 reads" only with a "from" after it.
4. The hunt's misgrades (validation/*_r37_*): "纵轴是两个 query，横轴是三个 key" (a count before the label) was no axis
   reading; "很容易以为 k2 是最重要的 token，但这张图证明不了这一点：权重只是……" (the denial followed by its reason after a
   colon, the twin of "it is tempting to think") stayed an overclaim (zh_r37_prose 8.5 against a hand 11.5); "one random
   seed" was no "one seed" (en_r37_bullets 8 against 9).
5. Overclaims in plain words, with no importance or cause word ("the model relies on k2", "k2 is what makes q1's output
   what it is", "q0 is driven by k1", "the word the model cares about most", "in order of importance", 模型就是靠 k2,
   q1 的输出就是 k2 决定的, 被 k1 带着走, 模型最在乎的, 按重要性排序) were no overclaims (gaming/r37_plain_overclaims_*:
   4/15 without a flag, a careful grader 2); denied, they are caveats.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


def _points(text: str, item: str) -> float:
    return items(_grade(text))[item]["points"]


# --- 1. a reason in an aside ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("note", [
    "not causal (no ablation)",
    "not causal - no ablation",
    "not causal \u2014 no ablation",
    "不是因果（没做消融）",
    "不是因果——没做消融",
])
def test_a_caveat_with_its_reason_in_an_aside_keeps_the_causal_caveat(note):
    assert _points("Rows are queries, columns are keys.\n" + note + "\n", "limits") == 1.5


@pytest.mark.parametrize("text", [
    "k2 causes q1's output (no doubt about it).\n",
    "k2 是 q1 输出的原因（毫无疑问）。\n",
])
def test_an_aside_after_an_overclaim_denies_nothing(text):
    r = _grade("Rows are queries, columns are keys.\n" + text)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0


# --- 2. a claim named only to be denied -----------------------------------------------------------------------------

OPENER_EN = "Rows are queries, columns are keys.\n"
OPENER_ZH = "行是 query，列是 key。\n"

REJECTED = [
    (OPENER_EN + "k2 is the most important key: the heatmap cannot show that.\n", "importance"),
    (OPENER_EN + "One might say k2 causes q1's output, but the heatmap cannot show that.\n", "causal"),
    (OPENER_EN + "k2 causes q1's output, which my figure cannot prove.\n", "causal"),
    (OPENER_EN + "Does k2 cause q1's output? The heatmap cannot show that.\n", "causal"),
    (OPENER_ZH + "k2 是最重要的 key？热力图无法说明这一点。\n", "importance"),
    (OPENER_ZH + "k2 导致了 q1 的输出——这张图证明不了。\n", "causal"),
    (OPENER_ZH + "k2 导致了 q1 的输出，这张图证明不了这一点。\n", "causal"),
    (OPENER_ZH + "有人会说 k2 最重要，但这张图证明不了这一点。\n", "importance"),
]


@pytest.mark.parametrize("text, concept", REJECTED, ids=[f"{i}" for i in range(len(REJECTED))])
def test_a_claim_named_only_to_be_denied_is_a_limit_not_an_overclaim(text, concept):
    r = _grade(text)
    limits = items(r)["limits"]
    assert "overclaim" not in kinds(r) and limits["points"] == 1.5, (kinds(r), limits["points"])
    other = "not feature importance" if concept == "causal" else "not a causal effect"
    assert other in limits["feedback"]["en"]       # the caveat credited is the one the sentence denies


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output (the heatmap cannot show everything).\n",
    OPENER_EN + "k2 causes q1's output. (the heatmap cannot show everything)\n",
    OPENER_EN + "k2 proves to be the most important key, the heatmap cannot show everything.\n",
    OPENER_ZH + "k2 导致了 q1 的输出（热力图不能说明一切）。\n",
    OPENER_ZH + "k2 导致了 q1 的输出。（热力图不能说明一切）\n",
    OPENER_ZH + "k2 是最重要的 key，热力图无法说明所有问题。\n",
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show that k2 is unimportant.\n",
])
def test_a_denial_that_points_at_nothing_before_it_leaves_the_overclaim(text):
    r = _grade(text)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (kinds(r), items(r)["limits"]["points"])


def test_a_claim_with_a_negation_of_its_own_is_not_flipped_by_the_denial_after_it():
    """"k2 does not cause q1's output: the heatmap cannot show that" still denies causality (no flip to a claim)."""
    r = _grade(OPENER_EN + "k2 does not cause q1's output: the heatmap cannot show that.\n")
    assert "overclaim" not in kinds(r)


# --- 3. where a query reads, in both languages ----------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "Not feature importance: a high weight says where q1 reads, not what matters for the prediction.",
    "The weights show where each query reads, nothing more.",
    "不是 feature importance：高权重只说明 q1 从哪里读取，不说明什么对预测重要。",
])
def test_where_a_query_reads_states_its_reading_budget_in_zh_and_en(sentence):
    fr = items(_grade(OPENER_EN + sentence + "\n"))["figure_reading"]
    assert fr["points"] == 2 and "a row is how one query spends" not in fr["feedback"]["en"], fr


def test_where_it_reads_beside_an_overclaim_is_still_its_premise():
    assert _points("The heatmap shows where q1 reads, so k2 causes q1's output.\n", "figure_reading") == 0


# --- 4. the hunt's misgrades ----------------------------------------------------------------------------------------

def test_an_axis_named_with_a_count_before_its_label_is_read():
    text = ("我的热力图是 2×3 的：纵轴是两个 query（q0、q1），横轴是三个 key（k0、k1、k2）。每一行的权重加起来都是 1，比如 q1 "
            "这一行是 0.09、0.24、0.67。q0 最关注 k1（0.58），q1 最关注 k2（0.67）。\n")
    assert _points(text, "figure_reading") == 3


def test_an_axis_with_a_count_the_wrong_way_round_is_not_read():
    fr = items(_grade("我的热力图：纵轴是三个 key，横轴是两个 query。\n"))["figure_reading"]
    assert fr["points"] == 0, fr


@pytest.mark.parametrize("text", [
    OPENER_ZH + "看到 q1 在 k2 上的权重最大，很容易以为 k2 是最重要的 token，但这张图证明不了这一点：权重只是 q1 读取的比例。\n",
    OPENER_EN + "It is tempting to think k2 is the most important key, but the heatmap cannot show that: a weight is how much "
                "q1 reads.\n",
])
def test_a_denial_followed_by_its_reason_after_a_colon_still_denies_the_claim(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] >= 1.5, (kinds(r), items(r)["limits"])


def test_a_denial_in_the_middle_of_a_sentence_leaves_the_claim_after_it_an_overclaim():
    r = _grade(OPENER_EN + "k2 is the most important key, the heatmap cannot show that, but k2 clearly causes q1's output.\n")
    assert "overclaim" in kinds(r)


@pytest.mark.parametrize("text", [
    OPENER_EN + "- Limits: one random seed and two queries do not generalise to other inputs.\n",
    OPENER_EN + "## What it can't tell me\n\n- anything general: one random seed, two queries\n",
])
def test_one_random_seed_is_one_seed(text):
    assert items(_grade(text))["limits"]["points"] == 1


# --- 5. overclaims in plain words -----------------------------------------------------------------------------------

PLAIN = [
    "Looking at it, the model relies on k2 to answer q1.",
    "k2 is what makes q1's output what it is.",
    "q0 on the other hand is driven by k1.",
    "k1 is clearly the word the model cares about most.",
    "The picture ranks the keys in order of importance: k2, then k1, then k0.",
    "从图上看，模型就是靠 k2 来回答 q1 的。",
    "q1 的输出就是 k2 决定的。",
    "q0 那边则是被 k1 带着走的。",
    "k1 显然是模型最在乎的那个词。",
    "这张图告诉我们按什么重要性排序：先是 k2，然后 k1。",
]


@pytest.mark.parametrize("sentence", PLAIN)
def test_an_overclaim_in_plain_words_is_flagged(sentence):
    assert "overclaim" in kinds(_grade(OPENER_EN + sentence + "\n"))


@pytest.mark.parametrize("sentence", [
    "The heatmap does not show that the model relies on k2; that needs an ablation.",
    "I cannot say that q0 is driven by k1 without removing k1.",
    "不能说模型就是靠 k2 来回答 q1 的，这需要消融实验。",
    "这张图不能说明 q1 的输出就是 k2 决定的。",
    "q1's weights are computed from k2's score and the others.",
    "q1 的权重由 k2 的分数和其他分数一起决定。",
])
def test_the_same_words_denied_or_about_the_computation_are_no_overclaim(sentence):
    assert "overclaim" not in kinds(_grade(OPENER_EN + sentence + "\n"))
