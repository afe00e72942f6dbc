"""Round 31 hunt: audits a real student would write (en, zh, mixed, traditional, LaTeX), each scored as a teaching
assistant would. Honest and specific: at least what the TA gives (the TA's score in the comment); the gaming and false
ones are in tests/audit/gaming (the corpus test holds them to at most 4 of 15).

Found by the hunt and fixed this round: the mask audit written of the figure's rows ("把 k2 mask 掉之后，k2 这一列在两行里
都是 0.0", "its column was 0.0 in both rows") was not found, since its phrases only knew "every query"; the rows of the
figure are its queries."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

FIGURE = make_heatmap()

HONEST = {
    # TA: 12-13 (no experiments): every reading true, caveats with their reasons, numbers
    "sections_en": ("## What my heatmap shows\nMy heatmap plots weights[0, 0] for the lab's 2x3 example: the rows are the queries q0 and q1, the columns are the keys k0, k1, k2.\nq0 puts most of its weight on k1 (0.58) and splits the rest evenly between k0 and k2 (0.21 each).\nq1 looks mostly at k2 (0.67); k0 gets only 0.09 from it.\nEach row sums to 1 because softmax normalises over the keys (dim=-1), so a row is how one query spends its reading budget.\n\n## What it cannot show\nA high weight is not a causal effect: to know whether k2 changes q1's output I would have to ablate k2 and compare outputs.\nIt is not feature importance either; the weights are the model's internal mixing coefficients, not the true mechanism.\nThis is one tiny example with one seed, so nothing here generalises to other inputs.\n\n## Numbers\nmax_abs_error(output) = 2.6e-7 against F.scaled_dot_product_attention, row_sum_error = 1.1e-7.\nWith the last key set to -inf, its weight was 0.0 for both queries and each row still summed to 1.\n", 11),
    "sections_zh": ('## 我的图能说明什么\n我的热力图画的是实验例子的 weights[0, 0]：每一行是一个 query（q0、q1），每一列是一个 key（k0、k1、k2）。\nq0 的权重主要落在 k1 上（0.58），k0 和 k2 各 0.21。\nq1 主要看 k2（0.67），给 k0 的只有 0.09。\n每一行加起来等于 1，因为 softmax 是沿 key 的维度（dim=-1）归一化的，一行就是一个 query 怎样分配它的注意力。\n\n## 不能说明什么\n权重高不等于因果效应：要知道 k2 是否改变了 q1 的输出，得把 k2 去掉再比较输出。\n它也不是特征重要性，这些权重只是模型内部的加权系数，不是真实机制。\n这只是一个很小的例子、一个随机种子，不能推广到别的输入。\n\n## 数值\n与 PyTorch 参考实现相比 max_abs_error = 2.6e-7，row_sum_error = 1.1e-7。\n把最后一个 key 设为 -inf 后，两个 query 给它的权重都是 0.0，每一行仍然加起来等于 1。\n', 11),
    # TA: 10: code-switched, short, each point specific
    "code_switched": ('我的 heatmap：rows 是 query q0/q1，columns 是 key k0-k2。\nq0 mostly attends to k1 (0.58)，q1 主要看 k2（0.67）。\nk2 gets the most attention overall（0.21 + 0.67 = 0.88）。\n每一行 sum 为 1（row_sum_error = 1.1e-7）；max_abs_error = 2.6e-7。\n但是 heatmap 不能证明 k2 导致了 q1 的输出，也不能说明 feature importance，只是一个小例子，不能推广。\n', 9),
    # TA: 8: terse bullets, true
    "terse_bullets_en": ("- my heatmap: rows = queries q0,q1; cols = keys k0..k2\n- q0 peaks at k1 (0.58), q1 at k2 (0.67)\n- rows sum to 1 (row_sum_error 1.1e-7)\n- not causal: would need to ablate k2\n- one example only, doesn't generalise\n", 6),
    # TA: 10: Taiwan's 列 for a row, 行 for a column
    "traditional_zh": ('我的熱力圖：每一列是一個 query（q0、q1），每一行是一個 key（k0、k1、k2）。\nq0 的權重主要在 k1（0.58），q1 主要在 k2（0.67）。\n每一列加總為 1，row_sum_error 為 1.1e-7，max_abs_error 為 2.6e-7。\n高權重不代表因果，也不是特徵重要性；只有一個例子，不能推廣。\n', 9),
    # TA: 9-10: the mask audit read in the figure's rows
    "masked_mixed": ('我的 heatmap（weights[0, 0]）：rows = queries q0, q1；columns = keys k0, k1, k2。\nq0 mostly reads k1 (0.58)；q1 mostly reads k2 (0.67)。\nExperiment B：把 k2 mask 掉之后，k2 这一列在两行里都是 0.0，每行仍然加起来等于 1（row sum 1.0000）。\n这张图不能证明 k1 或 k2 对输出有因果作用，要做 ablation；也不代表 feature importance。\n', 9),
    # TA: 8: LaTeX entries
    "latex_en": ("Figure: $A \\in \\mathbb{R}^{2\\times 3}$, rows are queries $q_0, q_1$, columns are keys $k_0, k_1, k_2$.\n$A_{0,1} = 0.58$ is q0's largest weight and $A_{1,2} = 0.67$ is q1's; $\\sum_j A_{ij} = 1$ for each row (row_sum_error $1.1\\times10^{-7}$).\nThe heatmap does not show that $k_2$ causes the output of $q_1$: that needs an intervention, and one example does not generalise.\n", 7),
}


@pytest.mark.parametrize("name", list(HONEST))
def test_an_honest_specific_audit_scores_as_a_ta_would(name, checklist):
    text, at_least = HONEST[name]
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert r["score"] >= at_least and not r["flags"], (r["score"], [(it["id"], it["points"]) for it in r["items"]],
                                                       r["flags"])


@pytest.mark.parametrize("sentence", [
    "After I masked k2, its column was 0.0 in both rows.",
    "Masking k2 with -inf gave it a weight of 0.0 in every row.",
    "把 k2 mask 掉之后，k2 这一列在两行里都是 0.0。",
    "把 k2 设成 -inf 以后，每一行里它的权重都是 0。",
])
def test_the_mask_audit_read_in_the_figures_rows_is_credited(sentence, checklist):
    """Before: not found (parity 0); after: the mask audit's point."""
    assert items(grade_audit(sentence, None, {}, checklist))["parity"]["points"] > 0


@pytest.mark.parametrize("sentence", [
    "Each row has one cell close to 0.",
    "每一行都有一个接近 0 的格子。",
    "After masking, each row still sums to 1.",
])
def test_a_row_near_zero_without_a_masked_key_read_as_zero_is_no_mask_audit(sentence, checklist):
    assert items(grade_audit(sentence, None, {}, checklist))["parity"]["points"] == 0
