"""Round 36b: regressions of round 36's audit rules found by review R4, each fixed for its class in zh and en.

1. The zh open-question cue that crosses a comma started at a topic word (重要, 导致…) and swallowed an overclaim before
   the comma ("这说明 k2 是最重要的 key，原因还不清楚" scored 6.5 with no flag). Only a question (是否, 与否…) now crosses it.
2. Experiment A's setting was read only in the nearest heading ("## Experiment A" / "### Results" / "The entropy fell from
   0.95 to 0.12" earned nothing): every enclosing heading is read now, and the paragraph before the result.
3. The setting words missed how honest students write it: "key dimension", 维度, 不做归一化 (a condition, not a denial).
4. 标签 ("labels") was a keywords label: "标签：纵轴是 query……" lost its reading while en "Labels:" kept it. Dropped.
5. A "## Keywords" heading made its whole section keywords: a reading paragraph after the keyword line lost its points.
   Only the list right under the heading is keywords now.
6. "k2 contributes most to q1's output" was an overclaim, its zh twin "k2 对 q1 的输出贡献最大" was not (zh 5.0, en 3.0).
8. A row of one query listing its keys' weights ("q1's row is k0 0.09, k1 0.24, k2 0.67", "q1 这一行是 k0、k1、k2 上的权重")
   was read as "rows are keys", the opposite of rows = queries, and lost the reading (2 -> 1) with "the same clause states
   the opposite". The copula-before-labels contradiction now skips one query's row and labels followed by weights.
9. A row entropy of an experiment's own random q, k ("Experiment A (random q, k with d_k = 128, no scaling): row 0's
   entropy is 0.12") was flagged as a row of the heatmap: only a sentence not about a named run, or one naming the figure,
   is checked now. The zh message quotes with “” and lists with ，.
Lower. A reading beside an overclaim the sentence reports as what others might draw ("…, so one might think k2 matters
   most, but …", 有人会说这证明 k2 最重要) was wiped as its premise; it is not one. "That is an overinterpretation" / 这是过度
   解读 after such a report is a verdict that denies it (no overclaim).
7. A keyword list under another label ("Summary: rows are q0, q1; …; causality; importance; one example; padding 0", 要点：)
   scored 4 while "Keywords:" gave 2. A line cut by semicolons into mostly bare terms is a keyword list (reason
   keyword_shape); terse notes ("rows = queries; …", "not causal; one seed; no ablation") are not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()
HERE = Path(__file__).resolve().parent

ZH = "我的热力图：每一行是一个 query，每一列是一个 key，行和为 1。q1 最关注 k2（0.67）。\n"
EN = "My heatmap: each row is a query and each column a key; rows sum to 1. q1 attends most to k2 (0.67).\n"


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


# --- 1. an overclaim before a comma is no open question ----------------------------------------------------------

@pytest.mark.parametrize("claim", ["这说明 k2 是最重要的 key，原因还不清楚。", "k2 导致了 q1 的输出，其他 key 的作用仍不清楚。",
                                   "k2 是最重要的 key，原因尚无定论。", "不缩放时 k2 是最重要的 key，原因还不清楚。",
                                   "非常明显，k2 是最重要的 key，原因还不清楚。"])
def test_an_overclaim_before_a_comma_is_flagged_whatever_follows_it(claim):
    r = _grade(ZH + claim)
    assert "overclaim" in kinds(r)
    assert r["score"] <= 3.0


def test_the_comma_dodge_gaming_text_scores_as_its_en_twin():
    zh = _grade((HERE / "gaming" / "r36b_comma_dodge_zh.md").read_text(encoding="utf-8"))
    en = _grade((HERE / "gaming" / "r36b_comma_dodge_en.md").read_text(encoding="utf-8"))
    assert kinds(zh).count("overclaim") == 2 and abs(zh["score"] - en["score"]) <= 1.0


@pytest.mark.parametrize("question", ["k2 是否是最重要的 key，在没有消融实验之前仍是一个悬而未决的问题。",
                                      "k2 是否真的是最重要的 key，仍是悬而未决的问题。"])
def test_a_question_before_the_comma_is_still_an_open_question(question):
    r = _grade(ZH + question + "\n")
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


# --- 2, 3. an experiment's setting in any enclosing heading, the paragraph before, or worded as students word it ----

@pytest.mark.parametrize("text", [
    "## Experiment A\n\n### Results\n\nThe entropy fell from 0.95 to 0.12.\n",
    "## 实验 A\n\n### 结果\n\n熵从 0.95 降到 0.12。\n",
    "Experiment A: random q and k, d_k in {8, 32, 128}.\n\nThe entropy fell from 0.95 to 0.12.\n",
    "As the key dimension grew, the entropy fell from 0.95 to 0.12.\n",
    "随着维度增大，熵从 0.95 降到 0.12。\n",
    "不做归一化时熵从 0.95 降到 0.12。\n",
])
def test_an_entropy_result_whose_setting_is_named_nearby_is_experiment_a(text):
    assert items(_grade(EN + "\n" + text))["experiments"]["points"] > 0


@pytest.mark.parametrize("text", [
    "## Experiment A\n\nSetup only.\n\n## Other\n\nThe entropy is exactly 0.42.\n",
    "The entropy is exactly 0.42.\n", "熵正好是 0.42。\n", "The normalised entropy is exactly 0.42.\n",
])
def test_an_entropy_value_of_no_named_run_is_still_no_result(text):
    assert items(_grade(EN + "\n" + text))["experiments"]["points"] == 0


# --- 4, 5, 7. what a keyword line is ----------------------------------------------------------------------------------

AXES_ZH = "我的热力图如下。\n\n{label}纵轴是 query（q0、q1），横轴是 key（k0、k1、k2）。每一行的和为 1。\n\nq1 主要读取 k2（0.67）。\n"
AXES_EN = "My heatmap is below.\n\n{label}the y axis is the queries (q0, q1), the x axis the keys (k0, k1, k2). Each row sums to 1.\n\nq1 reads mostly from k2 (0.67).\n"


@pytest.mark.parametrize("text", [AXES_ZH.format(label="标签："), AXES_EN.format(label="Labels: ")])
def test_axis_labels_are_a_reading_not_keywords_in_zh_and_en(text):
    plain = (AXES_ZH if "纵轴" in text else AXES_EN).format(label="")
    assert items(_grade(text))["figure_reading"]["points"] == items(_grade(plain))["figure_reading"]["points"] > 1


@pytest.mark.parametrize("heading", ["## Keywords", "## 关键词"])
def test_a_reading_paragraph_after_a_keywords_heading_and_its_list_still_counts(heading):
    body = ("My heatmap has rows q0, q1 (queries) and columns k0, k1, k2 (keys). Each row sums to 1.\n"
            "q1 attends most to k2 (0.67).\n")
    with_list = _grade(f"# Audit\n\n{heading}\nattention, heatmap\n\n" + body)
    assert items(with_list)["figure_reading"]["points"] == items(_grade("# Audit\n\n" + body))["figure_reading"]["points"] > 1


def test_the_list_under_a_keywords_heading_is_still_keywords():
    r = _grade("My heatmap.\n\n## Keywords\n\nrows are q0, q1; columns are k0, k1, k2; causality; ablation\n")
    assert items(r)["figure_reading"]["points"] == 0


@pytest.mark.parametrize("name", ["r36b_summary_keywords_en.md", "r36b_summary_keywords_zh.md"])
def test_a_keyword_list_under_another_label_scores_as_a_keywords_line(name):
    text = (HERE / "gaming" / name).read_text(encoding="utf-8")
    r = _grade(text)
    assert r["score"] <= 2.0 and items(r)["figure_reading"]["points"] == 0
    assert "bare terms" in items(r)["figure_reading"]["feedback"]["en"]
    assert "单独的词语" in items(r)["figure_reading"]["feedback"]["zh"]


@pytest.mark.parametrize("line, item", [
    ("Notes: rows = queries; cols = keys; each row sums to 1; q1 -> k2 0.67", "figure_reading"),
    ("Limits: not causal; not feature importance; one example; one seed; no ablation", "limits"),
    ("局限：不是因果；不是特征重要性；只有一个例子；没有消融", "limits"),
    ("Limits: one example; one seed; 2x3 grid; no ablation; not causal.", "limits"),
    ("局限：一个例子；一个 seed；2x3 网格；没有消融。", "limits"),
])
def test_terse_notes_cut_by_semicolons_are_no_keyword_list(line, item):
    assert items(_grade(EN + "\n" + line + "\n"))[item]["points"] > 0


# --- 6. an overclaim about a query's output, in zh as in en ----------------------------------------------------------

@pytest.mark.parametrize("zh, en", [
    ("k2 对 q1 的输出贡献最大。", "k2 contributes most to q1's output."),
    ("k2 对 query 1 的输出影响最大。", "k2 has the largest influence on q1's output."),
])
def test_an_overclaim_about_a_querys_output_is_flagged_in_zh_as_in_en(zh, en):
    rz, re_ = _grade(ZH + zh), _grade(EN + en)
    assert "overclaim" in kinds(rz) and "overclaim" in kinds(re_) and rz["score"] == re_["score"]


def test_a_denied_contribution_to_a_querys_output_is_a_caveat_not_an_overclaim():
    r = _grade(ZH + "高权重并不说明 k2 对 q1 的输出贡献最大。\n")
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


@pytest.mark.parametrize("name", ["r36b_premise_split_en.md", "r36b_premise_split_zh.md"])
def test_a_premise_and_its_overclaim_in_two_sentences_are_flagged_twice(name):
    r = _grade((HERE / "gaming" / name).read_text(encoding="utf-8"))
    assert kinds(r).count("overclaim") == 2


# --- 8. one query's row listing its keys is no "rows are keys" ------------------------------------------------------

@pytest.mark.parametrize("text", [
    "My heatmap: the rows are the queries and q1's row is k0 0.09, k1 0.24, k2 0.67, peaking at k2.\nEach row sums to 1.\n",
    "我的热力图：行是 query，q1 这一行是 k0、k1、k2 上的权重：0.09、0.24、0.67，峰值在 k2。\n每一行的和为 1。\n",
])
def test_one_querys_row_listing_its_keys_keeps_rows_as_queries(text):
    fr = items(_grade(text))["figure_reading"]
    assert fr["points"] >= 2 and "opposite" not in fr["feedback"]["en"] and "相反" not in fr["feedback"]["zh"]


@pytest.mark.parametrize("text", ["My heatmap.\nq1's row is k0 0.09, k1 0.24, k2 0.67.\n",
                                  "我的热力图。\nq1 这一行是 k0、k1、k2 上的权重：0.09、0.24、0.67。\n"])
def test_one_querys_row_listing_its_keys_is_not_told_it_states_the_opposite(text):
    fr = items(_grade(text))["figure_reading"]
    assert "opposite" not in fr["feedback"]["en"] and "相反" not in fr["feedback"]["zh"]


@pytest.mark.parametrize("text", ["In my heatmap the rows are k0, k1, k2 and the columns are q0, q1.\n",
                                  "我的热力图中，行是 k0、k1、k2，列是 q0、q1。\n"])
def test_rows_named_by_the_key_labels_are_still_the_wrong_way_round(text):
    assert "opposite" in items(_grade(text))["figure_reading"]["feedback"]["en"]


# --- 9. an experiment's rows are not the heatmap's ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    EN + "\nExperiment A (random q, k with d_k = 128, no scaling): row 0's entropy is 0.12, row 1's entropy is 0.08.\n",
    EN + "\n## Experiment A\n\nWith random q and k, d_k = 128: row 0's entropy is 0.12.\n",
    ZH + "\n实验 A（随机 q、k，d_k = 128，不缩放）：第 0 行的熵是 0.12。\n",
])
def test_a_row_entropy_of_an_experiments_own_run_is_not_read_as_the_heatmaps(text):
    assert "figure" not in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    EN + "\nIn experiment A I also looked at my heatmap: the entropy of q1's row is exactly 0.42.\n",
    "我的热力图中 q1 最关注 k2（0.67）。q1 那一行的熵是 0.42。\n",
])
def test_a_false_row_entropy_of_the_heatmap_is_still_flagged_in_zh_punctuation(text):
    msgs = [f["message"] for f in _grade(text)["flags"] if f["kind"] == "figure"]
    assert len(msgs) == 1 and "“" in msgs[0]["zh"] and "0.97，0.83 nats" in msgs[0]["zh"]


# --- lower: an overclaim named to reject it is no premise -----------------------------------------------------------

@pytest.mark.parametrize("text", [
    EN.split(" q1 attends")[0] + "\nq1 attends most to k2 (0.67), so one might think k2 matters most, but the heatmap cannot show that.\n",
    "我的热力图：每一行是一个 query，每一列是一个 key，行和为 1。\n"
    "q1 最关注 k2（0.67），有人会说这证明 k2 最重要，但这张图证明不了这一点。\n",
])
def test_a_reading_beside_an_overclaim_others_might_draw_is_no_premise(text):
    fr = items(_grade(text))["figure_reading"]
    # credited (round 37: "the heatmap cannot show that" now rejects the overclaim too: test_audit_round37.py)
    assert "ground of an overclaim" not in fr["feedback"]["en"] and "过度解读的依据" not in fr["feedback"]["zh"]
    assert "a row is how one query spends" not in fr["feedback"]["en"]


@pytest.mark.parametrize("text", [
    EN.split(" q1 attends")[0] + "\nq1 attends most to k2 (0.67); some would say this proves k2 matters most, but that is an overinterpretation.\n",
    "我的热力图：每一行是一个 query，每一列是一个 key，行和为 1。\nq1 最关注 k2（0.67），有人会说这证明 k2 最重要，但这是过度解读。\n",
])
def test_an_overclaim_others_might_draw_called_an_overinterpretation_is_no_overclaim(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["figure_reading"]["points"] >= 2
