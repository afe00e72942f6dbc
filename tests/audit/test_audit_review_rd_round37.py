"""Round 37's audit commits, reviewed (brief MD): each finding fixed in zh and en alike.

1. A denial of something else cleared a claim and credited it as a caveat: "The heatmap proves that k2 causes q1's output;
   whether it holds for other seeds, the heatmap cannot show." (6/15 against 2, gaming/r37_unrelated_denial_*). A
   closing denial now denies the claim only from the clause directly after it: not after a clause naming a topic
   (whether, why, 至于, 为什么), not from inside a bracket. A denied true reading of the figure earns nothing, in every
   clause of the claim (zh earned "行是 query" of "行是 query，列是 key，但这张图证明不了这一点").
2. The plain-word overclaims denied were said to be caveats (audit.yaml) but earned no limits points: "不能说模型靠 k2 来回答
   q1" 0 (en twin 1.5), "I cannot say that q0 is driven by k1" 0, 不能说明模型最在乎 k2 0. 靠, 最在乎, 被…带着走, …决定的 /
   driven by, cares about most are now phrases of not_importance / not_causal.
3. "order of importance" / 重要性排序 and "relies on" flagged honest hypotheticals ("An order of importance of the keys would
   need an ablation.", 键的重要性排序需要消融实验才能得到, "relies on k2 only in the sense that q1 reads 0.67 of its value from
   k2"): the order is an overclaim only asserted (a verb of showing, a figure, "in order of importance", 按…排序) and not
   followed by what it would need (would need, 需要, 才能, 得先); "in the sense that" / 意义上 qualifies the reliance.
4. "where q1 reads" earned the reading budget in "I don't know where q1 reads." / "Nobody knows where q1 reads." (zh 0, but
   我不清楚 q1 从哪里读取 1.0): a reading inside a question the student cannot answer is not stated (cues.unasserted).
5. "Not causal (not true, k2 does cause q1's output)." earned the causal caveat and no flag (zh twin flagged): a verdict
   opening the aside (not true, wrong, 不对) takes back what comes before the bracket, and "k2 does cause" is the overclaim
   "k2 causes".
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()
OPENER_EN = "My heatmap: rows are queries, columns are keys.\n"
OPENER_ZH = "我的热力图：行是 query，列是 key。\n"


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


# --- 1. a denial of something else -----------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "The heatmap proves that k2 causes q1's output; whether it holds for other seeds, the heatmap cannot show.",
    "The heatmap proves k1 is the most important key for q0, and why the model learned it, the figure cannot show.",
    "The model relies on k2 to answer q1 (the exact numbers are rounded, and the figure cannot show that).",
    "这张图证明了 k2 导致了 q1 的输出，至于换一个 seed 还是不是这样，这张图证明不了。",
    "k2 是最重要的 key，但 q0 那一行为什么这么平，这个图说明不了。",
    "k2 导致了 q1 的输出（颜色是四舍五入的，这个图证明不了这一点）。",
])
def test_a_denial_of_another_topic_leaves_the_overclaim_standing(line):
    r = _grade((OPENER_ZH if "图" in line else OPENER_EN) + line + "\n")
    assert "overclaim" in kinds(r)
    assert items(r)["limits"]["points"] == 0


@pytest.mark.parametrize("line", [
    "k2 is the most important key: the heatmap cannot show that.",
    "k2 causes q1's output, but the heatmap cannot show that.",
    "k2 是最重要的 key，但这张图证明不了这一点。",
    "k2 导致了 q1 的输出，这张图证明不了这一点。",
])
def test_a_denial_right_after_its_claim_still_makes_it_a_caveat(line):
    r = _grade((OPENER_ZH if "图" in line else OPENER_EN) + line + "\n")
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] == 1.5


@pytest.mark.parametrize("text", [
    "My heatmap.\nRows are queries, columns are keys, but the heatmap cannot show that.\n",
    "My heatmap.\nRows are queries and columns are keys, but the heatmap cannot show that.\n",
    "我的热力图。\n行是 query，列是 key，但这张图证明不了这一点。\n",
])
def test_a_true_reading_the_student_denies_earns_no_reading_credit(text):
    assert items(_grade(text))["figure_reading"]["points"] == 0


@pytest.mark.parametrize("name", ["r37_unrelated_denial_en.md", "r37_unrelated_denial_zh.md"])
def test_the_unrelated_denial_gaming_texts_score_as_their_overclaims(name):
    from pathlib import Path
    text = (Path(__file__).parent / "gaming" / name).read_text(encoding="utf-8")
    r = _grade(text)
    assert r["score"] <= 2.0 and "overclaim" in kinds(r)


# --- 2. the plain-word overclaims denied earn their caveat ---------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "不能说模型就是靠 k2 来回答 q1 的，这需要消融实验。",
    "I cannot say that the model relies on k2 to answer q1; this needs an ablation.",
    "I cannot say that q0 is driven by k1 without removing k1.",
    "这张图不能说明 q1 的输出就是 k2 决定的。",
    "这张图不能说明模型最在乎 k2。",
    "The heatmap cannot show which key the model cares about most.",
    "不能说模型靠 k2 来回答 q1。",
])
def test_a_denied_plain_word_overclaim_earns_the_caveat(sentence):
    r = grade_audit(sentence + "\n", None, {}, CHECKLIST)
    assert items(r)["limits"]["points"] == 1.5 and "overclaim" not in kinds(r)


# --- 3. an order of importance asked for, a reliance qualified -----------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "An order of importance of the keys would need an ablation.",
    "键的重要性排序需要消融实验才能得到。",
    "要把按重要性排序的说法当真，得先做消融实验。",
    "The model relies on k2 only in the sense that q1 reads 0.67 of its value from k2.",
    "模型靠 k2 只是在 q1 从 k2 读取 0.67 这个意义上。",
])
def test_an_order_of_importance_asked_for_or_a_reliance_qualified_is_no_overclaim(sentence):
    assert "overclaim" not in kinds(_grade(OPENER_EN + sentence + "\n"))


@pytest.mark.parametrize("sentence", [
    "The heatmap gives the order of importance of the keys.",
    "The keys in order of importance: k2, k1, k0.",
    "So the picture tells us which inputs the model uses, and in which order of importance: k2, then k1, then k0.",
    "这张图给出了键的重要性排序。",
    "按重要性排序，k2 第一。",
    "The model relies on k2.",
])
def test_an_order_of_importance_asserted_is_still_an_overclaim(sentence):
    assert "overclaim" in kinds(_grade(OPENER_EN + sentence + "\n"))


# --- 4. a reading asked, not stated -------------------------------------------------------------------------------

def _reading(sentence: str) -> float:
    return items(_grade("My heatmap.\n" + sentence + "\n"))["figure_reading"]["points"]


@pytest.mark.parametrize("sentence", [
    "I don't know where q1 reads.",
    "Nobody knows where q1 reads.",
    "I have no idea where q1 reads.",
    "我完全不知道 q1 从哪里读取。",
    "我不清楚 q1 从哪里读取。",
    "我想知道 q1 从哪里读取。",
])
def test_where_a_query_reads_asked_as_a_question_earns_no_reading(sentence):
    assert _reading(sentence) == 0


@pytest.mark.parametrize("sentence", [
    "A high weight says where q1 reads, not what matters.",
    "高权重只说明 q1 从哪里读取。",
])
def test_where_a_query_reads_stated_still_earns_the_reading(sentence):
    assert _reading(sentence) == 1.0


# --- 5. an aside that takes the caveat back -----------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "Not causal (not true, k2 does cause q1's output).",
    "不是因果（不对，k2 确实导致了 q1 的输出）。",
])
def test_a_caveat_taken_back_by_its_aside_is_an_overclaim(sentence):
    r = grade_audit(sentence + "\n", None, {}, CHECKLIST)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", ["Not causal (not true).", "Not causal (wrong).", "不是因果（不对）。"])
def test_a_verdict_opening_the_aside_retracts_the_caveat(sentence):
    assert items(grade_audit(sentence + "\n", None, {}, CHECKLIST))["limits"]["points"] == 0


def test_an_aside_with_the_caveats_reason_keeps_it():
    assert items(grade_audit("Not causal (no ablation).\n", None, {}, CHECKLIST))["limits"]["points"] == 1.5
