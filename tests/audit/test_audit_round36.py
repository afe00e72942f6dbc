"""Round 36 on the audit: four misreadings left open, each fixed for its class in zh and en, and a hunt.

1. A reading used as the premise of an overclaim earned its point ("q1 最关注 k2，说明 k2 对 q1 的输出贡献最大": the peak
   credited "a row is how a query spends its reading budget", then 2 were deducted; validation zh_overclaim_subtle 4
   against a hand 3). A non-caveat concept stated in a sentence that overclaims is now the overclaim's premise and earns
   nothing (reason `premise`); caveats in such a sentence are judged as before.
2. A copula before the labels ("rows are q0, q1", 行是 q0、q1, 列分别为 k0、k1、k2) was not read as rows = queries (only
   "rows = q0" / "行：q0" were); the same copula before the other labels ("rows are k0 ...") contradicts it.
3. An invented number ("the entropy is exactly 0.42", 熵正好是 0.42) with nothing saying which run it came from counted
   as experiment A's observed result. A's result now needs its setting (scaling, d_k, the experiment's name) in the
   sentence, its paragraph or bullet, or the heading above it (audit.yaml `setting`, reason `no_setting`).
4. "Whether k2 is the most important key remains an open question without an ablation" earned 3 in en and nothing in
   zh written with the comma a zh writer puts after the question (k2 是否是最重要的 key，在没有消融实验之前仍是……悬而未决的
   问题): 是否 and 在没有 are blanked before cues are read, so the open-question cue could not start; "k2 重要与否尚无定论"
   earned nothing (重要 after a key's label k2 was no importance keyword). Both now score as their en twins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


def _points(text: str, item: str) -> float:
    return items(_grade(text))[item]["points"]


# --- 1. the premise of an overclaim -----------------------------------------------------------------------------

PREMISES = [
    ("每一行是一个 query，每一列是一个 key，行和为 1。\n从图中可以看出，q1 最关注 k2，说明 k2 对 q1 的输出贡献最大。\n", 0.0),
    ("Each row is a query and each column a key; rows sum to 1.\n"
     "From the figure, q1 attends most to k2, which shows that k2 contributes most to q1's output.\n", 0.0),
    ("Each row is a query and each column a key; rows sum to 1.\n"
     "k2 matters most for the output because q1 reads mostly from k2.\n", 0.0),
]


@pytest.mark.parametrize("text, reading", PREMISES, ids=["zh", "en", "en_because"])
def test_a_reading_that_is_the_premise_of_an_overclaim_earns_nothing(text, reading):
    r = _grade(text)
    assert "overclaim" in kinds(r)
    fr = items(r)["figure_reading"]
    # rows/columns and row sums (2 of 3) minus the overclaim's 2: the peak read as its premise adds nothing
    assert fr["points"] == reading, fr
    assert "ground of an overclaim" in fr["feedback"]["en"] and "过度解读的依据" in fr["feedback"]["zh"]


def test_the_same_reading_without_the_overclaim_still_earns_its_point():
    assert _points("Each row is a query and each column a key; rows sum to 1.\nq1 attends most to k2 (0.67).\n",
                   "figure_reading") == 3
    assert _points("每一行是一个 query，每一列是一个 key，行和为 1。\nq1 最关注 k2（0.67）。\n", "figure_reading") == 3


def test_a_caveat_beside_an_overclaim_in_one_sentence_is_judged_as_before():
    # the caveat is no premise: "cannot prove causality, but k2 is the most important key" keeps the causal caveat
    r = _grade("My heatmap: q1 reads mostly from k2 (0.67).\n"
               "It cannot prove causality, but it shows that k2 is the most important key.\n")
    assert "overclaim" in kinds(r)
    assert "not a causal effect" not in items(r)["limits"]["feedback"]["en"].partition("Not credited")[2]


# --- 2. a copula before the labels ---------------------------------------------------------------------------------

ROWS_AS_LABELS = [
    "My heatmap: rows are q0, q1; columns are k0, k1, k2. Each row sums to 1.\n",
    "My heatmap: the rows are q0 and q1, the columns are k0, k1 and k2. Each row sums to 1.\n",
    "我的热力图：行是 q0、q1，列是 k0、k1、k2。每一行的和为 1。\n",
    "我的热力图：行分别为 q0、q1，列分别为 k0、k1、k2。每一行的和为 1。\n",
]


@pytest.mark.parametrize("text", ROWS_AS_LABELS, ids=["en", "en_the_and", "zh", "zh_fenbie"])
def test_a_copula_before_the_query_labels_reads_rows_as_queries(text):
    assert _points(text, "figure_reading") == 2     # rows = queries and row sums


@pytest.mark.parametrize("text", [
    "My heatmap: rows are k0, k1, k2; columns are q0, q1. Each row sums to 1.\n",
    "我的热力图：行是 k0、k1、k2，列是 q0、q1。每一行的和为 1。\n",
], ids=["en", "zh"])
def test_a_copula_before_the_key_labels_on_the_rows_is_the_wrong_way_round(text):
    fr = items(_grade(text))["figure_reading"]
    assert fr["points"] == 1 and "states the opposite" in fr["feedback"]["en"]


# --- 3. a value of no run --------------------------------------------------------------------------------------

INVENTED = [
    "In my heatmap q1 attends most to k2 (0.67). The entropy is exactly 0.42.\n",
    "In my heatmap q1 attends most to k2 (0.67). The entropy of q1's row is exactly 0.42.\n",
    "我的热力图中 q1 最关注 k2（0.67）。熵正好是 0.42。\n",
    "我的热力图中 q1 最关注 k2（0.67）。\n\n- 熵的值：0.42，比较低\n",
]


@pytest.mark.parametrize("text", INVENTED, ids=["en", "en_row", "zh", "zh_note"])
def test_an_entropy_value_naming_no_setting_is_no_result_of_experiment_a(text):
    ex = items(_grade(text))["experiments"]
    assert ex["points"] == 0, ex
    assert "which run it comes from" in ex["feedback"]["en"] and "来自哪次运行" in ex["feedback"]["zh"]


@pytest.mark.parametrize("text", [
    "Experiment A: without scaling the entropy dropped from 1.05 to 0.12 as d_k went from 8 to 128.\n",
    "## Experiment A\n\n- entropy without it: 1.05 -> 0.12\n",
    "## Experiment A\n\nThe entropy dropped from 1.05 to 0.12.\n",
    "实验 A：不缩放时熵从 1.05 降到 0.12。\n",
    "- A: entropy 1.05 -> 0.12 as d_k grows\n",
    "With 1/sqrt(d_k) the entropy was 1.02.\n",
    "d_k = 128 时，熵是 0.11。\n",
], ids=["en", "heading_bullet", "heading_prose", "zh", "label", "scale", "zh_dk"])
def test_an_entropy_result_with_its_setting_nearby_is_still_experiment_a(text):
    assert _points(text, "experiments") == 1


# --- 4. an open question, in zh as in en -----------------------------------------------------------------------------

OPEN_QUESTION = [
    ("In my heatmap q1 attends most to k2 (0.67). Whether k2 is the most important key remains an open question "
     "without an ablation.\n",
     "我的热力图中 q1 最关注 k2（0.67）。k2 是否是最重要的 key，在没有消融实验之前仍是一个悬而未决的问题。\n"),
    ("In my heatmap q1 attends most to k2 (0.67). Whether k2 is important is an open question.\n",
     "我的热力图中 q1 最关注 k2（0.67）。k2 重要与否尚无定论。\n"),
    ("In my heatmap q1 attends most to k2 (0.67). Whether k2 is important is still unknown.\n",
     "我的热力图中 q1 最关注 k2（0.67）。k2 是不是真的重要，目前还不清楚。\n"),
]


@pytest.mark.parametrize("en, zh", OPEN_QUESTION, ids=["ablation", "yu_fou", "unknown"])
def test_an_open_question_earns_the_same_limits_in_zh_and_en(en, zh):
    e, z = _points(en, "limits"), _points(zh, "limits")
    assert e > 0 and e == z, (e, z)


def test_a_settled_claim_after_a_comma_is_no_open_question():
    # "k2 很重要，这已经没有悬念" asserts; the open-question cue needs an open question
    r = _grade("我的热力图中 q1 最关注 k2（0.67）。k2 是最重要的 key，这一点已经确定。\n")
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)


# --- 5. the hunt: 10 gaming texts and 10 honest audits, hand-scored before the checker ran -------------------------

HERE = Path(__file__).resolve().parent
GAMING_HAND = {       # tests/audit/gaming: what a careful TA gives each (audit.yaml), decided before running the checker
    "r36_premise_overclaims_en.md": 2,          # rows/columns (1) wiped by three readings argued into importance
    "r36_premise_overclaims_zh.md": 2,
    "r36_invented_numbers_en.md": 3,            # rows = queries (1); numbers of no run
    "r36_invented_numbers_zh.md": 3,
    "r36_markdown_comment_hidden_en.md": 2,     # everything in Markdown comments ([//]: # (...)), which no page shows
    "r36_hidden_input_zh.md": 2,                # everything in <input type="hidden">
    "r36_lecture_figure_en.md": 2,              # the lecture's 4x4 figure, not the student's
    "r36_course_page_copied_zh.md": 2,          # the course page pasted
    "r36_swapped_copula_overclaim_zh.md": 2,    # rows are k0-k2 (wrong way round) and importance
    "r36_keyword_line_en.md": 2,                # "Keywords: rows are q0, q1; causality; ..."
}


@pytest.mark.parametrize("name", sorted(GAMING_HAND))
def test_round36_gaming_texts_score_at_most_their_hand_score(name):
    r = _grade((HERE / "gaming" / name).read_text(encoding="utf-8"))
    assert r["score"] <= GAMING_HAND[name], (r["score"], [(it["id"], it["points"]) for it in r["items"]])


def test_a_line_labelled_keywords_states_nothing():
    for text in ("My heatmap.\n\nKeywords: rows are q0, q1; columns are k0, k1, k2; causality; padding 0.\n",
                 "我的热力图。\n\n关键词：行是 q0、q1；列是 k0、k1、k2；因果；padding 0\n",
                 "My heatmap.\n\n## Keywords\n- rows are q0, q1\n- padding 0\n- causality\n"):
        fr = items(_grade(text))["figure_reading"]
        assert fr["points"] == 0, (text, fr)
        assert "labelled as keywords" in fr["feedback"]["en"] and "关键词" in fr["feedback"]["zh"]


def test_the_same_notes_without_a_keywords_label_still_count():
    assert _points("My heatmap.\n\n- rows are q0, q1\n- each row sums to 1\n", "figure_reading") == 2


# --- 6. the entropy of a row of the figure, checked against the weights -------------------------------------------------

@pytest.mark.parametrize("text", [
    "In my heatmap q1 attends most to k2 (0.67). The entropy of q1's row is exactly 0.42.\n",
    "我的热力图中 q1 最关注 k2（0.67）。q1 那一行的熵是 0.42。\n",
], ids=["en", "zh"])
def test_a_row_entropy_the_weights_do_not_have_is_flagged_with_the_rows_entropies(text):
    msgs = [f["message"] for f in _grade(text)["flags"] if f["kind"] == "figure"]
    assert len(msgs) == 1, msgs
    # the example's rows [0.21, 0.58, 0.21] and [0.09, 0.24, 0.67]: 0.97 and 0.83 nats
    # (round 36b: the zh message with zh quotes and commas)
    assert "0.42" in msgs[0]["en"] and "0.97, 0.83 nats" in msgs[0]["en"] and "0.97，0.83 nats" in msgs[0]["zh"]
    assert "“" in msgs[0]["zh"] and '"' not in msgs[0]["zh"]


@pytest.mark.parametrize("text", [
    "In my heatmap the entropy of q1's row is 0.83 nats.\n",
    "q1's row entropy is 1.19 bits.\n",
    "我的热力图中 q1 那一行的熵是 0.83。\n",
    "If q1's entropy were 0.42 the row would be sharper.\n",
], ids=["nats", "bits", "zh", "supposed"])
def test_a_true_or_supposed_row_entropy_is_not_flagged(text):
    assert "figure" not in kinds(_grade(text))
