"""Round 33 red team on the audit: the score follows the evidence, in zh and en.

A corpus of audits a TA would score low (false readings stated confidently, generic caveats, the handout paraphrased
or translated, keyword sentences, another figure, numbers that are not the weights, claims hidden in tables, headings,
alt text, code, comments, links and footnotes, invisible or look-alike characters, pinyin, padding, flipped
negations, questions, hedges) and honest ones a TA would score high (terse notes, own words, captions, mixed
languages, seaborn, a hand-labelled figure, rotated labels, a colour bar on the left, a dark theme, a JPEG). Each
bound is what the rubric's intent gives: the items an audit does not address (parity, experiments) are not counted
for it, and its feedback names them.

Found and fixed this round (each test below fails before the fix):
1. A false reading with a remark that it met an expectation ("the diagonal is bright, as expected", "..., as a
   self-attention should", 对角线最亮，符合预期) escaped the check of the cells it reads: the remark's plan words made
   the whole sentence a plan (grade._AS_EXPECTED).
2. A Markdown table answering its rows under "答案" / "Answer" / "True?" with 否 / no credited the rows' plain
   statements as stated ("| 行是 query | 否 |" earned the reading): the row is denied (text._Sentence.row_denied,
   audit.yaml cues.proof_header).
3. Left open in round 32: a reading hedged with seems / apparently / likely / 似乎 / 貌似 / 应该 earned it as stated;
   now it is unasserted, as "probably" is (not "looks" / 看起来, what a figure looks like is what it shows; not 应该
   with its reason, "每行和应该为 1，因为 softmax 沿 key 归一化").
4. A caveat followed by its reason after a colon ("It is not causal: that would need an ablation.", 不是因果：需要消融)
   earned nothing ("mentioned, but not stated as something the figure cannot prove"): the reason's warning cue and
   the negation cancelled as a double negation across the colon (text._cancel_stacked).
5. "高权重不代表因果" earned half of what "A high weight does not mean causality" earns (权重 was filler for the bare
   caveat rule, "weight" is not): a high weight named is what the caveat is about (grade._BARE_FILLER).
6. A terse zh note naming the queries and keys by label ("行 = q0、q1；列 = k0、k1、k2") was "too short" where its en twin
   ("rows = q0,q1; cols = k0..k2") counted, and neither was read as rows = queries (audit.yaml rows_queries; labels
   count towards a note's length, text._INDEX_LABEL).
7. The handout's warning restated as a rule on writing ("heatmap 中高权重不能写成 feature importance 或 causal effect",
   "不要把 high weight 写成 ...", "Do not write the high weights as ...") earned limits 3 of a 52-character audit: it is a
   requirement restated (audit.yaml cues.requirement).
8. A plotly export (large cells, a colour bar whose flat end, reduced, is a sliver beside them) was "not a heatmap":
   a sliver under a quarter of the cluster's median cell is left out when the rest tiles a grid (figure.SLIVER_SHARE).
9. A landscape photo saved as JPEG at quality 75 was "a 3×3 grid": pieces of a mountain's slanted side were rejoined
   as if cut by a value label into a half-filled "cell"; a rejoined cell now lacks at most the label's rows.
10. A heatmap JPEG with small cells was "a 2×2 grid" or "not a heatmap" (60-pixel cells at quality 10, 15 and 40; seaborn's
   50-pixel cells even at quality 90): the ringing of the JPEG block holding an edge set neighbouring cells further apart
   than the cells' gap allowed; the gap now allows a block (figure.JPEG_MCU) and is read. One too compressed to read
   still (60-pixel cells at quality 5, 40-pixel ones at 10-20) is told the file's quality, read from its quantisation
   tables, and asked for a PNG (figure.LOW_JPEG_QUALITY, feedback_low_quality_jpeg).
11. The causal caveat in the student's own words ("I'd have to remove k2 and see whether the output moves", 得把 k2 去掉看
   输出变不变, "I can't tell whether k2 actually matters for q1's result") was not found; a key named (k2) now also keeps
   a caveat from being bare (grade._bare_caveat)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

from rubric.audit import grade_audit
from rubric.audit.figure import analyse_figure
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    _viridis,
    colormap,
    items,
    kinds,
    make_bar_chart,
    make_cmap_heatmap,
    make_gridded_heatmap,
    make_heatmap,
    make_landscape,
    make_noise_photo,
    make_pie,
)

ZW = "\u200b"


def _png(im: Image.Image, fmt: str = "PNG", quality: int | None = None) -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **({"quality": quality} if quality else {}))
    return buf.getvalue()


def _lab_figure() -> Image.Image:
    return Image.open(io.BytesIO(make_heatmap())).convert("RGB")


def hand_labelled() -> bytes:
    """The lab's heatmap with pen strokes over its labels (a figure labelled by hand)."""
    im = _lab_figure()
    d = ImageDraw.Draw(im)
    for y in (80, 190):
        d.line([10, y, 25, y + 12, 15, y + 25], fill=(20, 20, 160), width=3)
    d.line([100, 270, 300, 272], fill=(20, 20, 160), width=2)
    return _png(im)


def rotated_labels() -> bytes:
    """The key labels drawn at 45 degrees (plt.xticks(rotation=45))."""
    im = _lab_figure()
    ImageDraw.Draw(im).rectangle([90, 262, 420, 310], fill="white")
    for c in range(3):
        t = Image.new("RGBA", (50, 14), (255, 255, 255, 0))
        ImageDraw.Draw(t).text((0, 0), f"key {c}", fill="black")
        t = t.rotate(45, expand=True)
        im.paste(t, (125 + c * 110, 265), t)
    return _png(im)


def colourbar_left() -> bytes:
    """The colour bar on the left of the grid (plt.colorbar(location="left"))."""
    im = _lab_figure()
    out = Image.new("RGB", (im.width + 60, im.height), "white")
    out.paste(im.crop((0, 0, 425, im.height)), (60, 0))
    d = ImageDraw.Draw(out)
    for y in range(220):
        d.line([15, 40 + y, 35, 40 + y], fill=_viridis(1 - y / 220))
    return _png(out)


def dark_theme() -> bytes:
    """plt.style.use("dark_background"): a dark page, light text and frame."""
    px = np.asarray(_lab_figure()).copy()
    white, black = (px == 255).all(axis=2), (px == 0).all(axis=2)
    px[white], px[black] = 30, 220
    return _png(Image.fromarray(px))


FIGURES = {
    "mpl": make_heatmap, "seaborn": lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS), "hand": hand_labelled,
    "rotated": rotated_labels, "cbar_left": colourbar_left, "dark": dark_theme,
    "blues": lambda: make_cmap_heatmap(EXAMPLE_WEIGHTS, "Blues"),
    "jpeg85": lambda: _png(_lab_figure(), "JPEG", 85),
    "other": lambda: make_heatmap([[0.6, 0.3, 0.1], [0.5, 0.4, 0.1]]),     # another matrix than the code's weights
}
_CACHE: dict[str, bytes] = {}


def figure(name: str) -> bytes:
    if name not in _CACHE:
        _CACHE[name] = FIGURES[name]()
    return _CACHE[name]


def grade(text: str, fig: bytes | None = None) -> dict:
    return grade_audit(text, figure("mpl") if fig is None else fig, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


def _points(r: dict) -> list[tuple[str, float]]:
    return [(it["id"], it["points"]) for it in r["items"]]


def assert_earns_nothing_saying(text: str, item: str, en: str, zh: str) -> None:
    """The item earns nothing for ``text`` and its feedback gives the reason in both languages."""
    it = items(grade(text + "\n"))[item]
    assert it["points"] == 0, it["feedback"]["en"]
    assert en in it["feedback"]["en"] and zh in it["feedback"]["zh"], it["feedback"]


# ------------------------------------------------------------------ the corpus
# (text, figure, bound): a false audit scores at most its bound, an honest one at least its bound (of 15).

FALSE = {
    'wrong_peaks_en': ('My heatmap plots weights[0,0]: rows are queries q0, q1, columns keys k0-k2.\nq0 puts almost all its weight on k0 (0.71) and q1 on k1 (0.80).\nEach row sums to 1. The weights are not causal effects, and one example does not generalise.\n', 'mpl', 6),
    'wrong_peaks_zh': ('我的热力图：每一行是一个 query（q0、q1），每一列是一个 key（k0、k1、k2）。\nq0 几乎把全部权重给了 k0（0.71），q1 主要看 k1（0.80）。\n每一行加起来等于 1。权重高不代表因果，一个例子不能推广。\n', 'mpl', 6),
    'diagonal_en': ('In my heatmap the diagonal is bright: q0 attends to k0 and q1 attends to k1, as a self-attention should.\nThe last column k2 is dark in both rows, so it is ignored.\nRows sum to 1. Not causal, not feature importance.\n', 'mpl', 5.5),
    'columns_sum_en': ('My figure: columns are queries and rows are keys. Each column sums to 1 because softmax runs over dim=-2.\nThe heatmap cannot prove causality and is not feature importance.\n', 'mpl', 6),
    'k2_zero_zh': ('图中 k2 这一列在两行里都是 0，说明 k2 被 mask 了。q0 和 q1 都只看 k1。\n这张图不能证明因果关系，也不是特征重要性。\n', 'mpl', 6),
    'generic_caveats_en': ('Attention is not explanation (Jain & Wallace, 2019). Attention weights can be manipulated without changing predictions.\nHigh attention does not imply high gradient-based importance. Multiple heads make interpretation harder.\nAttention weights are not causal effects and not feature importance, and they do not reveal the true mechanism.\n', 'mpl', 4),
    'generic_caveats_zh': ('注意力不是解释（Jain 和 Wallace，2019）。注意力权重可以被操纵而不改变预测。\n高注意力不意味着基于梯度的重要性高。多头注意力让解释更困难。\n注意力权重不是因果效应，也不是特征重要性，也不能揭示真实机制。\n', 'mpl', 4),
    'handout_syn_en': ("Submit one figure and one paragraph explaining what the picture can establish and what it cannot establish.\nDo not describe large attention weights as feature importance or as a causal effect.\nEvery row of the map is a query's distribution of its read budget across the keys, hence it totals one.\n", 'mpl', 4),
    'handout_reordered_zh': ('heatmap 中高权重不能写成 feature importance 或 causal effect，这是常见失败。\n被 mask 的 key 权重为 0，每行和为 1，行是 query 列是 key。\n', 'mpl', 4),
    'handout_translated_en': ('A common failure: writing the high weights of the attention heatmap as feature importance or causal effect.\nExit condition and scoring: submit a figure and a passage of text explaining what the figure can prove and what it cannot prove.\n', 'mpl', 4),
    'handout_mixed': ('提交一张 figure 和一段 text，explain 图中能 prove 什么、不能 prove 什么。\n不要把 attention heatmap 的 high weight 写成 feature importance 或 causal effect。\n', 'mpl', 4),
    'kw_sentence_en': ('My heatmap is about rows queries columns keys summing to one with masked zeros and reading budgets, and never causality or importance or mechanism.\n', 'mpl', 4),
    'kw_sentence_zh': ('我的图涉及行 query 列 key 行和为 1 mask 为 0 读取预算以及不是因果不是特征重要性不是真实机制。\n', 'mpl', 4),
    'other_figure_en': ('My figure is the training loss curve of the model. It drops from 2.3 to 0.4.\nRows are queries and columns are keys; each row sums to 1. The loss curve does not show causality.\n', 'mpl', 4),
    'other_figure_zh': ('我的图是验证集准确率曲线，准确率从 0.31 升到 0.88。\n行是 query，列是 key，每行和为 1。这条曲线不能证明因果。\n', 'mpl', 4),
    'numbers_wrong_en': ('My heatmap, rows q0 and q1, columns k0 k1 k2:\nq0: [0.50, 0.30, 0.20]\nq1: [0.10, 0.10, 0.80]\nEach row sums to 1. A large weight is not a causal effect.\n', 'mpl', 7),
    'numbers_wrong_zh': ('我的热力图，行是 q0、q1，列是 k0、k1、k2：\nq0 的权重是 0.50、0.30、0.20；q1 的权重是 0.10、0.10、0.80。\n每一行和为 1。权重大不是因果效应。\n', 'mpl', 7),
    'table_false_en': ("| claim | my heatmap |\n|---|---|\n| q0's largest weight | k0 (0.70) |\n| q1's largest weight | k1 (0.75) |\n| columns are | queries |\n| proves causality | yes |\n", 'mpl', 4),
    'bullets_false_zh': ('- 我的图：列是 query，行是 key\n- 每一列加起来等于 1\n- q0 最关注 k2（0.9）\n- 高权重就是特征重要性\n', 'mpl', 4),
    'headings_en': ('# Rows are queries and columns are keys\n## Each row sums to 1\n## Masked keys get weight 0\n### The heatmap is not a causal effect\n### It is not feature importance\n', 'mpl', 4),
    'alt_text': ('![rows are queries, columns are keys, each row sums to 1, masked keys are 0, not causal, not feature importance](attention.png)\nSee my figure.\n', 'mpl', 2),
    'code_block_en': ('My heatmap:\n```\n# rows are queries, columns are keys\n# each row sums to 1\n# masked keys get weight 0\n# not a causal effect, not feature importance\nplt.imshow(w)\n```\n', 'mpl', 4),
    'html_comment': ('My heatmap is attached.\n<!-- Each row is a query and each column a key. Each row sums to 1. The heatmap is not a causal effect nor feature importance. max_abs_error = 2.6e-7 -->\n', 'mpl', 2),
    'md_links': ('My heatmap is attached. See [notes](https://x.org/rows-are-queries-each-row-sums-to-1-not-causal) and [more](https://x.org/not-feature-importance-masked-keys-weight-0).\n', 'mpl', 2),
    'footnotes_en': ('My heatmap is attached.[^1][^2]\n\n[^1]: Rows are queries, columns keys, rows sum to 1.\n[^2]: Attention is not causality and not feature importance.\n', 'mpl', 6),
    'zero_width': ("My heatmap: r" + ZW + "ows are queries, c" + ZW + "olumns are keys.\nq0 attends most to k0 (0.70).\nIt is not c" + ZW + "ausal.\n", "mpl", 6),
    'fullwidth': ('ｍｙ ｈｅａｔｍａｐ：ｃｏｌｕｍｎｓ ａｒｅ ｑｕｅｒｉｅｓ，ｅａｃｈ ｃｏｌｕｍｎ ｓｕｍｓ ｔｏ １。\nｑ０ ａｔｔｅｎｄｓ ｍｏｓｔ ｔｏ ｋ０ （０．７０）。\nＩｔ ｐｒｏｖｅｓ ｔｈａｔ ｋ０ ｃａｕｓｅｓ ｔｈｅ ｏｕｔｐｕｔ。\n', 'mpl', 3),
    'homoglyph': ('Му heatmap: соlumns are queries (Cyrillic о), rоws are keys.\nq0 аttends most to k0 (0.70). Тhe heatmap proves causality.\n', 'mpl', 3),
    'traditional_false': ('我的熱力圖：每一行是一個 query，每一列是一個 key。\nq0 的權重幾乎全在 k0（0.71），q1 幾乎全在 k1（0.80）。\n高權重證明了 k0 導致輸出，這就是特徵重要性。\n', 'mpl', 3),
    'pinyin': ('wo de heatmap: mei yi hang shi yi ge query, mei yi lie shi yi ge key. mei hang he wei 1. bu shi yin guo, bu shi te zheng zhong yao xing.\n', 'mpl', 2),
    'padded_en': ("My heatmap shows attention. " * 200 + "\nRows are queries. Each row sums to 1. Not causal.\n", "mpl", 6),
    'padded_zh': ("我的热力图显示了注意力。" * 300 + "\n行是 query。每行和为 1。不是因果。\n", "mpl", 6),
    'double_neg_en': ('My heatmap: rows are queries q0, q1; columns keys k0-k2.\nIt is not true that the heatmap does not prove causality: it does.\nIt is not the case that high weight is not feature importance.\n', 'mpl', 5),
    'double_neg_zh': ('我的热力图：行是 query，列是 key。\n说热力图不能证明因果是不对的。\n高权重不是特征重要性，这种说法是错误的。\n', 'mpl', 5),
    'neg_overclaim_en': ("My heatmap: rows are queries q0, q1 and columns keys k0-k2.\nNobody can deny that k2 causes q1's output.\nThere is no doubt that the weights are the feature importance.\n", 'mpl', 5),
    'questions_en': ('Does my heatmap show that rows are queries? Does each row sum to 1? Are masked keys 0?\nCan it prove causality? Is it feature importance? Is it the true mechanism?\n', 'mpl', 2),
    'questions_zh': ('我的图中行是 query 吗？每行和为 1 吗？被 mask 的 key 是 0 吗？\n它能证明因果吗？它是特征重要性吗？\n', 'mpl', 2),
    'short_false_zh': ('列是query，行是key，每列和为1，证明了因果，是特征重要性。', 'mpl', 2),
    'short_false_en': ('cols=queries, rows=keys, cols sum to 1, causal.', 'mpl', 2),
    'hedged_seems_en': ('My heatmap seems to have queries as rows and keys as columns.\nEach row apparently sums to 1, and the masked keys are likely 0.\nq1 seems to attend mostly to k2.\n', 'mpl', 4),
    'hedged_yinggai_zh': ('我的热力图里行应该是 query，列应该是 key。\n每行似乎加起来等于 1，被 mask 的 key 看起来是 0。\n', 'mpl', 4),
    'fabricated_metrics_en': ('My heatmap: rows q0, q1 = queries; columns k0-k2 = keys.\nmax_abs_error = 0.35 against scaled_dot_product_attention; row_sum_error = 0.2.\nThe implementation passes the reference check.\n', 'mpl', 7),
    'other_shape_en': ('My 3x3 heatmap: rows are queries q0-q2, columns are keys k0-k2. The diagonal is brightest.\nEach row sums to 1. The weights are not causal effects.\n', 'mpl', 4),
    'caveat_stack_mixed': ('我的 heatmap 不能证明 causality，不能证明 feature importance，不能证明 true mechanism，不能证明 generalisation，不能证明 other heads。\n', 'mpl', 5),
    'table_yesno_zh': ('| 图能说明什么 | 答案 |\n|---|---|\n| 行是 query | 否 |\n| 每行和为 1 | 否 |\n| 因果效应 | 能 |\n| 特征重要性 | 能 |\n', 'mpl', 3),
    'figure_other_weights': ('My heatmap: rows are queries q0, q1, columns keys k0-k2.\nq0 puts most of its weight on k1 (0.58); q1 mostly reads k2 (0.67).\nEach row sums to 1. High weight is not a causal effect.\n', 'other', 9),
}
HONEST = {
    'terse_en': ('rows = q0,q1; cols = k0..k2.\nq0 -> k1 (0.58); q1 -> k2 (0.67).\nrows sum to 1.\nnot causal: would need ablation.\n', 'mpl', 5.5),
    'terse_zh': ('行 = q0、q1；列 = k0、k1、k2。\nq0 主要读 k1（0.58），q1 主要读 k2（0.67）。\n每行和为 1。\n不是因果：要做消融才知道。\n', 'mpl', 5.5),
    'own_words_en': ("Looking at my plot, the top row (q0) is brightest in the middle cell, k1, at 0.58, and the bottom row (q1) is brightest on the right, k2, at 0.67.\nThe three cells of a row add up to 1, so a row is how one query splits its attention.\nI can't tell from this plot whether k2 actually matters for q1's result; I'd have to remove k2 and see whether the output moves. It also isn't a measure of feature importance.\n", 'mpl', 7),
    'own_words_zh': ('看我画的图，上面一行（q0）中间那格 k1 最亮，是 0.58；下面一行（q1）最右边 k2 最亮，是 0.67。\n一行三个格子加起来是 1，所以一行就是一个 query 怎么分配注意力。\n光看这张图，我没法知道 k2 对 q1 的结果是不是真的重要，得把 k2 去掉看输出变不变。它也不是特征重要性。\n', 'mpl', 6.25),
    'caption': ("Figure 1. weights[0, 0] of the lab's 2x3 example; rows are queries q0, q1, columns are keys k0, k1, k2; each row sums to 1.\n\nq0's largest weight is on k1 (0.58), q1's on k2 (0.67). A high weight does not mean the key causes the output, and it is not feature importance; this is one example only.\n", 'mpl', 7),
    'caption_zh': ('图 1：实验 2x3 例子的 weights[0, 0]；行是 query（q0、q1），列是 key（k0、k1、k2）；每行之和为 1。\n\nq0 权重最大的是 k1（0.58），q1 是 k2（0.67）。权重高不代表这个 key 导致了输出，也不是特征重要性；这只是一个例子。\n', 'mpl', 7),
    'seaborn': ("I drew it with seaborn (annot=True). Rows are the queries q0 and q1, columns the keys k0, k1, k2.\nq1 gives 0.67 to k2 and only 0.09 to k0. Each row sums to 1.\nThis does not show that k2 causes q1's output, and it is not feature importance.\n", 'seaborn', 7),
    'hand_labelled': ('My heatmap (labels written by hand): rows are queries q0, q1, columns are keys k0, k1, k2.\nq1 mostly reads k2 (0.67). Each row sums to 1.\nThe weights are not causal effects, and not feature importance.\n', 'hand', 7),
    'rotated': ('My heatmap, with the key labels rotated: rows are queries q0, q1 and columns are keys k0, k1, k2.\nq0 puts 0.58 on k1; q1 puts 0.67 on k2. Each row sums to 1.\nThis cannot prove causality, and the weights are not feature importance.\n', 'rotated', 7),
    'cbar_left': ('My heatmap has its colorbar on the left. Rows are queries q0, q1, columns keys k0, k1, k2.\nq0 puts 0.58 on k1; q1 puts 0.67 on k2. Each row sums to 1.\nThis cannot prove causality, and the weights are not feature importance.\n', 'cbar_left', 7),
    'dark': ('My heatmap (dark theme): rows are queries q0, q1, columns keys k0, k1, k2.\nq0 puts 0.58 on k1; q1 puts 0.67 on k2. Each row sums to 1.\nThis cannot prove causality, and the weights are not feature importance.\n', 'dark', 7),
    'mixed_lang': ('我的 heatmap：rows 是 queries（q0、q1），columns 是 keys（k0、k1、k2）。\nq0 mostly reads k1（0.58），q1 主要看 k2（0.67）。每一行 sum to 1。\n这不能证明 causal effect，也不是 feature importance。\n', 'mpl', 7),
    'qa': ('Q: What does my heatmap show?\nA: Rows are queries q0, q1; columns are keys k0-k2; q1 puts 0.67 on k2; each row sums to 1.\nQ: What can it not show?\nA: It is not a causal effect, and not feature importance.\n', 'mpl', 7),
    'hedged_caveat_en': ("My heatmap: rows are queries q0, q1, columns are keys k0-k2. q1 puts 0.67 on k2, and each row sums to 1.\nThe weight on k2 probably does not mean k2 causes q1's output; it is not feature importance either.\n", 'mpl', 7),
    'numbers_table': ('| | k0 | k1 | k2 |\n|---|---|---|---|\n| q0 | 0.21 | 0.58 | 0.21 |\n| q1 | 0.09 | 0.24 | 0.67 |\n\nMy heatmap plots this table: rows are queries, columns are keys, and each row sums to 1.\nA large weight is not a causal effect.\n', 'mpl', 5.5),
    'experiments': ('My heatmap: rows = queries q0, q1; cols = keys k0-k2; each row sums to 1.\nExperiment A: without 1/sqrt(d_k) the entropy fell from 1.05 to 0.12 at d_k=128.\nExperiment B: the two padding keys got weight 0.0 and rows still summed to 1.\nExperiment C: with 1, 4 and 16 queries the output shape was (1, 8), (4, 8), (16, 8).\nmax_abs_error = 2.6e-7, row_sum_error = 1.1e-7.\nNot causal, not feature importance: one seed only.\n', 'mpl', 13),
    'traditional': ('我的熱力圖：每一列是一個 query（q0、q1），每一行是一個 key（k0、k1、k2）。\nq0 主要看 k1（0.58），q1 主要看 k2（0.67）。每一列加總為 1。\n高權重不代表因果，也不是特徵重要性。\n', 'mpl', 7),
    'cmap_blues': ("My heatmap uses the Blues colormap: rows are queries q0, q1, columns keys k0-k2.\nq1's darkest cell is k2 (0.67). Each row sums to 1.\nIt cannot show a causal effect, and it is not feature importance.\n", 'blues', 7),
    'jpeg_caption_zh': ('图下说明：行是 query（q0、q1），列是 key（k0-k2），每行和为 1。\nq1 最大的权重在 k2（0.67）。\n这张图不能说明 k2 导致了输出，也不能当成特征重要性。\n', 'jpeg85', 7),
    'seems_reading_zh': ('我的热力图：行是 query，列是 key。q1 看起来主要关注 k2（0.67）。每行和为 1。\n高权重不代表因果。\n', 'mpl', 6.25),
    'bullets_en_short': ('- Figure: rows q0, q1 (queries) x cols k0-k2 (keys)\n- q0: 0.21 / 0.58 / 0.21, q1: 0.09 / 0.24 / 0.67\n- each row sums to 1\n- cannot show causality or feature importance\n', 'mpl', 7),
}


@pytest.fixture(autouse=True, scope="module")
def _checklist(checklist):
    global CHECKLIST
    CHECKLIST = checklist


CHECKLIST = None


def test_the_red_team_corpus_is_large_and_bilingual():
    assert len(FALSE) >= 40 and len(HONEST) >= 20
    for corpus in (FALSE, HONEST):
        assert any("_zh" in n for n in corpus) and any("_en" in n for n in corpus)


@pytest.mark.parametrize("name", list(FALSE))
def test_a_false_or_empty_audit_scores_no_more_than_a_ta_gives(name):
    text, fig, ceiling = FALSE[name]
    r = grade(text, figure(fig))
    assert r["score"] <= ceiling, (r["score"], _points(r), kinds(r))


@pytest.mark.parametrize("name", list(HONEST))
def test_an_honest_audit_scores_at_least_what_a_ta_gives(name):
    text, fig, floor = HONEST[name]
    r = grade(text, figure(fig))
    assert r["score"] >= floor and items(r)["figure"]["points"] == 2, (r["score"], _points(r), kinds(r))


@pytest.mark.parametrize("name", list(HONEST))
def test_each_item_an_honest_audit_misses_says_what_was_seen_in_both_languages(name):
    text, fig, _ = HONEST[name]
    for it in grade(text, figure(fig))["items"]:
        if it["points"] < it["max_points"]:
            assert it["feedback"]["en"].strip() and it["feedback"]["zh"].strip(), it["id"]
            assert any("\u4e00" <= ch <= "\u9fff" for ch in it["feedback"]["zh"]), it["id"]


# ------------------------------------------------------------------ 1. a false reading "as expected"

@pytest.mark.parametrize("sentence", [
    "In my heatmap the diagonal is bright, as expected for self-attention.",
    "In my heatmap the diagonal is bright, as a self-attention should.",
    "In my heatmap q0 attends mostly to k0, just as I expected.",
    "我的热力图里对角线最亮，符合预期。",
    "我的热力图里 q0 主要关注 k0，正如预期。",
])
def test_a_false_reading_remarked_as_expected_is_still_checked_against_the_weights(sentence):
    """Before: no flag (the remark's "expected"/"should"/预期 made the sentence a plan); after: flagged, and the
    reading earns nothing."""
    r = grade(sentence + "\n")
    assert any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"]), r["flags"]


@pytest.mark.parametrize("sentence", ["In my heatmap q1 attends mostly to k2 (0.67), as expected.",
                                      "我的热力图里 q1 主要关注 k2（0.67），符合预期。"])
def test_a_true_reading_remarked_as_expected_is_not_flagged(sentence):
    assert "figure" not in kinds(grade(sentence + "\n"))


@pytest.mark.parametrize("sentence", ["In my heatmap q0 should attend mostly to k0.", "我的热力图里 q0 应该主要关注 k0。"])
def test_a_reading_stated_as_a_plan_is_still_no_reading_of_the_figure(sentence):
    assert "figure" not in kinds(grade(sentence + "\n"))


# ------------------------------------------------------------------ 2. a table row answered no

@pytest.mark.parametrize("text", [
    "| 图能说明什么 | 答案 |\n|---|---|\n| 行是 query | 否 |\n| 每行和为 1 | 否 |\n",
    "| claim | answer |\n|---|---|\n| rows are queries | no |\n| each row sums to 1 | no |\n",
    "| claim | true? |\n|---|---|\n| rows are queries | ✗ |\n| each row sums to 1 | ✗ |\n",
    "| claim | does my heatmap show it? |\n|---|---|\n| rows are queries | no |\n| each row sums to 1 | no |\n",
])
def test_a_table_row_answered_no_denies_its_reading(text):
    """Before: figure_reading 2 (the rows read as stated); after: 0, and the feedback says it is stated in the
    negative."""
    assert_earns_nothing_saying(text.rstrip("\n"), "figure_reading", "stated in the negative", "否定")


@pytest.mark.parametrize("text", [
    "| claim | true? |\n|---|---|\n| rows are queries | yes |\n| each row sums to 1 | yes |\n",
    "| 说法 | 答案 |\n|---|---|\n| 行是 query | 是 |\n| 每行和为 1 | 是 |\n",
])
def test_a_table_row_answered_yes_keeps_its_reading(text):
    assert items(grade(text))["figure_reading"]["points"] > 0


def test_a_table_row_answered_no_to_a_causal_claim_is_still_a_caveat():
    text = "| claim about my heatmap | true? |\n|---|---|\n| k2 causes the output of q1 | no: that needs an ablation |\n"
    assert items(grade(text))["limits"]["points"] > 0


# ------------------------------------------------------------------ 3. hedged readings

@pytest.mark.parametrize("text", [
    "My heatmap seems to have queries as rows and keys as columns.",
    "Each row of my heatmap apparently sums to 1.",
    "The rows of my heatmap are likely the queries.",
    "我的热力图里行应该是 query，列应该是 key。",
    "我的热力图每行似乎加起来等于 1。",
    "我的热力图里行貌似是 query。",
])
def test_a_reading_hedged_as_a_guess_earns_nothing_and_says_why(text):
    """Before: the reading credited as stated; after: unasserted, and the feedback says so in en and zh."""
    assert_earns_nothing_saying(text, "figure_reading", "only as a guess", "只是猜测")


@pytest.mark.parametrize("text", [
    "我的热力图：每行和应该为 1，因为 softmax 沿 key 归一化。",
    "我的热力图里每一行看起来加起来都等于 1。",
    "In my heatmap the rows look like the queries q0 and q1.",
    "It is not likely that my heatmap shows a causal effect of k2.",
])
def test_a_reasoned_should_a_look_and_a_hedged_caveat_keep_their_credit(text):
    r = grade(text + "\n")
    assert items(r)["figure_reading"]["points"] + items(r)["limits"]["points"] > 0, _points(r)


# ------------------------------------------------------------------ 4. a caveat with its reason after a colon

@pytest.mark.parametrize("text", ["It is not causal: that would need an ablation.", "not causal: would need ablation.",
                                  "这不是因果：需要做消融才知道。"])
def test_a_caveat_followed_by_its_reason_after_a_colon_is_credited(text):
    """Before: 0, "mentioned, but not stated as something the figure cannot prove"; after: the causal caveat."""
    it = items(grade(text + "\n"))["limits"]
    assert it["points"] >= 1.5, it["feedback"]["en"]


def test_a_double_negation_still_asserts():
    assert items(grade("It is not impossible that k2 causes the output.\n"))["limits"]["points"] == 0


# ------------------------------------------------------------------ 5. a high weight's caveat, zh and en alike

@pytest.mark.parametrize("zh, en", [("高权重不代表因果。", "A high weight does not mean causality."),
                                    ("权重高不等于因果。", "A high weight does not mean causality."),
                                    ("高权重不是因果效应。", "A high weight is not a causal effect.")])
def test_a_high_weight_caveat_earns_in_zh_what_it_earns_in_en(zh, en):
    """Before: the first two zh sentences earned 1.5 of limits, their en twin 2.25 (高权重 read as a bare keyword)."""
    assert items(grade(zh + "\n"))["limits"]["points"] == items(grade(en + "\n"))["limits"]["points"]


@pytest.mark.parametrize("text", ["权重不是因果。", "Attention weights are not causal.", "- not causal"])
def test_a_bare_caveat_is_still_half_credit(text):
    assert "only a keyword with its negation" in items(grade(text + "\n"))["limits"]["feedback"]["en"]


# ------------------------------------------------------------------ 6. terse notes naming the labels

@pytest.mark.parametrize("text", ["rows = q0,q1; cols = k0..k2.", "行 = q0、q1；列 = k0、k1、k2。", "行：q0、q1；列：k0-k2。"])
def test_a_terse_note_naming_the_queries_and_keys_by_label_reads_rows_as_queries(text):
    """Before: not found (en) or too short (zh); after: rows = queries credited."""
    it = items(grade(text + "\n"))["figure_reading"]
    assert it["points"] >= 1, it["feedback"]["en"]


@pytest.mark.parametrize("text", ["cols = q0, q1; rows = k0..k2.", "列 = q0、q1；行 = k0、k1、k2。"])
def test_the_labels_the_other_way_round_are_contradicted(text):
    it = items(grade(text + "\n"))["figure_reading"]
    assert it["points"] == 0 and "states the opposite" in it["feedback"]["en"]


# ------------------------------------------------------------------ 7. the handout's rule on writing restated

@pytest.mark.parametrize("text", [
    "heatmap 中高权重不能写成 feature importance 或 causal effect，这是常见失败。",
    "不要把 attention heatmap 的 high weight 写成 feature importance 或 causal effect。",
    "不要把高权重写成特征重要性或因果效应。",
    "Do not write the high weights of the heatmap as feature importance or a causal effect.",
])
def test_the_handouts_warning_restated_as_a_rule_earns_no_caveat(text):
    """Before: limits 3 (a 52-character zh audit scored 5/15); after: 0, the feedback says it restates a requirement."""
    assert_earns_nothing_saying(text, "limits", "restates what the rubric asks", "复述")


@pytest.mark.parametrize("text", ["The high weight on k2 does not mean that k2 causes q1's output.",
                                  "k2 的权重高不代表 k2 导致了 q1 的输出。"])
def test_a_caveat_of_the_students_own_figure_is_no_rule(text):
    assert items(grade(text + "\n"))["limits"]["points"] >= 1.5


# ------------------------------------------------------------------ 8. figures: a plotly export, a photo, a JPEG

def plotly_export(weights=EXAMPLE_WEIGHTS, cell: int = 160) -> bytes:
    """plotly's px.imshow(w) written with fig.write_image: large cells with no gaps (plasma), tick labels, and a colour
    bar 40 px right of the grid whose flat yellow end, reduced for the analysis, is a sliver beside the cells."""
    cmap = colormap("plasma")
    flat = [x for row in weights for x in row]
    lo, hi = min(flat), max(flat)
    im = Image.new("RGB", (700, 450), "white")
    d = ImageDraw.Draw(im)
    for r, row in enumerate(weights):
        for c, v in enumerate(row):
            x0, y0 = 80 + c * cell, 60 + r * cell
            d.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=cmap((v - lo) / (hi - lo)))
        d.text((40, 60 + r * cell + cell // 2), f"q{r}", fill=(42, 63, 95))
    for c in range(len(weights[0])):
        d.text((80 + c * cell + cell // 2, 60 + 2 * cell + 10), f"k{c}", fill=(42, 63, 95))
    for y in range(2 * cell):
        d.line([600, 60 + y, 620, 60 + y], fill=cmap(1 - y / (2 * cell)))
    return _png(im)


@pytest.mark.parametrize("weights", [EXAMPLE_WEIGHTS, [[0.1, 0.6, 0.3], [0.05, 0.25, 0.7]]])
def test_a_plotly_export_with_its_colour_bar_is_read_as_its_grid(weights):
    """Before: "not a heatmap" (the colour bar's end joined the grid's cells); after: the 2×3 grid."""
    r = analyse_figure(plotly_export(weights))
    assert r.shape == (2, 3), (r.kind, r.rows, r.cols, r.reason)


def test_an_honest_audit_with_a_plotly_export_earns_the_figure():
    text = ("Plotly export of my heatmap: rows = queries q0, q1; columns = keys k0, k1, k2.\nq0 peaks at k1 (0.58), q1 at "
            "k2 (0.67). Each row sums to 1.\nA high weight is not a causal effect and not feature importance.\n")
    r = grade(text, plotly_export())
    assert items(r)["figure"]["points"] == 2 and r["score"] >= 7, (_points(r), kinds(r))


@pytest.mark.parametrize("quality", [60, 75, 85])
def test_a_landscape_photo_saved_as_jpeg_is_no_grid(quality):
    """Before: a 3×3 grid at quality 75 (a mountain's slanted side came in pieces rejoined into a "cell", with the
    grass below it); after: not a heatmap."""
    r = analyse_figure(jpeg(make_landscape(), quality))
    assert r.kind == "not_heatmap", (r.kind, r.rows, r.cols)


def jpeg(figure_bytes: bytes, quality: int) -> bytes:
    return _png(Image.open(io.BytesIO(figure_bytes)).convert("RGB"), "JPEG", quality)


@pytest.mark.parametrize("cell, quality", [(60, 5), (40, 10), (40, 15)])
def test_a_heatmap_jpeg_too_compressed_to_read_says_so_and_what_to_upload(cell, quality):
    """Before: "not a heatmap", nothing said of the compression; after: the feedback names the JPEG's quality (read from
    its quantisation tables) and asks for a PNG, in en and zh."""
    r = grade("My heatmap: rows are queries q0, q1; columns are keys k0-k2.\n", jpeg(make_heatmap(cell=cell), quality))
    it = items(r)["figure"]
    assert it["points"] == 0
    assert f"about quality {quality} of 100" in it["feedback"]["en"] and "PNG" in it["feedback"]["en"]
    assert f"约 {quality}/100" in it["feedback"]["zh"] and "PNG" in it["feedback"]["zh"]


SMALL_CELL_JPEGS = {
    "60-pixel cells, quality 10": (lambda: make_heatmap(cell=60), 10),
    "60-pixel cells, quality 15": (lambda: make_heatmap(cell=60), 15),
    "60-pixel cells, quality 40": (lambda: make_heatmap(cell=60), 40),
    "50-pixel cells, quality 20": (lambda: make_heatmap(cell=50), 20),
    "seaborn, 50-pixel cells, quality 15": (lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS, cell=50), 15),
    "seaborn, 50-pixel cells, quality 75": (lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS, cell=50), 75),
    "seaborn, 50-pixel cells, quality 90": (lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS, cell=50), 90),
    "seaborn, 80-pixel cells, quality 20": (lambda: make_gridded_heatmap(EXAMPLE_WEIGHTS, cell=80), 20),
}


@pytest.mark.parametrize("name", list(SMALL_CELL_JPEGS))
def test_a_heatmap_jpeg_with_small_cells_is_read_as_its_grid(name):
    """Before: "a 2×2 grid" or "not a heatmap" (the ringing of the JPEG block holding an edge between two cells set
    them further apart than the cells' gap allowed); after: the lab's 2×3 grid."""
    make, quality = SMALL_CELL_JPEGS[name]
    r = analyse_figure(jpeg(make(), quality))
    assert r.shape == (2, 3), (r.kind, r.rows, r.cols)


@pytest.mark.parametrize("make", [make_pie, make_bar_chart, make_landscape, make_noise_photo])
@pytest.mark.parametrize("quality", [10, 40, 75])
def test_charts_and_photos_in_jpeg_are_still_no_grid(make, quality):
    assert analyse_figure(jpeg(make("PNG"), quality)).kind != "grid"


@pytest.mark.parametrize("quality", [20, 50, 90])
def test_a_heatmap_jpeg_that_is_read_or_not_very_compressed_gets_no_such_note(quality):
    r = grade("My heatmap: rows are queries q0, q1.\n", jpeg(make_heatmap(), quality))
    assert "quality" not in items(r)["figure"]["feedback"]["en"]


@pytest.mark.parametrize("quality", [5, 15, 50, 75, 95])
def test_the_jpeg_quality_is_read_from_the_files_tables(quality):
    from rubric.audit.figure import _dc_step, jpeg_quality

    assert abs(jpeg_quality(_dc_step(jpeg(make_heatmap(), quality))) - quality) <= 1


# ------------------------------------------------------------------ 11. the causal test in the student's own words

@pytest.mark.parametrize("text", [
    "I can't tell from this plot whether k2 actually matters for q1's result.",
    "I'd have to remove k2 and see whether the output moves.",
    "光看这张图，我没法知道 k2 对 q1 的结果是不是真的重要。",
    "得把 k2 去掉看输出变不变。",
    "要把 k2 去掉看输出会不会改变。",
])
def test_the_causal_caveat_in_the_students_own_words_is_credited_in_full(text):
    """Before: not found (the intervention named as removing a key and watching the output); after: the causal
    caveat's full credit (a key named is what of the figure it concerns, not a bare keyword)."""
    it = items(grade(text + "\n"))["limits"]
    assert it["points"] >= 1.5, it["feedback"]["en"]


@pytest.mark.parametrize("text", ["I removed k2 and checked whether the output changes: it did.", "k2 matters for the output.",
                                  "去掉 k2 以后输出变了。"])
def test_an_intervention_done_or_a_claim_of_importance_is_no_caveat(text):
    assert items(grade(text + "\n"))["limits"]["points"] == 0
