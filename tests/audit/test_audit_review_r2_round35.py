"""Review R2 of round 35's cue rules (reproductions: /tmp/r2/more*.py, twins*.py).

1. An adverb of certainty between a subject and its causal verb ("k2 clearly causes q1's output", 显然导致) hid
   the overclaim, so "..., but here k2 clearly causes q1's output" earned the open-question caveat (4.0 -> 5.5).
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()
OPENER_EN = "My heatmap plots weights[0, 0]: rows are queries q0, q1, columns are keys k0-k2; each row sums to 1.\n"
OPENER_ZH = "我的热力图画的是 weights[0, 0]：行是 query（q0、q1），列是 key（k0-k2），每行和为 1。\n"


def grade(sentence: str) -> dict:
    opener = OPENER_ZH if any(ord(c) > 0x3000 for c in sentence) else OPENER_EN
    return grade_audit(opener + sentence + "\n", FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


@pytest.mark.parametrize("sentence", [
    "k2 clearly causes q1's output.", "k2 obviously causes q1's output.", "Key 2 certainly determines the prediction.",
    "k2 surely drives the output.", "k2 definitely causes q1's output.", "k2 evidently causes q1's output.",
    "k2 is surely the main cause of q1's output.", "k2 is definitely the most important key.",
    "This shows the model clearly relies on k2.",
    "k2 显然导致了 q1 的输出。", "k2 无疑是 q1 输出的原因。", "k2 肯定是 q1 输出的原因。", "k2 一定决定了 q1 的输出。",
    "k2 明显是最重要的特征。",
])
def test_adverb_of_certainty_before_the_verb_keeps_the_overclaim(sentence):
    assert "overclaim" in kinds(grade(sentence))


def test_open_question_then_clearly_causes_earns_no_more_than_without_the_adverb():
    bare = grade("Whether attention is causal is an open question in general, but here k2 causes q1's output.")
    adverb = grade("Whether attention is causal is an open question in general, but here k2 clearly causes q1's output.")
    assert "overclaim" in kinds(adverb)
    assert adverb["score"] <= bare["score"]
    assert items(adverb)["limits"]["points"] == 0


# 2. A query's peak read in another's figure or model, or foretold by a plan, was credited as a reading of the
#    student's figure (figure_reading 2 -> 3), and a false one of BERT's maps was flagged as a misreading of theirs.

@pytest.mark.parametrize("sentence", [
    "In BERT's attention maps, q1 attends most to k2.", "In the paper's figure, q1 attends most to k2.",
    "In BERT's attention maps, q1 reads mostly from k2.", "In Figure 3 of the paper, q1 attends most to k2.",
    "In a classmate's heatmap, q1 attends most to k2.",
    "BERT 的注意力图中，q1 最关注 k2。", "论文里的图中，q1 最关注 k2。", "在论文的图里，q1 最关注 k2。",
])
def test_a_peak_read_in_another_figure_earns_no_reading(sentence):
    r = grade(sentence)
    assert items(r)["figure_reading"]["points"] == 2.0        # the opener's rows/columns and row sums only
    assert "figure" not in kinds(r)


def test_a_peak_read_in_another_figure_says_why_in_both_languages():
    fb = items(grade("In BERT's attention maps, q1 attends most to k2."))["figure_reading"]["feedback"]
    assert "another figure or model" in fb["en"] and "别的图或别的模型" in fb["zh"]


def test_a_false_peak_of_another_model_is_no_misreading_of_the_students_figure():
    assert "figure" not in kinds(grade("In BERT's attention maps, q1 attends most to k0."))


@pytest.mark.parametrize("sentence", [
    "Unlike BERT's attention maps, my heatmap shows that q1 attends most to k2.",
    "In the lab's example, q1 attends most to k2.", "In the model's weights, q1 attends most to k2.",
    "I reran it, and then q1 attends most to k2.", "q1 attends most to k2.",
])
def test_a_peak_read_in_the_students_own_figure_still_counts(sentence):
    assert items(grade(sentence))["figure_reading"]["points"] == 3.0


@pytest.mark.parametrize("sentence", [
    "Next week I am going to rerun it, and then q1 attends most to k2.",
    "I will rerun it tomorrow; then q1 attends most to k2.",
    "I will rerun it after that, and q1 attends most to k2.",
    "下周我打算重跑一次，然后 q1 最关注 k2。", "我会重跑一次，之后 q1 最关注 k2。",
])
def test_a_peak_read_as_the_next_step_of_a_plan_earns_no_reading(sentence):
    assert items(grade(sentence))["figure_reading"]["points"] == 2.0


# 3. Twins: zh open questions earned nothing where en "is an open question" earned the caveat; a trailing "without an
#    ablation" cancelled the en caveat as a double negation; a peak given to one key of a list was not read.

@pytest.mark.parametrize("sentence", [
    "Whether k2 causes q1's output is an open question.", "k2 是否导致 q1 的输出还是一个开放问题。",
    "k2 是否导致 q1 的输出仍是悬而未决的问题。", "k2 是否是最重要的 key 仍是一个悬而未决的问题。",
    "Whether k2 is the most important key remains an open question.",
    "Whether k2 causes q1's output remains an open question without an ablation.",
    "没有消融的话，k2 是否是最重要的 key 仍是一个悬而未决的问题。",
])
def test_an_open_question_earns_the_caveat_in_both_languages(sentence):
    assert items(grade(sentence))["limits"]["points"] >= 1.5


def test_a_trailing_without_does_not_cancel_the_open_question():
    assert items(grade("Whether k2 is the most important key remains an open question without an ablation."))[
        "limits"]["points"] >= 1.5


@pytest.mark.parametrize("sentence", [
    "q1 gives k0 the least weight (0.09) and k2 the most (0.67).", "q1 gives k0 the least weight and k2 the most.",
    "q1 给 k0 的权重最小（0.09），给 k2 的权重最大（0.67）。", "q1 给 k0 的权重最小，给 k2 的权重最大。",
])
def test_a_peak_given_to_one_key_of_a_list_is_a_reading(sentence):
    assert items(grade(sentence))["figure_reading"]["points"] == 3.0


@pytest.mark.parametrize("sentence", [
    "q1 gives k2 the least weight and k0 the most.", "q1 给 k2 的权重最小，给 k0 的权重最大。",
])
def test_a_false_peak_given_in_a_list_is_a_misreading(sentence):
    r = grade(sentence)
    assert "figure" in kinds(r) and items(r)["figure_reading"]["points"] < 3.0


def test_the_most_important_key_is_no_peak_of_a_list():
    # validation/en_overclaim.md (hand 4): "k2 is the most important key" names no weight, so it reads no peak
    r = grade("q1 puts 0.67 on k2, which proves that k2 is the most important key and drives the output.")
    assert items(r)["figure_reading"]["points"] == 0.0
