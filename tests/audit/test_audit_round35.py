"""Round 35 on the audit: the misreadings round 34b left open, each fixed for its class in zh and en, and a hunt.

1. A query's peak was where it spends its reading budget only in the verbs the phrase list named ("q1 reads mostly
   from k2", "q1 主要看 k2"): "q1 最关注 k2", 第2个查询最关注第3个键, "query 1 attends most to key 2", q1 对 k2 的权重最大
   and "k2 is where q1 puts most of its weight" earned nothing, though the cell reader read each as q1's peak and
   checked it. reading_budget now has `read_peaks` (audit.yaml): a sentence that reads a query's peak, in any words and
   order the cell reader reads one (grade._cell_claims), states it; a false one costs its sentence (misread), a planned,
   hedged or denied one earns nothing, and it takes the budget of the statement it stands in (after a semicolon).
   Pinned scores moved (each test says why): round 19's essay with "q0 attends most to k1" 2 -> 3 (en and zh) and its
   zh template 7 -> 8; round 18's essay with "q0 attends most to k2" 2 -> 3 (the same essay with "reads mostly from"
   scored 3 before); round 34b's row_sums_invented_zh ceiling 6 -> 6.25.
2. "Without it the entropy fell ..." was read as negated: "without" governed the rest of its clause. A condition is no
   negation of what it frames: a "without X" at the head of its clause ("without it ...", "even without an ablation
   it is clear that ...") and 如果没有 / 在没有…的情况下 / 没有…的话 / 不考虑…的话 negate nothing, and "without" after a
   statement never denies it ("k2 causes q1's output without any ablation" was no overclaim). A denial inside the
   statement keeps its own cue ("without an ablation I cannot say ..."), and "weights without causal meaning" still
   denies what "without" governs. The same class hid overclaims: "Without any ablation I can see that k2 causes q1's
   output" earned the causal caveat (1.5) and no flag, "Even without an ablation it is clear that k2 is the most
   important key" limits 3; so did 不用做消融实验也能看出 k2 导致了 q1 的输出 (不用 is now a denied requirement, as 不需要).
   unless / except / 除了 / 除非 are no negation cues: checked, nothing to fix.
3. "To know whether removing a key changes the output, one needs an ablation" earned nothing in en, 1.5 in zh. The en
   cue asked for "caus..." and a verb ("ablate", "run an ablation") where the zh one takes a change of the output and
   the method as a noun; and a warning spanning a comma ("要判断 k2 会不会影响 q1 的输出，得做消融") did not reach its
   keyword past the comma (text._Sentence.negated: a cue that holds the match negates it).
4. The hunt: 20 new audits (10 honest, 10 gaming) in zh, en and mixed, below.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()


def grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


def _points(r: dict) -> list[tuple[str, float]]:
    return [(it["id"], it["points"]) for it in r["items"]]


OPENER_EN = "My heatmap: rows are queries q0, q1, columns are keys k0-k2.\n"
OPENER_ZH = "我的热力图：行是 query（q0、q1），列是 key（k0-k2）。\n"


def _reading(text: str) -> float:
    return items(grade(text))["figure_reading"]["points"]


# ------------------------------------------------------------------ 1. a query's peak, in any words

@pytest.mark.parametrize("opener, sentence", [
    (OPENER_ZH, "q1 最关注 k2。"),
    (OPENER_ZH, "第2个查询最关注第3个键。"),
    (OPENER_ZH, "q1 对 k2 的权重最大。"),
    (OPENER_ZH, "k2 是 q1 权重最大的位置。"),
    (OPENER_ZH, "q1 最关注 k2（0.67）。"),
    (OPENER_EN, "q1 attends most to k2."),
    (OPENER_EN, "Query 1 attends most to key 2."),
    (OPENER_EN, "k2 is where q1 puts most of its weight."),
    (OPENER_EN, "q1 focuses mostly on k2 (0.67)."),
])
def test_a_true_peak_of_a_query_is_read_as_where_it_spends_its_budget_in_either_language(opener, sentence):
    """Before: figure_reading 1 (rows = queries only) for each but "q1 attends mostly to k2"-like verbs; after: 2."""
    r = grade(opener + sentence + "\n")
    assert items(r)["figure_reading"]["points"] == 2 and not r["flags"], (_points(r), r["flags"])


@pytest.mark.parametrize("opener, sentence", [
    (OPENER_ZH, "q1 应该最关注 k2。"),            # a plan
    (OPENER_ZH, "我猜 q1 最关注 k2。"),            # a guess
    (OPENER_ZH, "q1 不是最关注 k2。"),             # denied
    (OPENER_EN, "I guess q1 attends most to k2."),
    (OPENER_EN, "q1 should attend most to k2."),
    (OPENER_EN, "Is it true that q1 attends most to k2?"),
])
def test_a_planned_hedged_denied_or_asked_peak_earns_no_reading(opener, sentence):
    assert _reading(opener + sentence + "\n") == 1


@pytest.mark.parametrize("opener, sentence", [(OPENER_ZH, "q0 最关注 k0。"), (OPENER_ZH, "第1个查询最关注第1个键。"),
                                              (OPENER_EN, "q0 attends most to k0.")])
def test_a_false_peak_earns_nothing_and_is_flagged(opener, sentence):
    r = grade(opener + sentence + "\n")
    assert items(r)["figure_reading"]["points"] == 1 and "figure" in kinds(r)


def test_a_peak_after_a_semicolon_takes_the_budget_of_its_own_statement():
    """34b's ablation_needed twins: the zh reading stood after "每行和为 1；" and was "packed into a sentence that
    already makes two points" (5.5 against the en twin's 6.5); now 6.5 both."""
    zh = ("我的热力图：行是 query（q0、q1），列是 key（k0-k2），每行和为 1；q1 最关注 k2（0.67）。\n光看这张图，我没法知道 k2 "
          "是不是导致了 q1 的输出；要知道去掉 k2 会不会改变输出，需要做消融。\n")
    en = ("My heatmap: rows are queries q0, q1, columns keys k0-k2; each row sums to 1; q1 reads k2 most (0.67).\nFrom "
          "this figure alone I cannot tell whether k2 causes q1's output; I would need to remove k2 and see whether the "
          "output changes.\n")
    assert grade(zh)["score"] == grade(en)["score"] == 6.5


# ------------------------------------------------------------------ 2. "without X" is a condition, not a negation

@pytest.mark.parametrize("sentence", [
    "Experiment A: without it the entropy fell from 1.05 to 0.12.",
    "Experiment A: the entropy fell from 1.05 to 0.12 without it.",
    "Experiment A: even without the mask the entropy fell from 1.05 to 0.12.",
    "实验 A：如果没有它熵从 1.05 降到 0.12。",
    "实验 A：在没有 1/sqrt(d_k) 的情况下熵从 1.05 降到 0.12。",
    "实验 A：不考虑 d_k = 8 的话熵从 1.05 降到 0.12。",
])
def test_a_result_under_a_without_condition_is_observed_in_either_language(sentence):
    """Before: experiments 0 ("A: stated in the negative"); after: 1."""
    r = grade(OPENER_EN + sentence + "\n")
    assert items(r)["experiments"]["points"] == 1, items(r)["experiments"]["feedback"]["en"]


@pytest.mark.parametrize("sentence", [
    "Without any ablation I can see that k2 causes q1's output.",
    "k2 causes q1's output without any ablation.",
    "Even without an ablation it is clear that k2 is the most important key.",
    "不用做消融实验也能看出 k2 导致了 q1 的输出。",
    "如果没有消融实验也能看出 k2 导致了 q1 的输出。",
])
def test_a_without_condition_does_not_hide_an_overclaim(sentence):
    """Before: the caveat earned (1.5, "even without" 3) and no flag; after: an overclaim, limits 0."""
    r = grade(OPENER_EN + sentence + "\n")
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (_points(r), kinds(r))


@pytest.mark.parametrize("sentence", [
    "Without an ablation I cannot say that k2 causes q1's output.",
    "Without an ablation, I cannot say that k2 causes q1's output.",
    "如果没有消融实验，就不能说 k2 导致了输出。",
    "The heatmap shows reading weights without any causal meaning.",
    "这张图只显示读取权重，没有因果含义。",
    "Unless I ablate k2 I cannot say it causes q1's output.",
    "除非去掉 k2 看输出，否则不能说它导致了输出。",
])
def test_a_caveat_with_its_own_denial_beside_a_condition_still_counts(sentence):
    r = grade(OPENER_EN + sentence + "\n")
    assert items(r)["limits"]["points"] == 1.5 and "overclaim" not in kinds(r), (_points(r), kinds(r))


# ------------------------------------------------------------------ 3. the ablation caveat's twins

@pytest.mark.parametrize("en, zh", [
    ("To know whether removing a key changes the output, one needs an ablation.",
     "要知道去掉一个 key 会不会改变输出，需要做消融。"),
    ("To tell whether k2 affects q1's output, I would need to run an ablation.",
     "要判断 k2 会不会影响 q1 的输出，得做消融。"),
    ("To check whether k2 causes the output, one needs an intervention.",
     "要确定 k2 是否导致了输出，需要干预。"),
])
def test_the_twins_of_what_an_ablation_would_show_score_alike(en, zh):
    """Before: en 0 (first pair), zh 0 (second pair: the keyword after the comma); after: 1.5 each."""
    assert items(grade(OPENER_EN + en + "\n"))["limits"]["points"] == 1.5
    assert items(grade(OPENER_ZH + zh + "\n"))["limits"]["points"] == 1.5


@pytest.mark.parametrize("sentence", [
    "Later I will also remove k2 to see whether it changes the output.",
    "To know the output, one needs an ablation.",
    "之后还会去掉 k2，看看它会不会改变输出。",
])
def test_a_plan_or_an_ablation_of_nothing_in_question_is_no_caveat(sentence):
    assert items(grade(OPENER_EN + sentence + "\n"))["limits"]["points"] == 0


# ------------------------------------------------------------------ 4. the hunt: 10 honest, 10 gaming audits

HERE = Path(__file__).resolve().parent
HAND = yaml.safe_load((HERE / "validation" / "hand_scores.yaml").read_text(encoding="utf-8"))["audits"]
# (hand-scored before the checker ran; the checker's score before this round's fixes -> after, measured by stashing them)
HUNT_HONEST = [
    "en_without_conditions.md",     # 11.5 -> 12.5 (hand 12.5): "q0 attends most to k1" unread
    "zh_without_conditions.md",     # 11.5 -> 12.5: 最关注 unread
    "mixed_weak_peak.md",           # 5.5 -> 6.5 (hand 6.5)
    "en_terse_peaks.md",            # 9.0 -> 10.0 (hand 10): "q0 peaks at k1" unread as the reading budget
    "zh_terse_peaks.md",            # 9.0 -> 10.0
    "en_padding_unless.md",         # 8.5 -> 8.5 (hand 8.5)
    "zh_except_setting_aside.md",   # 8.0 -> 9.0 (hand 9): q1 对 k2 的权重最大，是 0.67 (a peak, its value after it) unread
    "en_except_setting_aside.md",   # 8.0 -> 9.0
    "mixed_notebook_ablation.md",   # 7.0 -> 9.5 (hand 9.5): peaks by ordinal; 要判断 ... 得做 ablation (English method)
    "en_minimal_without.md",        # 5.5 -> 5.5 (hand 5.5)
]
HUNT_GAMING = {
    # name: the flag a TA would want to see (None: nothing to flag, the text only says nothing checkable);
    # before -> after this round's fixes
    "without_stuffed_en.md": "overclaim",           # 2.0 -> 2.0
    "attends_most_other_en.md": "figure",           # 2.0 -> 2.0
    "ordinal_peaks_other_zh.md": "figure",          # 2.0 -> 2.0
    "even_without_overclaim_en.md": "overclaim",    # 6.0 -> 2.0: "even without an ablation" made its overclaims caveats
    "no_need_ablation_zh.md": "overclaim",          # 6.0 -> 2.0: 不用做消融 / 如果没有干预 read as caveats
    "unverifiable_seeds_en.md": None,               # 3.0 -> 3.0 (its invented entropy counts as observed: left open)
    "refuted_columns_mixed.md": "figure",           # 2.0 -> 2.0
    "essay_one_peak_zh.md": "copied",               # 2.0 -> 3.0: its one true reading earns its point
    "formula_peaks_en.md": "overclaim",             # 2.0 -> 2.0
    "condition_overclaim_zh.md": "overclaim",       # 3.5 -> 2.0: 在没有消融的情况下 hid the overclaim
}


@pytest.mark.parametrize("name", HUNT_HONEST)
def test_a_new_honest_audit_scores_its_hand_score(name):
    r = grade((HERE / "validation" / name).read_text(encoding="utf-8"))
    assert abs(r["score"] - HAND[name]["hand"]) <= 0.5 and "overclaim" not in kinds(r), (r["score"], _points(r), kinds(r))


@pytest.mark.parametrize("name", list(HUNT_GAMING))
def test_a_new_gaming_audit_scores_low_and_is_flagged(name):
    r = grade((HERE / "gaming" / name).read_text(encoding="utf-8"))
    assert r["score"] <= 3, (r["score"], _points(r), kinds(r))
    if HUNT_GAMING[name]:
        assert HUNT_GAMING[name] in kinds(r), kinds(r)


@pytest.mark.parametrize("sentence", [
    "要注意：图里 k1 颜色最深，但这只说明 q0 主要读 k1，不能说明 k1 对预测最重要，更不能说明因果。",
    "Note: k1 is the darkest cell, but this only shows that q0 attends most to k1, not that k1 matters most for the "
    "prediction, nor that it causes it.",
])
def test_a_peak_read_beside_two_caveats_takes_no_place_of_the_sentences_budget(sentence):
    """validation/zh_student_style_mixed.md: once its "q0 主要读 k1" was read, it took one of the sentence's two places and
    the importance caveat lost its (10.0 -> 9.5 against the hand's 11); a checked cell is no keyword: now 11."""
    r = grade(OPENER_EN + sentence + "\n")
    assert items(r)["figure_reading"]["points"] == 2 and items(r)["limits"]["points"] == 3, _points(r)


@pytest.mark.parametrize("sentence, limits", [
    ("This only shows that q0 attends most to k1, not that k1 matters most, let alone that it causes the output.", 3),
    ("It does not show importance, much less that k2 causes q1's output.", 3),
    ("The heatmap shows where q1 reads, let alone that k2 causes the output.", 0),     # no denial to go on with
])
def test_let_alone_goes_on_denying_only_after_a_denial(sentence, limits):
    """Before: the causal caveat after "let alone" / "much less" earned nothing (1.5 of 3); zh writes 更不能 with a cue."""
    assert items(grade(OPENER_EN + sentence + "\n"))["limits"]["points"] == limits


@pytest.mark.parametrize("sentence, limits, overclaim", [
    ("My heatmap shows everything except causality.", 1.5, False),     # before: an overclaim (-2), limits 0
    ("除了因果，这张图什么都能说明。", 1.5, False),                      # before: 0, its en twin -2
    ("除了因果以外，这张图什么都能说明。", 1.5, False),
    ("k2 causes q1's output, except in the masked rows.", 0, True),    # "except" after a claim does not deny it
    ("Every row sums to 1 except when the mask is wrong.", 0, False),
])
def test_except_and_chu_le_take_out_only_what_follows_them(sentence, limits, overclaim):
    r = grade(OPENER_EN + sentence + "\n")
    assert items(r)["limits"]["points"] == limits and ("overclaim" in kinds(r)) == overclaim, (_points(r), kinds(r))


def test_an_additive_chu_le_is_no_denial():
    """除了 X……也 ("besides X, also") adds X: "除了 k1 很亮，k2 也很亮" still reads both as bright, denies nothing."""
    r = grade(OPENER_ZH + "除了 k1 很亮，k2 也很亮。\n")
    assert not any(s for s in kinds(r) if s == "overclaim") and items(r)["limits"]["points"] == 0


# ------------------------------------------------------------------ the cue tables' twins, looked for pair by pair

@pytest.mark.parametrize("en, zh", [
    ("Whether k2 matters for q1's output is a separate question.", "k2 对 q1 的输出是否重要是另一个问题。"),
    ("Reading importance off the heatmap would be a mistake.", "从热力图读出重要性是错误的。"),
    ("Reading causality off the heatmap is wrong.", "从热力图读出因果是不对的。"),
])
def test_a_caveat_and_its_twin_earn_the_same(en, zh):
    """Before: the first en 1.5, zh 0 (另一个问题 was no warning, as "a separate question" is); the second 0 in both (en: the
    judgement too far from its subject; zh: "从热力图读出" was read as "the heatmap shows that"); after: 1.5 each."""
    assert items(grade(OPENER_EN + en + "\n"))["limits"]["points"] == 1.5
    assert items(grade(OPENER_ZH + zh + "\n"))["limits"]["points"] == 1.5


@pytest.mark.parametrize("sentence", ["从热力图可以看出高权重不代表因果。", "从热力图读出，高权重不代表因果。"])
def test_a_caveat_said_to_be_read_off_the_figure_still_earns_nothing(sentence):
    assert items(grade(OPENER_ZH + sentence + "\n"))["limits"]["points"] == 0


@pytest.mark.parametrize("en, zh", [
    ("Each row is a probability distribution over the keys.", "每一行是对 key 的概率分布。"),
    ("Each row tells how that query splits its attention over the keys.", "每一行说明这个 query 怎么把注意力分给各个 key。"),
    ("The largest value in row q1 is at k2 (0.67).", "q1 这一行最大的值在 k2（0.67）。"),
])
def test_a_reading_of_the_figure_and_its_twin_earn_the_same(en, zh):
    """Before: en 2, zh 1 (the first two: 分布 / 分给 were no reading budget); en 0, zh 1 (the third: the peak named before
    its query was read as a value only); after: alike."""
    en_r, zh_r = grade("My heatmap plots weights[0, 0].\n" + en + "\n"), grade("我的热力图画的是 weights[0, 0]。\n" + zh + "\n")
    assert items(en_r)["figure_reading"]["points"] == items(zh_r)["figure_reading"]["points"] > 0
    assert not en_r["flags"] and not zh_r["flags"]


def test_a_false_peak_named_before_its_query_is_flagged():
    r = grade("My heatmap plots weights[0, 0].\nThe largest value in row q1 is at k1 (0.24).\n")
    assert "figure" in kinds(r) and items(r)["figure_reading"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "除非做了消融，否则 k2 就是最重要的 key。",       # 除非 "unless": its 非 denied 消融
    "没有消融也没关系，k2 显然决定了输出。",          # "even without an ablation"
    "抛开因果不谈，k2 是最重要的特征。",              # "setting causality aside"
    "先不谈因果，k2 是最重要的特征。",
    "No ablation needed: k2 drives q1's output.",   # a requirement denied, as "no ablation is needed"
])
def test_a_condition_earns_no_caveat_beside_an_overclaim(sentence):
    """Before: the condition's negation word made its keyword a caveat (1.5, so -0.5 net); after: 0 and the overclaim."""
    r = grade(OPENER_EN + sentence + "\n")
    assert items(r)["limits"]["points"] == 0 and items(r)["figure_reading"]["points"] == 0 and "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", ["除非做消融，否则不能说 k2 导致了输出。", "抛开这张图不谈，高权重本来就不代表因果。"])
def test_a_denial_after_a_condition_keeps_its_caveat(sentence):
    assert items(grade(OPENER_ZH + sentence + "\n"))["limits"]["points"] >= 1.5


@pytest.mark.parametrize("en, zh", [
    ("Experiment A: the entropy without scaling was lower, about 0.1 at d_k = 128.", "实验 A：不缩放时熵更低，d_k = 128 时大约 0.1。"),
    ("Experiment B: the padded keys received no weight at all (0.000).", "实验 B：padding 的 key 完全没有分到权重（0.000）。"),
])
def test_an_experiment_and_its_twin_earn_the_same(en, zh):
    """Before: zh 3.0 against en 4.0 and 5.0: "不缩放时熵更低" was the false claim "scaling lowers the entropy" (its 不 is an
    arm's condition, blanked before claims are read), 大约 0.1 no observed value, 没有分到权重 no zero weight; after: alike."""
    assert grade(OPENER_EN + en + "\n")["score"] == grade(OPENER_ZH + zh + "\n")["score"] >= 4


def test_scaling_said_to_lower_the_entropy_is_still_the_false_claim():
    assert items(grade(OPENER_ZH + "实验 A：缩放后熵更低，大约 0.1。\n"))["experiments"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "Without an ablation, causality is unproven.",
    "Without an ablation the causal role of k2 stays unknown.",
    "Without an ablation, whether k2 causes the output remains an open question.",
    "如果没有消融，k2 是否导致输出仍然未知。",
])
def test_what_is_still_unknown_is_a_caveat_in_either_language(sentence):
    """Once a fronted "without an ablation" negated nothing, the en sentences earned nothing (their "without" had made
    "ablation" the caveat) while the zh twin kept it through the 未 of 未知; now 1.5 each, from what they say unknown."""
    assert items(grade(OPENER_EN + sentence + "\n"))["limits"]["points"] == 1.5
