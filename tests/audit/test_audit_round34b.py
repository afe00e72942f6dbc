"""Round 34b on the audit: the follow-ups round 34 left open (12 new false audits, 6 honest ones; zh, en and mixed).

Found and fixed (each test below fails before the fix):
1. A peak followed by its value was not checked: "So q0 reads k0 most, with 0.74", "q0 reads k0 most (0.74)" read no
   cell (the value stood past the peak word and a comma or a bracket), so an invented reading kept its points; and a value
   said of a peak was checked as a value only: "q0 looks mostly at k0 (0.21)" is q0's weight on k0, but k1 is its peak
   (grade._TAIL_VALUE, _CellClaim.peak).
2. Row sums other than those of the student's weights ("q0's row sums to 1.3 and q1's to 0.8", 每一行的和是 0.9,
   "每行加起来并不等于 1：q0 那行是 1.3") earned nothing but were not flagged; they are now (grade._row_sum_flag: a
   softmax row sums to 1 within rounding, checked against the rows the student's code computes).
3. A plan of the ablation earned the zh causal caveat, its en twin nothing: the 不 of 是不是 (会不会, 有没有...) was read as
   a negation. An A-not-A question asks, it denies nothing (audit.yaml negation_exclusions); the caveats that rested on it
   are read as they are in English ("要知道去掉某个 key 会不会改变输出，需要做消融", 我没法知道 ... 是不是 ...).
4. Caveat keywords alone on lines under a "cannot prove" heading earned 1.25 of 4 (en) and 0 or 0.75 (en / zh) under a
   lead-in: "- causality" and "- 因果" were too short to count while "- feature importance" was a bare caveat. The rubric
   (settings.bare_caveat_units, reasons.bare / bare_capped) gives a caveat stated as its keyword and a negation half its
   credit, and bare caveats together at most half the item: a keyword under the heading is that keyword and the heading's
   negation, so such a list earns half the item, as "- not causal" bullets do, in zh and en alike.

Open: q1 最关注 k2 is no reading of the query's row (reading budget) while "q1 attends mostly to k2" is, and "q0 attends
most to k1" is not either (ablation_needed_zh 5.5 against its en twin's 6.5)."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import (
    CELL_OPENER,
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    items,
    kinds,
    make_heatmap,
    misreads_a_cell,
)

_FIG: list[bytes] = []


def figure() -> bytes:
    if not _FIG:
        _FIG.append(make_heatmap())
    return _FIG[0]


CHECKLIST = None


@pytest.fixture(autouse=True, scope="module")
def _checklist(checklist):
    global CHECKLIST
    CHECKLIST = checklist


def grade(text: str, weights=EXAMPLE_WEIGHTS) -> dict:
    return grade_audit(text, figure(), MEASURED_OK, CHECKLIST, weights=weights)


def _points(r: dict) -> list[tuple[str, float]]:
    return [(it["id"], it["points"]) for it in r["items"]]


# ------------------------------------------------------------------ the corpus
# (text, bound): a false audit scores at most its bound, an honest one at least its bound (of 15); the lab's heatmap.

FALSE = {
    'peak_value_invented_en': ("My heatmap: rows are queries q0, q1, columns are keys k0, k1, k2.\nq0 reads k0 most, with 0.74, and q1 reads k1 most, with 0.81.\nEach row sums to 1. A high weight is not a causal effect.\n", 2.5),
    'peak_value_invented_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0、k1、k2）。\nq0 最关注 k0，权重 0.74；q1 最关注 k1，权重 0.81。\n每行和为 1。高权重不代表因果。\n", 2.5),
    'peak_value_invented_mixed': ("我的 heatmap：rows 是 queries q0、q1，columns 是 keys k0-k2。\nq0 reads k0 most (0.74)，q1 reads k1 most (0.81)。\n每行 sum 是 1，这不是 causal effect。\n", 2.5),
    # a true value on a false peak: 0.21 is q0's weight on k0 and 0.24 q1's on k1, but k1 and k2 are their peaks
    'true_value_false_peak_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2.\nq0 looks mostly at k0 (0.21) and q1 looks mostly at k1 (0.24).\nEach row sums to 1. Not causal.\n", 2.5),
    'row_sums_invented_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2; q1 reads k2 most (0.67).\nq0's row sums to 1.3 and q1's to 0.9, so the weights are not normalised.\nA high weight is not a causal effect.\n", 6),
    # round 35: 6.25 (ceiling 6 -> 6.25). Its true "q1 最关注 k2（0.67）" now earns the reading budget as the en twin's "q1
    # reads k2 most (0.67)" did (5.5 both ways before the twins' difference below); "高权重不代表因果" ("a high weight does
    # not mean causality") earns the causal caveat and half the importance one, as the en "A high weight does not mean a
    # causal effect" does (the en twin says "is not", which earns the causal one only). The false row sum still costs
    # its sentence and is flagged: figure 2 + reading 2 + limits 2.25.
    'row_sums_invented_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2）；q1 最关注 k2（0.67）。\n每一行的和是 0.9，所以权重没有归一化。\n高权重不代表因果。\n", 6.25),
    # round 46: 6.25 (ceiling 6 -> 6.25), its zh twin's: "高 weight 不等于 causal effect" is read as 高权重不等于因果效应 is
    'row_sums_invented_mixed': ("我的 heatmap：rows 是 queries，columns 是 keys；q1 最看重 k2（0.67）。\nq0 那一行加起来是 1.2，q1 那行是 0.8。\n高 weight 不等于 causal effect。\n", 6.25),
    # the ablation planned, not run, and no caveat besides: the figure and its reading only
    'ablation_planned_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2; q1 reads k2 most (0.67).\nLater I will also remove k2 to see whether it causes the output.\n", 5),
    'ablation_planned_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2）；q1 最关注 k2（0.67）。\n之后还会去掉 k2，看看它是不是导致了输出。\n", 5),
    'ablation_planned_mixed': ("我的 heatmap：rows 是 queries，columns 是 keys；q1 最看重 k2（0.67）。\n下一步我会 ablate k2，看看 output 会不会变。\n", 5),
    # bare keywords under a "cannot prove" lead-in: at most half the limits item
    'keywords_lead_in_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2; q1 reads k2 most (0.67).\nWhat my heatmap cannot prove:\n- causality\n- importance\n- mechanism\n", 7),
    'keywords_lead_in_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2）；q1 最关注 k2（0.67）。\n我的热力图不能证明：\n- 因果\n- 重要性\n- 机制\n", 7),
}
HONEST = {
    'peak_value_true_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2; each row sums to 1.\nq0 reads k1 most, with 0.58, and q1 reads k2 most, with 0.67.\nThe dark k2 cell does not show that k2 causes q1's output; that would need an ablation.\n", 6.5),
    'peak_value_true_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2），每行和为 1。\nq0 最关注 k1，权重 0.58；q1 最关注 k2，权重 0.67。\nk2 的权重高不能说明 k2 导致了 q1 的输出，那需要做消融。\n", 6.5),
    'row_sums_measured_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2; q1 reads k2 most (0.67).\nI summed each row: q0's row sums to 1.00 and q1's to 1.00.\nA high weight on k2 does not mean k2 causes the output.\n", 7),
    'row_sums_measured_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2）；q1 最关注 k2（0.67）。\n我把每一行加起来：q0 那行是 1.00，q1 那行是 1.00。\nk2 权重高不代表 k2 导致了输出。\n", 7),
    'ablation_needed_zh': ("我的热力图：行是 query（q0、q1），列是 key（k0-k2），每行和为 1；q1 最关注 k2（0.67）。\n光看这张图，我没法知道 k2 是不是导致了 q1 的输出；要知道去掉 k2 会不会改变输出，需要做消融。\n", 5.5),
    'ablation_needed_en': ("My heatmap: rows are queries q0, q1, columns keys k0-k2; each row sums to 1; q1 reads k2 most (0.67).\nFrom this figure alone I cannot tell whether k2 causes q1's output; I would need to remove k2 and see whether the output changes.\n", 6.5),
}


def test_the_corpus_is_large_and_bilingual():
    assert len(FALSE) + len(HONEST) >= 10
    for corpus in (FALSE, HONEST):
        assert any(n.endswith("_zh") for n in corpus) and any(n.endswith("_en") for n in corpus)


@pytest.mark.parametrize("name", list(FALSE))
def test_a_false_audit_scores_no_more_than_a_ta_gives(name):
    text, ceiling = FALSE[name]
    r = grade(text)
    assert r["score"] <= ceiling, (r["score"], _points(r), kinds(r))


@pytest.mark.parametrize("name", list(HONEST))
def test_an_honest_audit_scores_at_least_what_a_ta_gives_and_is_not_flagged(name):
    text, floor = HONEST[name]
    r = grade(text)
    assert r["score"] >= floor and not r["flags"], (r["score"], _points(r), r["flags"])


# ------------------------------------------------------------------ 1. a peak and its value

@pytest.mark.parametrize("sentence", [
    "So q0 reads k0 most, with 0.74.",
    "q0 reads k0 most (0.74).",
    "q1 reads k1 most, it is 0.81.",
    "所以 q0 最关注 k0，权重 0.74。",
    "q0 reads k0 most, with a weight of 0.74.",
])
def test_a_peak_followed_by_an_invented_value_is_flagged(sentence):
    """Before: no cell read, the reading kept its points; after: flagged (q0's weight on k0 is 0.21, its peak k1)."""
    assert misreads_a_cell(sentence, CHECKLIST, figure())


@pytest.mark.parametrize("sentence", ["q0 looks mostly at k0 (0.21).", "q1 reads k1 most, with 0.24.",
                                      "q0 最关注 k0（0.21）。", "q1 主要关注 k1，权重 0.24。"])
def test_a_true_value_said_of_a_false_peak_is_flagged(sentence):
    """The value is the cell's, but the cell is not the query's peak. Before: not flagged; after: flagged."""
    assert misreads_a_cell(sentence, CHECKLIST, figure())


@pytest.mark.parametrize("sentence", [
    "q0 reads k1 most, with 0.58.", "q1 look most at k2, it is 0.67.", "q0 最关注 k1，权重 0.58。",
    "q1 reads k2 most (0.67).", "q0 reads k0 with 0.21.", "q1's lowest weight is k0 (0.09).",
    "q0 gives k0 0.21 and k1 most, 0.58.",
])
def test_a_true_peak_and_value_or_a_value_without_a_peak_is_not_flagged(sentence):
    assert not misreads_a_cell(sentence, CHECKLIST, figure())


def test_a_false_peak_costs_its_sentence_its_reading():
    text = CELL_OPENER + "Each row sums to 1, and q0 reads k0 most, with 0.74.\n"
    assert "each row sums to 1" in items(grade(text))["figure_reading"]["feedback"]["en"]


# ------------------------------------------------------------------ 2. row sums

def _row_sum_flag(r: dict) -> dict | None:
    return next((f for f in r["flags"] if f["kind"] == "figure" and "sums to something other than 1" in f["message"]["en"]),
                None)


@pytest.mark.parametrize("text", [
    "The rows do not sum to 1: q0's row sums to 1.3 and q1's to 0.8.",
    "In my heatmap each row sums to 0.9.",
    "In my heatmap row 1 adds up to 1.2.",
    "我的热力图：每一行的和是 0.9。",
    "每行加起来并不等于 1：q0 那行是 1.3，q1 那行是 0.8。",
    "q1 的那一行加起来是 1.4。",
])
def test_an_invented_row_sum_is_flagged_in_both_languages(text):
    """Before: no flag; after: a figure flag saying a softmax row sums to 1, with the rows' sums of the student's code."""
    flag = _row_sum_flag(grade(CELL_OPENER + text + "\n"))
    assert flag is not None
    assert "1.00, 1.00" in flag["message"]["en"] and "softmax 使每一行的和为 1" in flag["message"]["zh"]


@pytest.mark.parametrize("text", [
    "In my heatmap each row sums to 1.", "Each row sums to 1.00 (q0: 1.00, q1: 1.00).", "每一行的和是 1.0。", "每行和为 1。",
    "row_sum_error = 1.1e-7, so the rows sum to 1.", "If softmax ran over the queries, a row would sum to 1.3.",
    "The rows of the logits sum to 3.2.", "q0's row does not sum to 1.3.", "每一行的和不是 0.9，而是 1。",
    "q0 那行的权重是 0.21、0.58、0.21，加起来是 1。", "The rows sum to 0.999 and 1.001.", "row 0 sums to 1, row 1 sums to 1.",
    # second review of round 34: 和 meaning "and", a row's peak, a value keys share, a sum written out
    "每行和为 1，q1 那一行最大的是 0.67。", "我比较了 q0 和 q1：第 2 行最大的权重是 0.67。", "k0 和 k2 在 q0 那行都是 0.21。",
    "Row 0 sums to 0.21 + 0.58 + 0.21 = 1.00.",
])
def test_a_true_denied_or_supposed_row_sum_is_not_flagged(text):
    assert _row_sum_flag(grade(CELL_OPENER + text + "\n")) is None


def test_a_row_sum_true_of_the_students_own_weights_is_not_flagged():
    """A softmax over the wrong axis: the rows of the student's weights do sum to 1.3 and 0.7; the text says so."""
    weights = [[0.3, 0.7, 0.3], [0.2, 0.3, 0.2]]
    assert _row_sum_flag(grade(CELL_OPENER + "q0's row sums to 1.3 and q1's to 0.7.\n", weights)) is None


# ------------------------------------------------------------------ 3. a plan of the ablation, and A-not-A questions

@pytest.mark.parametrize("text", [
    "之后还会去掉 k2，看看它是不是导致了输出。",
    "之后还会去掉 k2，看看它会不会改变输出。",
    "Later I will also remove k2 to see whether it causes the output.",
    "I will remove k2 next and check whether the output changes.",
])
def test_a_plan_to_ablate_earns_no_causal_caveat_in_either_language(text):
    """Before: the zh plan earned the causal caveat (1.5), its en twin nothing; after: nothing in both."""
    assert items(grade(CELL_OPENER + text + "\n"))["limits"]["points"] == 0


@pytest.mark.parametrize("text", [
    "热力图不能告诉我们 k2 是不是导致了输出。",
    "光看这张图，我没法知道 k2 是不是导致了 q1 的输出。",
    "要知道去掉某个 key 会不会改变输出，需要做消融实验。",
    "得把 k2 去掉看输出会不会变。",
    "k2 有没有导致输出，必须靠消融。",
    "My heatmap cannot tell whether k2 causes q1's output.",
])
def test_a_caveat_around_an_a_not_a_question_keeps_its_credit(text):
    assert items(grade(CELL_OPENER + text + "\n"))["limits"]["points"] > 0


# ------------------------------------------------------------------ 4. caveat keywords, one a line, under a heading

_KEYWORD_LISTS = [
    ("## What my heatmap cannot prove\n- causality\n- feature importance\n- the true mechanism\n- generalisation\n- other heads",
     "## 我的热力图不能证明什么\n- 因果\n- 特征重要性\n- 真实机制\n- 泛化\n- 其他 head"),
    ("What my heatmap cannot prove:\n- causality\n- importance\n- mechanism", "我的热力图不能证明：\n- 因果\n- 重要性\n- 机制"),
    ("## Limitations\n- causal effect\n- feature importance\n- true mechanism", "## 局限\n- 因果效应\n- 特征重要性\n- 真实机制"),
]
_NOT_BULLETS = ("## What my heatmap cannot prove\n- not causal\n- not feature importance\n- not the true mechanism\n"
                "- does not generalise")


@pytest.mark.parametrize("en, zh", _KEYWORD_LISTS)
def test_caveat_keywords_under_a_heading_earn_what_bare_caveats_earn_in_both_languages(en, zh):
    """Half the limits item, as "- not causal" bullets. Before: 1.25 / 1.25, 0 / 0.75 and 2 / 2 (en / zh): a one-word
    line was "too short" in English and not in Chinese; after: 2 in every form."""
    bare = items(grade(CELL_OPENER + _NOT_BULLETS + "\n"))["limits"]
    assert bare["points"] == bare["max_points"] / 2
    for text in (en, zh):
        it = items(grade(CELL_OPENER + text + "\n"))["limits"]
        assert it["points"] == bare["points"], (text, it["feedback"]["en"])
        assert "at most half credit" in it["feedback"]["en"] and "最多得一半分" in it["feedback"]["zh"]


def test_a_single_keyword_line_without_a_heading_is_still_too_short():
    it = items(grade(CELL_OPENER + "- causality\n"))["limits"]
    assert it["points"] == 0 and "too short" in it["feedback"]["en"]

