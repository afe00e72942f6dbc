"""Round 34 on the audit: evidence, not words (44 new audits in zh, en and mixed; md, a PDF and a notebook).

Each audit is graded with the lab's heatmap (viridis, or Blues where the text reads a Blues figure) and the weights the
student's code computes. A false audit scores at most what a TA gives it, an honest one at least.

Found and fixed this round (each test below fails before the fix):
1. A plan with a derivation earned the experiments in full (9 of 15 for an audit that ran nothing): "For experiment A I
   will compare the entropy ...: the entropy should fall from about 1.05 to 0.12", 熵应该从约 1.05 降到 0.12. A result a
   plan foretells is no observed result (grade._foretold; reason `foretold`, zh/en), one reported after "so I set k2 to
   -inf: its weight became 0.0" still is. Likewise a result on a to-do list ("- [ ] Experiment A: ..."), under a goal
   or 将, and a metric value the student predicts ("I expect max_abs_error = 1e-7", 应该是 1e-7, parity 2 -> 0;
   grade._predicted); a value measured after a hedged threshold ("max_abs_error 应该小于 1e-5，实测为 2.6e-7") was
   unasserted as a whole: the hedge is read in the value's own clause.
2. What the student's own plan says will happen ("I will add two padding keys; ... the rows will still sum to 1", 我会
   加两个 padding key；……它们的权重会是 0.0) earned the reading and the mask audit as stated (grade._future_at, reason
   `planned`); "a masked key will get weight 0" without a plan of the student's keeps its credit.
3. A contraction typed without its apostrophe ("this dont mean k2 cause the answer", "cant say in general") was read
   as an affirmation: the honest caveat was flagged as an overclaim and a weak writer's audit scored 2 (text.normalise);
   "one example so I can't say in general" was no generalisation caveat (audit.yaml not_general). 2 -> 6.5, its zh twin's
   score; with "q1 look most at k2" / q1 看 k2 最多 read as the query's row (audit.yaml reading_budget), 7.5 both.
4. Open in round 33: "brightest" between a query and its key ("q0's brightest cell is k1", q0 最亮的格子是 k1) was read
   as the peak whatever the colormap; on Blues the brightest cell is the least weight, so the colour read backwards
   was not flagged (grade._cell_claims reads it by the figure's low end, as other colour words).
5. A diagonal read with its cells as pairs ("the main diagonal, (q0, k0) and (q1, k1), are the brightest", 主对角线上的
   (q0, k0) 和 (q1, k1) 最亮) was not read: the pairs' commas ended it (grade._DIAGONAL).
6. max_abs_error followed by the reference named as the handout names it ("max_abs_error against
   scaled_dot_product_attention = 2.6e-7") lost its value: the name made the gap too long (claims._CODE_NAME).
7. A key said to be the output's cause ("k2 is the cause of q1's output", k2 是 q1 输出的原因) and an English
   superlative after 是 ("所以 k0 是 most important feature") were no overclaim; denied, 不能说明 k2 是 q1 输出的原因 is now
   the causal caveat (audit.yaml overclaim patterns, not_causal phrases)."""

from __future__ import annotations

import json

import pytest

from grading.inputs import extract_audit
from rubric.audit import grade_audit
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    items,
    kinds,
    make_cmap_heatmap,
    make_heatmap,
    make_pdf,
    misreads_a_cell,
)

_FIGURES = {"mpl": make_heatmap, "blues": lambda: make_cmap_heatmap(EXAMPLE_WEIGHTS, "Blues")}
_CACHE: dict[str, bytes] = {}


def figure(name: str) -> bytes:
    if name not in _CACHE:
        _CACHE[name] = _FIGURES[name]()
    return _CACHE[name]


def notebook(cells: list[dict]) -> bytes:
    """A Jupyter notebook saved under .md, as students upload them."""
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _pdf_text(lines: list[str]) -> str:
    return extract_audit("audit.pdf", make_pdf(lines))


def _nb_text(cells: list[dict]) -> str:
    return extract_audit("audit.md", notebook(cells))


# ------------------------------------------------------------------ the corpus
# (text, figure, bound): a false audit scores at most its bound, an honest one at least its bound (of 15).

FALSE = {
    'causality_confident_en': ("My heatmap: rows are queries q0, q1 and columns are keys k0, k1, k2.\nq1 puts 0.67 on k2.\nThese attention weights prove that k2 causes q1's output.\nThe heatmap shows the model understands that k2 is the most important token.\n", 'mpl', 3),
    'causality_confident_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0、k1、k2）。\nq1 给 k2 的权重是 0.67。\n这些注意力权重证明了 k2 导致了 q1 的输出。\n热力图说明模型理解了 k2 是最重要的 token。\n", 'mpl', 3),
    'understands_mixed': ("这张 heatmap 清楚地 shows 模型 understands 了输入的结构。\nq1 最关注 k2（0.67），说明 model 知道 k2 最 important。\nattention weights 就是 feature importance，可以直接用来解释 prediction。\n", 'mpl', 2),
    'brightest_blues_en': ("My heatmap uses the Blues colormap: rows are queries q0, q1, columns keys k0-k2.\nq0's brightest cell is k1 and q1's brightest cell is k2, so those are the keys each query reads most.\nEach row sums to 1. The weights are not a causal effect.\n", 'blues', 5),
    'brightest_blues_zh': ("我的热力图用的是 Blues 配色：行是 query（q0、q1），列是 key（k0-k2）。\nq0 最亮的格子是 k1，q1 最亮的格子是 k2，所以这两个 key 是各自读得最多的。\n每行和为 1。权重不是因果效应。\n", 'blues', 5),
    'lighter_is_more_blues_en': ("My heatmap (Blues): rows are queries q0, q1, columns keys k0-k2.\nThe lighter the cell, the larger the weight: k0 is the lightest in both rows, so every query reads k0 most.\nEach row sums to 1. This is not causal.\n", 'blues', 5),
    'diagonal_self_en': ("My heatmap: rows are queries q0, q1, columns are keys k0, k1, k2.\nThe cells on the main diagonal, (q0, k0) and (q1, k1), are the brightest, so each token attends to itself.\nEach row sums to 1. Not causal.\n", 'mpl', 5),
    'diagonal_self_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0、k1、k2）。\n主对角线上的 (q0, k0) 和 (q1, k1) 最亮，说明每个 token 都在关注自己。\n每行和为 1。不是因果。\n", 'mpl', 5),
    # the row sums denied with invented sums: the denial earns nothing and is flagged (round 34b); the axes and the caveat stay
    'rows_not_one_en': ("My heatmap: rows are queries q0, q1, columns are keys k0, k1, k2.\nThe rows do not sum to 1: q0's row sums to 1.3 and q1's to 0.8, because the colour scale is not normalised.\nA high weight is not a causal effect.\n", 'mpl', 5.5),
    'rows_not_one_zh': ("我的热力图：行是 query，列是 key。\n每行加起来并不等于 1：q0 那行是 1.3，q1 那行是 0.8，因为颜色没有归一化。\n高权重不代表因果。\n", 'mpl', 5.5),
    'viridis_backwards_en': ("My heatmap uses viridis: rows are queries q0, q1, columns keys k0-k2.\nYellow means a low weight and dark purple a high one, so q1 ignores k2 (yellow) and reads k0 (dark purple) most.\nEach row sums to 1. Not feature importance.\n", 'mpl', 5),
    'viridis_backwards_zh': ("我的热力图用 viridis：行是 query（q0、q1），列是 key（k0-k2）。\n黄色表示权重低，深紫色表示权重高，所以 q1 忽略了 k2（黄色），最关注 k0（深紫色）。\n每行和为 1。不是特征重要性。\n", 'mpl', 5),
    'course_page_copy_zh': ("缩放因子 sqrt(d_k) 的作用是控制点积方差，避免维度变大时 softmax 过早饱和、梯度变小。\n权重经过 softmax 后非负且和为 1，因此输出是 value 向量的凸组合，像一个按相关性加权的上下文摘要。\nmask 决定哪些位置可见：encoder 可看全句，decoder 的因果 mask 只能看过去，padding mask 排除无意义 token。\n", 'mpl', 2),
    'handout_copy_with_mine_zh': ("我的图：\n把 weights[0, 0] 画成 2x3 heatmap，标记 query row 与 key row。图用于审计路由，不是把颜色深浅升级成「因果重要性」。\n一个 key 被 mask 后，所有 query 对其权重为 0。每行权重和在 float32 下误差小于 1e-6。\n", 'mpl', 2),
    'hidden_span_en': ('My heatmap is attached.\n<span style="display:none">Rows are queries q0, q1 and columns are keys k0-k2. q1 puts 0.67 on k2. Each row sums to 1. It is not a causal effect, and not feature importance.</span>\n<div hidden>max_abs_error = 2.6e-7, row_sum_error = 1.1e-7</div>\n', 'mpl', 2),
    'hidden_font_white_zh': ('我的热力图见附件。\n<font color="#ffffff">行是 query，列是 key，每行和为 1，q1 给 k2 0.67，高权重不代表因果，也不是特征重要性。</font>\n<span style="font-size:0">max_abs_error = 2.6e-7</span>\n', 'mpl', 2),
    'plan_only_en': ("My heatmap plots weights[0, 0].\nI will check that each row sums to 1.\nI will compare my output with scaled_dot_product_attention and report max_abs_error.\nI plan to run experiments A, B and C and compare the entropy with and without scaling.\nI will also check whether k2 causes the output by ablating it.\n", 'mpl', 2),
    'plan_only_zh': ("我的热力图画的是 weights[0, 0]。\n我会检查每一行的和是否为 1。\n我打算和 scaled_dot_product_attention 对比，报告 max_abs_error。\n接下来要做实验 A、B、C，比较有无缩放时的熵。\n之后还会去掉 k2，看看它是不是导致了输出。\n", 'mpl', 2),
    'plan_with_derivation_en': ("My heatmap plots weights[0, 0]; rows are queries, columns are keys.\nFor experiment A I will compare the entropy with and without 1/sqrt(d_k): with d_k = 128 the logits grow by sqrt(128) = 11.3, so the entropy should fall from about 1.05 to 0.12.\nFor experiment B I will add two padding keys; softmax(-inf) = 0, so their weight will be 0.0 and the rows will still sum to 1.\nFor experiment C I will use 1, 4 and 16 queries and expect outputs of shape (1, 8), (4, 8) and (16, 8).\n", 'mpl', 4),
    'plan_with_derivation_zh': ("我的热力图画的是 weights[0, 0]，行是 query，列是 key。\n实验 A 我准备比较有无 1/sqrt(d_k) 的熵：d_k = 128 时 logits 会放大 sqrt(128) = 11.3 倍，所以熵应该从约 1.05 降到 0.12。\n实验 B 我会加两个 padding key；softmax(-inf) = 0，所以它们的权重会是 0.0，每行仍然和为 1。\n实验 C 打算用 1、4、16 个 query，预计输出形状是 (1, 8)、(4, 8)、(16, 8)。\n", 'mpl', 4),
    # "So q0 reads k0 most, with 0.74" is read as a cell since round 34b (false: the reading loses its points)
    'derivation_invented_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2.\nDerivation: q0 . k0 = 3.2, q0 . k1 = 1.1, q0 . k2 = 0.4; divided by sqrt(2) and passed through softmax this gives q0 = [0.74, 0.18, 0.08], which is what my heatmap shows.\nSo q0 reads k0 most, with 0.74.\nEach row sums to 1. Not causal.\n", 'mpl', 6),
    'derivation_invented_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2）。\n推导：q0·k0 = 3.2，q0·k1 = 1.1，q0·k2 = 0.4，除以 sqrt(2) 再做 softmax 得到 q0 = [0.74, 0.18, 0.08]，正是我图里显示的。\n所以 q0 最关注 k0，权重 0.74。\n每行和为 1。不是因果。\n", 'mpl', 5),
    # keywords under a "cannot prove" heading are bare caveats: half the limits item, as "- not causal" bullets (round 34b)
    'caveat_headings_empty_en': ("## What my heatmap cannot prove\n- causality\n- feature importance\n- the true mechanism\n- generalisation\n- other heads\n", 'mpl', 4),
    'caveat_headings_empty_zh': ("## 我的热力图不能证明什么\n- 因果\n- 特征重要性\n- 真实机制\n- 泛化\n- 其他 head\n", 'mpl', 4),
    'caveats_etc_en': ("Limitations of my heatmap: causality, importance, mechanism, generalisation, etc.\nThere are many caveats, as usual with attention.\n", 'mpl', 2),
    'false_translated_en': ("My heatmap: the columns are the queries and the rows are the keys.\nEach column sums to 1, which shows softmax ran over the right axis.\nk0 receives the most attention overall, so k0 is the most important feature.\n", 'mpl', 2),
    'false_translated_zh': ("我的热力图：列是 query，行是 key。\n每一列加起来等于 1，说明 softmax 的轴是对的。\nk0 总体上得到的注意力最多，所以 k0 是最重要的特征。\n", 'mpl', 2),
    'false_translated_mixed': ("我的 heatmap：columns 是 queries，rows 是 keys。\n每个 column sum to 1，说明 softmax axis 是对的。\nk0 得到最多 attention，所以 k0 是 most important feature。\n", 'mpl', 2),
    'numbers_rounded_wrong_en': ("My heatmap: rows = queries q0, q1; cols = keys k0-k2.\nq0 reads k1 with 0.85 and q1 reads k2 with 0.95: each query is almost one-hot.\nRows sum to 1. Not causal.\n", 'mpl', 3),
    'sharpness_claim_zh': ("我的热力图：行是 query，列是 key。\n每一行几乎是 one-hot：q0 把 0.95 给了 k1，q1 把 0.97 给了 k2。\n每行和为 1，权重高不代表因果。\n", 'mpl', 3),
    'stuffed_pdf_en': (_pdf_text([
        "Audit of my attention heatmap.",
        "The heatmap proves that the model understands which key matters most.",
        "Rows queries columns keys row sums one masked zero causality importance mechanism parity entropy padding",
        "q0 attends mostly to k0 (0.71) and q1 to k1 (0.80)."]), 'mpl', 2),
    # the keywords in a code cell's comments; its one number agrees with the grader's measurement (unrefutable)
    'stuffed_notebook_en': (_nb_text([
        {"cell_type": "markdown", "source": ["# Audit\n", "My heatmap shows that attention weights explain the prediction: k2 is the cause of q1's output."]},
        {"cell_type": "code", "outputs": [], "source": [
            "# rows are queries, columns are keys, each row sums to 1, masked keys get 0\n",
            "# not causal, not feature importance, max_abs_error 2.6e-7\n", "plt.imshow(w)"]}]), 'mpl', 3),
}
HONEST = {
    'weak_writer_en': ("the picture has 2 row for the 2 querys and 3 column for the keys. every row add to 1.\nq1 look most at k2, it is 0.67, and q0 look most at k1 (0.58).\nbut this dont mean k2 cause the answer, we would need to remove k2 and see. also only one example so cant say in general.\n", 'mpl', 7.5),
    'weak_writer_zh': ("图有两行是两个 query，三列是三个 key，每行加起来是 1。\nq1 看 k2 最多，是 0.67，q0 看 k1 最多（0.58）。\n但这不能说明 k2 导致了结果，要把 k2 去掉再看才知道。而且只有一个例子，不能推广。\n", 'mpl', 7.5),
    'weak_writer_mixed': ("我的图 rows 是 query，columns 是 key，每行 sum 是 1。\nq1 最看重 k2（0.67）。\n但是这个不能说 k2 是 cause，需要 ablation 才知道；也不是 feature importance。\n", 'mpl', 6.5),
    'terse_no_apostrophes_en': ("rows=queries, cols=keys, rows sum to 1. q1 -> k2 (0.67). doesnt prove k2 causes output, isnt feature importance.\n", 'mpl', 6.5),
    'blues_dark_correct_en': ("My heatmap uses Blues, where darker means more weight. Rows are queries q0, q1; columns keys k0-k2.\nq1's darkest cell is k2 (0.67) and q0's is k1 (0.58). Each row sums to 1.\nThis does not show that k2 causes q1's output, and it is not feature importance.\n", 'blues', 7),
    'blues_dark_correct_zh': ("我的热力图用 Blues 配色，颜色越深权重越大。行是 query（q0、q1），列是 key（k0-k2）。\nq1 最深的格子是 k2（0.67），q0 是 k1（0.58）。每行和为 1。\n这不能说明 k2 导致了 q1 的输出，也不是特征重要性。\n", 'blues', 7),
    'blues_lightest_correct_en': ("My heatmap uses Blues: rows are queries q0, q1; columns keys k0-k2. Each row sums to 1.\nq1's lightest cell is k0 (0.09) and its darkest is k2 (0.67).\nA dark cell does not show that the key causes the output.\n", 'blues', 5.5),
    'results_short_en': ("Heatmap: rows = queries q0, q1, cols = keys k0-k2, each row sums to 1; q1 reads k2 most (0.67).\nmax_abs_error vs SDPA = 2.6e-7, row_sum_error = 1.1e-7; with k2 set to -inf its weight was 0.0 for both queries.\nExp A: entropy at d_k=128 went from 1.04 (scaled) to 0.15 (unscaled).\nIt does not prove k2 causes the output: that needs an ablation. One example only.\n", 'mpl', 10.5),
    'honest_pdf_en': (_pdf_text([
        "My heatmap plots weights[0, 0]: rows are queries q0, q1 and columns are keys k0, k1, k2.",
        "q0 puts most weight on k1 (0.58) and q1 on k2 (0.67). Each row sums to 1.",
        "max_abs_error against scaled_dot_product_attention = 2.6e-7; row_sum_error = 1.1e-7.",
        "The figure does not show that k2 causes q1's output; only an ablation could. It is one example."]), 'mpl', 8),
    'honest_notebook_en': (_nb_text([
        {"cell_type": "markdown", "source": ["## Audit\n", "Rows of my heatmap are queries q0, q1, columns keys k0-k2; each row sums to 1. q1 reads k2 most (0.67).\n"]},
        {"cell_type": "code", "source": ["print(max_abs_error, row_sum_error)"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2.6e-07 1.1e-07\n"]}]},
        {"cell_type": "markdown", "source": ["max_abs_error = 2.6e-7 and row_sum_error = 1.1e-7 (printed above).\n",
                                             "A high weight on k2 is not evidence that k2 causes the output; I would need to ablate k2. It is also not feature importance."]}]), 'mpl', 9),
    'plan_then_result_en': ("My heatmap: rows are queries q0, q1; columns keys k0-k2; each row sums to 1.\nI planned to check the mask, so I set k2 to -inf: its weight became 0.0 in both rows and the rows still summed to 1.\nThe heatmap cannot show a causal effect; that would need an ablation.\n", 'mpl', 7),
    'plan_then_result_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2），每行和为 1。\n我打算检查 mask，于是把 k2 设为 -inf：两行里它的权重都变成了 0.0，每行仍然和为 1。\n这张图不能说明因果，那需要做消融。\n", 'mpl', 7),
}


def grade(text: str, fig: str = "mpl") -> dict:
    return grade_audit(text, figure(fig), MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


@pytest.fixture(autouse=True, scope="module")
def _checklist(checklist):
    global CHECKLIST
    CHECKLIST = checklist


CHECKLIST = None


def _points(r: dict) -> list[tuple[str, float]]:
    return [(it["id"], it["points"]) for it in r["items"]]


def test_the_corpus_is_large_and_bilingual():
    assert len(FALSE) + len(HONEST) >= 30
    for corpus in (FALSE, HONEST):
        assert any("_zh" in n for n in corpus) and any("_en" in n for n in corpus)


@pytest.mark.parametrize("name", list(FALSE))
def test_a_false_audit_scores_no_more_than_a_ta_gives(name):
    text, fig, ceiling = FALSE[name]
    r = grade(text, fig)
    assert r["score"] <= ceiling, (r["score"], _points(r), kinds(r))


@pytest.mark.parametrize("name", list(HONEST))
def test_an_honest_audit_scores_at_least_what_a_ta_gives(name):
    text, fig, floor = HONEST[name]
    r = grade(text, fig)
    assert r["score"] >= floor and "overclaim" not in kinds(r), (r["score"], _points(r), kinds(r))


@pytest.mark.parametrize("name", list(HONEST))
def test_each_item_an_honest_audit_misses_says_why_in_both_languages(name):
    text, fig, _ = HONEST[name]
    for it in grade(text, fig)["items"]:
        if it["points"] < it["max_points"]:
            assert it["feedback"]["en"].strip() and any("\u4e00" <= ch <= "\u9fff" for ch in it["feedback"]["zh"]), it["id"]


# ------------------------------------------------------------------ 1. results a plan foretells

@pytest.mark.parametrize("text", [
    "For experiment A I will compare the entropy with and without 1/sqrt(d_k): with d_k = 128 the entropy should fall from about 1.05 to 0.12.",
    "Experiment A: I expect the entropy to drop from 1.05 to 0.12 without the scaling.",
    "实验 A 我准备比较有无 1/sqrt(d_k) 的熵：d_k = 128 时熵应该从约 1.05 降到 0.12。",
    "实验 A：预计不缩放时熵会从 1.05 降到 0.12。",
])
def test_an_experiment_result_a_plan_foretells_earns_nothing_and_says_so(text):
    """Before: experiment A credited (1 point), the predicted numbers read as its result; after: 0, "foretold"."""
    it = items(grade(text + "\n"))["experiments"]
    assert it["points"] == 0, it["feedback"]["en"]
    assert "plan or a prediction" in it["feedback"]["en"] and "计划或预测" in it["feedback"]["zh"], it["feedback"]


@pytest.mark.parametrize("text", [
    "Experiment A: without 1/sqrt(d_k) the entropy fell from 1.05 to 0.12 at d_k = 128.",
    "For experiment A I planned to compare the entropy, so I ran it: at d_k = 128 it fell from 1.05 to 0.12.",
    "Experiment A: I expected a sharper softmax; I got an entropy of 0.12 without scaling against 1.05 with it.",
    "实验 A：我打算比较熵，结果不缩放时熵从 1.05 降到了 0.12。",
])
def test_an_experiment_result_reported_after_its_plan_still_counts(text):
    assert items(grade(text + "\n"))["experiments"]["points"] >= 1


@pytest.mark.parametrize("text", [
    "- [ ] Experiment A: entropy 1.05 -> 0.12 without scaling",
    "Goal of experiment A: show that the entropy drops from 1.05 to 0.12 without scaling.",
    "| experiment | status | result |\n|---|---|---|\n| A | to do | entropy 1.05 -> 0.12 |",
    "实验 A：将比较有无缩放时的熵，熵将从 1.05 降到 0.12。",
])
def test_a_result_on_a_to_do_list_or_a_goal_is_foretold(text):
    """Before: experiment A credited; after: 0 (an unticked box, a goal, a row "to do", 将 are plans)."""
    assert items(grade(text + "\n"))["experiments"]["points"] == 0


@pytest.mark.parametrize("text", ["- [x] Experiment A: entropy 1.05 -> 0.12 without scaling",
                                  "The goal of experiment A was to compare the entropy; it fell from 1.05 to 0.12 without scaling.",
                                  "实验 A：我将 d_k 设为 128，不缩放时熵从 1.05 降到 0.12。"])
def test_a_result_reported_beside_a_goal_or_a_ticked_box_counts(text):
    assert items(grade(text + "\n"))["experiments"]["points"] >= 1


@pytest.mark.parametrize("text", [
    "I expect max_abs_error = 1e-7 and row_sum_error = 1e-8 once I run the comparison.",
    "等我跑完对比，max_abs_error 应该是 1e-7，row_sum_error 预计是 1e-8。",
    "Once the comparison runs, max_abs_error should be 1e-7 and row_sum_error should be 1e-8.",
])
def test_a_metric_value_predicted_earns_nothing_and_says_so(text):
    """Before: parity 2 (en) / 1 (zh), the predicted values read as measured; after: 0, "prediction"."""
    it = items(grade(text + "\n"))["parity"]
    assert it["points"] == 0, it["feedback"]["en"]
    assert "plan or a prediction" in it["feedback"]["en"] and "计划或预测" in it["feedback"]["zh"], it["feedback"]


@pytest.mark.parametrize("text", ["max_abs_error should be below 1e-5 and is 2.6e-7.",
                                  "I wanted to check parity: max_abs_error = 2.6e-7.",
                                  "I expected a larger error, but I measured max_abs_error = 2.6e-7.",
                                  "max_abs_error 应该小于 1e-5，实测为 2.6e-7。"])
def test_a_measured_metric_value_beside_an_expectation_counts(text):
    assert items(grade(text + "\n"))["parity"]["points"] >= 1


# ------------------------------------------------------------------ 2. what the student's plan says will happen

@pytest.mark.parametrize("text", [
    "For experiment B I will add two padding keys; their weight will be 0.0 and the rows will still sum to 1.",
    "I'm going to mask k2 next, and then every row will still sum to 1 and the masked key will get weight 0.",
    "实验 B 我会加两个 padding key，它们的权重会是 0.0，每行仍然会和为 1。",
])
def test_what_the_students_plan_will_show_earns_no_reading(text):
    """Before: the row sums and the masked key credited as readings (figure_reading 2); after: 0, "planned"."""
    it = items(grade(text + "\n"))["figure_reading"]
    assert it["points"] == 0, it["feedback"]["en"]
    assert "what you will do" in it["feedback"]["en"] and "打算怎样" in it["feedback"]["zh"]


@pytest.mark.parametrize("text", ["In my heatmap a masked key will get weight 0 in every row.",
                                  "Each row of my heatmap will sum to 1, because softmax normalises over the keys.",
                                  "我的热力图里被 mask 的 key 在每一行都会是 0。"])
def test_a_fact_said_in_the_future_without_a_plan_keeps_its_credit(text):
    assert items(grade(text + "\n"))["figure_reading"]["points"] > 0


# ------------------------------------------------------------------ 3. contractions without their apostrophe

@pytest.mark.parametrize("text", [
    "But this dont mean k2 cause the answer, we would need to remove k2 and see.",
    "The weight on k2 doesnt mean k2 causes the output.",
    "A high weight isnt a causal effect: it would need an ablation.",
    "My heatmap cant prove that k2 causes q1's output.",
])
def test_a_negation_typed_without_its_apostrophe_is_a_caveat_not_an_overclaim(text):
    """Before: flagged "overclaim" (2 points off) and no caveat; after: the causal caveat, no flag."""
    r = grade(text + "\n")
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (kinds(r), _points(r))


@pytest.mark.parametrize("text", ["also only one example so cant say in general.",
                                  "It is only one example, so I can't say anything in general about other inputs."])
def test_one_example_said_not_to_speak_in_general_is_the_generalisation_caveat(text):
    """Before: "mentioned, but not stated as something the figure cannot prove" (0); after: credited (1)."""
    it = items(grade(text + "\n"))["limits"]
    assert it["points"] >= 1, it["feedback"]["en"]


@pytest.mark.parametrize("text", ["In my heatmap q1 look most at k2, it is 0.67.", "In my heatmap q0 looks mostly at k1 (0.58).",
                                  "我的热力图里 q1 看 k2 最多，是 0.67。", "我的热力图里 q1 主要看 k2（0.67）。"])
def test_a_query_said_to_look_most_at_a_key_reads_its_row(text):
    """Before: "a row is how one query spends its reading budget: not found"; after: credited."""
    fb = items(grade(text + "\n"))["figure_reading"]["feedback"]["en"]
    assert "reading budget: not found" not in fb and "reading budget;" not in fb, fb


@pytest.mark.parametrize("text", ["In my heatmap q1 looks bright at k2.", "我的热力图里 q1 看起来最多是 0.67。"])
def test_a_look_that_is_no_query_reading_its_keys_is_not_the_reading_budget(text):
    assert items(grade(text + "\n"))["figure_reading"]["points"] == 0


# ------------------------------------------------------------------ 4. "brightest" by the colormap

@pytest.mark.parametrize("sentence", ["q0's brightest cell is k1.", "In q0's row the brightest cell is k1.",
                                      "q0 最亮的格子是 k1。", "q1 的最亮的是 k2。"])
def test_brightest_read_as_the_peak_on_blues_is_flagged(sentence):
    """On Blues the brightest cell is the least weight: k1 is q0's darkest. Before: not flagged; after: flagged."""
    assert misreads_a_cell(sentence, CHECKLIST, figure("blues"))


@pytest.mark.parametrize("sentence, fig", [("q0's brightest cell is k0.", "blues"), ("q1 的最亮的格子是 k0。", "blues"),
                                           ("q0's brightest cell is k1.", "mpl"), ("q1 最亮的是 k2。", "mpl"),
                                           ("q1's darkest cell is k2.", "blues")])
def test_brightest_and_darkest_true_of_the_colormap_are_not_flagged(sentence, fig):
    assert not misreads_a_cell(sentence, CHECKLIST, figure(fig))


# ------------------------------------------------------------------ 5. a diagonal read with its cells as pairs

@pytest.mark.parametrize("sentence", [
    "The cells on the main diagonal, (q0, k0) and (q1, k1), are the brightest.",
    "The diagonal (q0, k0), (q1, k1) is the brightest part of my heatmap.",
    "主对角线上的 (q0, k0) 和 (q1, k1) 最亮。",
])
def test_a_diagonal_named_by_its_cell_pairs_is_checked(sentence):
    assert misreads_a_cell(sentence, CHECKLIST, figure("mpl"))


# ------------------------------------------------------------------ 6. the reference named between a metric and its value

@pytest.mark.parametrize("text", [
    "max_abs_error against scaled_dot_product_attention = 2.6e-7.",
    "max_abs_error (against scaled_dot_product_attention) = 2.6e-7.",
    "max_abs_error vs torch.nn.functional.scaled_dot_product_attention = 2.6e-7.",
    "max_abs_error 相对 scaled_dot_product_attention 为 2.6e-7。",
])
def test_a_metric_value_after_the_reference_function_is_read(text):
    """Before: "max_abs_error with its value" not credited (parity 0.5); after: credited (1.5)."""
    assert items(grade(text + "\n"))["parity"]["points"] >= 1.5


def test_a_wrong_metric_value_after_the_reference_function_is_contradicted():
    r = grade_audit("max_abs_error against scaled_dot_product_attention = 2.6e-7.\n", figure("mpl"),
                    {"max_abs_error": 0.031, "row_sum_error": 1.1e-7}, CHECKLIST, weights=EXAMPLE_WEIGHTS)
    assert items(r)["parity"]["points"] == 0


# ------------------------------------------------------------------ 7. a key as the output's cause

@pytest.mark.parametrize("text", [
    "In my heatmap k2 is the cause of q1's output.",
    "My heatmap shows k2 is the main reason for q1's prediction.",
    "k2 是 q1 输出的原因。",
    "所以 k0 是 most important feature。",
])
def test_a_key_said_to_cause_the_output_is_an_overclaim(text):
    assert "overclaim" in kinds(grade(text + "\n"))


@pytest.mark.parametrize("text", [
    "My heatmap cannot show that k2 is the cause of q1's output.",
    "这张图不能说明 k2 是 q1 输出的原因。",
    "k0 不是 most important feature，高权重不等于重要性。",
])
def test_the_same_denied_is_a_caveat(text):
    r = grade(text + "\n")
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (kinds(r), _points(r))


# ------------------------------------------------------------------ review of round 34: results after a plan word
@pytest.mark.parametrize("text, item", [
    ("Here I will report my parity check: max_abs_error = 2.6e-7 and row_sum_error = 1.1e-7.", "parity"),
    ("In this section I will report experiment A: without 1/sqrt(d_k) the entropy fell from 1.05 to 0.12.",
     "experiments"),
    ("下面我会报告实验 A：不缩放时熵从 1.05 降到了 0.12。", "experiments"),
    ("I wanted to see what scaling does in experiment A: without 1/sqrt(d_k) the entropy fell from 1.05 to 0.12.",
     "experiments"),
    ("In experiment A the entropy was expected to drop, but it fell from 1.05 to 0.12 without scaling.", "experiments"),
    ("Experiment A (it may surprise you): without scaling the entropy fell from 1.05 to 0.12.", "experiments"),
    ("实验 A：我本来以为熵不会变，但不缩放时熵从 1.05 降到了 0.12。", "experiments"),
])
def test_a_result_reported_after_a_plan_word_is_a_result_not_a_plan(text, item):
    """A report announced ("I will report ...:"), a past wish or expectation, "but" / 但 and a verb of what happened
    (fell, 降到了) after the plan word: each states what was seen. Round 34 read them as foretold and told the
    student to "run it" (parity 2 -> 0, experiment A 1 -> 0)."""
    it = items(grade(text + "\n"))[item]
    assert it["points"] >= 1, it["feedback"]["en"]
    assert "plan or a prediction" not in it["feedback"]["en"], it["feedback"]


@pytest.mark.parametrize("text", [
    "Experiment A: I hope the entropy falls from 1.05 to 0.12 without the scaling.",
    "Experiment A: without the scaling the entropy might fall from 1.05 to 0.12.",
    "Experiment A: without the scaling the entropy may drop from 1.05 to 0.12.",
    "Experiment A: I want the entropy to drop from 1.05 to 0.12 without the scaling.",
    "Experiment A should show: entropy 1.05 -> 0.12 without the scaling.",
    "Experiment A will show: entropy 1.05 -> 0.12 without the scaling.",
    "Here I report my predictions for experiment A: entropy 1.05 -> 0.12 without the scaling.",
    "Experiment A: by the end the entropy will have dropped from 1.05 to 0.12 without the scaling.",
    "Experiment A: I will check whether the entropy dropped from 1.05 to 0.12 without the scaling.",
    "实验 A：我希望，但愿不缩放时熵从 1.05 降到 0.12。",
])
def test_a_hope_a_possibility_or_a_question_is_still_foretold(text):
    """Review of round 34's narrowing: hopes, mays and mights, what an experiment "will show:", a report of
    predictions, "will have dropped" and "whether it dropped" state nothing seen."""
    assert items(grade(text + "\n"))["experiments"]["points"] == 0
