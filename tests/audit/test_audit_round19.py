"""Audit red-team round 19: what a figure is said to show.

1. "The heatmap shows that attention is not feature importance" (热力图表明注意力权重不能证明因果) writes a caveat as
   something the figure shows; a heatmap shows weights, never what they fail to prove. Such a caveat earns nothing
   (reason `shown`), wherever "the heatmap shows that" (anchor.said_to_show) is followed by a clause negated inside.
   "The heatmap does not show that ...", "the heatmap shows weights, not causal effects" and a caveat after "but"
   are stated the right way and still count.
2. A text that does so twice or more uses the phrase as a formula (left open by round 18: an essay whose every
   sentence opens with "The heatmap shows that ..." scored 11.5/15): the phrase then ties none of its sentences to
   the figure, and the text must name a cell, a value or a pattern to be read as about it (reason `formula`).
   gaming/said_to_show_essay_{en,zh,mixed}.md: 11.5, 11.5, 9.0 -> 2.0; every honest and validation audit unchanged.
3. Cells the text reads ("q0 reads mostly from k1 (0.58)") are checked against the weights the student's code computes
   for the lab's example: a false one costs its sentence (reason `misread`, flagged "figure"); two or more false and
   none true make the text about another figure (a classmate's audit: 9.0 -> 2.0).
4. "This does not prove ..." (这不能证明) is the student's own case only when the sentence before it is (6.0 -> 2.0).
5. "Not a causal effect but the feature importance" (不是因果，而是特征重要性) is an overclaim.
6. A caveat argued from a false fact of the lab ("the output does not depend on the weights") earns nothing.
7. An opener naming the figure before half or more of the sentences ("In my heatmap, ...") ties none (11.5 -> 2.0).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

HERE = Path(__file__).resolve().parent
GAMING, HONEST = HERE / "gaming", HERE / "honest"
FIGURE = make_heatmap()


def grade(text: str, checklist) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)


def _feedback(r: dict, item: str) -> str:
    return items(r)[item]["feedback"]["en"] + items(r)[item]["feedback"]["zh"]


# ------------------------------------------------------------------ 1. a caveat said to be shown earns nothing

READING = "In my heatmap q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\n"
READING_ZH = "我的热力图里 q0 主要读 k1（0.58），q1 主要读 k2（0.67）。\n"


@pytest.mark.parametrize("reading, caveat", [
    (READING, "The heatmap shows that a high weight is not a causal effect."),
    (READING, "The figure indicates that attention weights do not establish causality."),
    (READING, "As the plot shows, a high weight does not mean that k1 caused the output."),
    (READING, "From the heatmap we can see that a bright cell is not a causal effect."),
    (READING, "It is clear from my heatmap that the weights do not prove causality."),
    (READING_ZH, "热力图表明注意力权重不能证明因果。"),
    (READING_ZH, "从热力图可以看出高权重不代表因果关系。"),
    (READING_ZH, "如热力图所示，高权重并不意味着因果。"),
    (READING_ZH, "热力图显示，高权重不等于因果效应。"),
])
def test_a_caveat_written_as_what_the_figure_shows_earns_nothing(reading, caveat, checklist):
    """Before: limits 1.5 (the caveat "not a causal effect" credited); after: 0, and the feedback says why."""
    r = grade(reading + caveat + "\n", checklist)
    assert items(r)["limits"]["points"] == 0, _feedback(r, "limits")
    assert "written as something your figure shows" in _feedback(r, "limits")
    assert "写成了图「显示」的内容" in _feedback(r, "limits")


@pytest.mark.parametrize("reading, caveat", [
    (READING, "The heatmap does not show that a high weight is a causal effect."),
    (READING, "Nothing in the heatmap shows that k1 is a causal effect on the output."),
    (READING, "The heatmap shows weights, not causal effects."),
    (READING, "The heatmap shows that q0 peaks at k1, but this is not a causal effect."),
    (READING, "The heatmap shows that q0 peaks at k1; a high weight is not a causal effect."),
    (READING, "A high weight in my heatmap is not a causal effect."),
    (READING_ZH, "热力图并不能表明高权重就是因果。"),
    (READING_ZH, "热力图显示的权重不能证明因果。"),
    (READING_ZH, "热力图只显示权重，不能证明因果。"),
    (READING_ZH, "热力图显示 q0 主要读 k1，但这不代表因果。"),
])
def test_a_caveat_stated_the_right_way_next_to_what_the_figure_shows_counts(reading, caveat, checklist):
    r = grade(reading + caveat + "\n", checklist)
    assert items(r)["limits"]["points"] == 1.5, _feedback(r, "limits")


def test_one_caveat_said_to_be_shown_costs_that_caveat_only(checklist):
    """One slip in an honest audit that reads its figure only through "the heatmap shows ...": the other caveats and
    the readings keep their points (14 -> 12.5: not_causal's 1.5 of limits)."""
    text = (HONEST / "heatmap_shows_en.md").read_text(encoding="utf-8")
    before = grade(text, checklist)
    slipped = text.replace("Still, it is impossible to read causality off the heatmap:",
                           "The heatmap also shows that a bright cell is not a causal effect:")
    assert slipped != text
    after = grade(slipped, checklist)
    assert items(after)["figure_reading"]["points"] == items(before)["figure_reading"]["points"] == 3
    assert items(before)["limits"]["points"] - items(after)["limits"]["points"] == 1.5
    assert "formula" not in _feedback(after, "figure_reading")


# -------------------------------------------------------------------- 2. the phrase as a formula ties nothing

@pytest.mark.parametrize("name", ["said_to_show_essay_en.md", "said_to_show_essay_zh.md", "said_to_show_essay_mixed.md"])
def test_an_essay_told_as_what_the_heatmap_shows_earns_the_figure_only(name, checklist):
    """Before: 11.5, 11.5, 9.0 of 15 (figure_reading 3, limits 4); after: 2.0, the figure's points, and the feedback
    says the phrase reads as a formula."""
    r = grade((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] == 2.0, [(it["id"], it["points"]) for it in r["items"]]
    assert "reads as a formula" in items(r)["figure_reading"]["feedback"]["en"]
    assert "读作套话" in items(r)["figure_reading"]["feedback"]["zh"]


ROWS = ["each row is a query and each column is a key", "every row sums to one", "a masked key gets zero weight",
        "attention weights do not establish causality", "attention is not feature importance",
        "the weights are not the true mechanism of the model", "one example does not generalise to other inputs"]
TABLE = "| What the heatmap shows | |\n|---|---|\n" + "".join(f"| The heatmap shows that | {r} |\n" for r in ROWS)
HTML_LIST = "<ul>\n" + "".join(f"<li>The heatmap shows that {r}.</li>\n" for r in ROWS) + "</ul>\n"


@pytest.mark.parametrize("text", [TABLE, HTML_LIST], ids=["markdown_table", "html_list"])
def test_the_formula_in_a_table_or_an_html_list_is_the_formula(text, checklist):
    """Before: 9.0 and 9.0 (in the table each cell is a clause, "The heatmap shows that" one of its own); after: 2.0."""
    assert grade(text, checklist)["score"] == 2.0


@pytest.mark.parametrize("opener", ["My heatmap shows that", "This heatmap demonstrates that", "The figure tells us that"])
def test_the_formula_is_read_whatever_names_the_figure(opener, checklist):
    """"My heatmap"/"this heatmap" anchors on its own; inside the formula it is the formula."""
    text = (GAMING / "said_to_show_essay_en.md").read_text(encoding="utf-8")
    text = text.replace("The heatmap shows that", opener).replace("The figure indicates that", opener)
    assert grade(text, checklist)["score"] <= 4


def test_a_formula_text_that_names_its_cells_is_read(checklist):
    """The formula ties nothing, but a cell and a value still do, for their own paragraph (round 18's reading share):
    its reading and its caveat stated as a limit count, the essay's readings and caveats said to be shown do not."""
    text = (GAMING / "said_to_show_essay_en.md").read_text(encoding="utf-8") + (
        "\nIn my heatmap q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67). One toy example cannot show "
        "whether this generalises to other inputs.\n")
    r = grade(text, checklist)
    assert items(r)["figure_reading"]["points"] == 1.0, _feedback(r, "figure_reading")
    assert items(r)["limits"]["points"] == 1.0, _feedback(r, "limits")


@pytest.mark.parametrize("name", sorted(p.name for p in HONEST.iterdir()))
def test_no_honest_audit_is_read_as_a_formula(name, checklist):
    r = grade((HONEST / name).read_text(encoding="utf-8"), checklist)
    for it in r["items"]:
        assert "formula" not in it["feedback"]["en"] and "written as something your figure shows" not in \
            it["feedback"]["en"], (name, it["id"], it["feedback"]["en"])


# ------------------------------------------- 3. cells read against the weights the student's code computes

# the weights of the lab's hand example as the reference computes them (grader_tests/attention/cases.hand_example):
# q0 ties k0 and k2, q1 peaks at k2
LAB_WEIGHTS = [[0.4011, 0.1978, 0.4011], [0.2840, 0.1400, 0.5760]]
HONEST_EN = (HONEST / "en_only.md").read_text(encoding="utf-8")
PEAKS_EN = "q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67)."


@pytest.mark.parametrize("reading", [
    "q0 reads mostly from k0 (0.71) and q1 mostly from k1 (0.64).",       # another figure's values
    "q1 reads mostly from k1 (0.58) and q0 mostly from k2 (0.67).",       # the rows swapped
    "q0 reads mostly from k0 and q1 mostly from k1.",                     # peaks only, no value
    "q0 主要关注 k0（0.71），q1 主要关注 k1（0.64）。",
    "The weight of q0 on k2 is 0.58 and q1 → k0 ≈ 0.7.",
])
def test_an_audit_whose_cells_are_another_figures_earns_nothing(reading, checklist):
    """Before: 14 of 15 with no flag (the cells were never read against the weights); after: 4, the text is about
    another figure (the figure's 2 and the metrics it reports, 2, still count) and the flag says which cells and what
    the student's code computes."""
    text = HONEST_EN.replace(PEAKS_EN, reading)
    assert text != HONEST_EN
    r = grade(text, checklist)
    assert items(r)["figure_reading"]["points"] == items(r)["limits"]["points"] == 0, r["items"]
    flag = next(f for f in r["flags"] if f["kind"] == "figure")
    assert "q0: [0.21, 0.58, 0.21]" in flag["message"]["en"] and "q0: [0.21, 0.58, 0.21]" in flag["message"]["zh"]


def test_one_misread_cell_costs_its_sentence_only(checklist):
    """One false reading among true ones is flagged, and what its sentence states earns nothing (a false reading of
    the figure is not rewarded: reading_budget there is "reads mostly from"); the rest of the audit keeps its points."""
    text = HONEST_EN.replace(PEAKS_EN, "q0 reads mostly from k1 (0.58). q1 reads mostly from k1 (0.40).")
    r = grade(text, checklist)
    assert items(r)["limits"]["points"] == 4 and items(r)["figure_reading"]["points"] == 3
    assert "figure" in [f["kind"] for f in r["flags"]]
    lone = grade_audit("q1 reads mostly from k1 (0.40), how it spends its reading budget.", None, {}, checklist,
                       weights=EXAMPLE_WEIGHTS)
    assert items(lone)["figure_reading"]["points"] == 0
    assert "reads a cell your figure does not show" in items(lone)["figure_reading"]["feedback"]["en"]


@pytest.mark.parametrize("reading", [
    PEAKS_EN,
    "query 1 attends mostly to key 2 (0.58), query 2 mostly to key 3 (0.67).",     # counted from 1
    "The weight of q0 on k1 is 0.58, and q1 → k2 ≈ 0.7.",                         # rounded to one decimal
    "q0's highest weight is on k1. Unlike q0, q1 mostly attends to k2.",
    "q0 主要关注 k1（0.58），q1 对 k2 的权重是 0.67。",
    "q0 attends mostly to k0 and k2 equally, q1 mostly to k1 and k2.",             # shared peaks: not read
    "After masking k1, q0 reads mostly from k0 (0.50) and q1 mostly from k2 (0.88).",   # another tensor
    "If q0 read mostly from k0, the mask would be broken.",                        # a plan, no reading
    "q0 does not read mostly from k0.",
])
def test_cells_true_of_the_figure_or_not_read_as_its_cells_are_not_flagged(reading, checklist):
    text = HONEST_EN.replace(PEAKS_EN, reading)
    r = grade(text, checklist)
    assert "figure" not in [f["kind"] for f in r["flags"]], r["flags"]
    assert r["score"] >= 13


def test_cells_are_read_against_the_students_own_weights_not_the_examples(checklist):
    """The lab's hand example ties q0 between k0 and k2: either is its peak; the figure plots the student's weights."""
    text = HONEST_EN.replace(PEAKS_EN, "q0 reads mostly from k2 (0.40) and q1 mostly from k2 (0.58).")
    assert "figure" not in kinds_of(grade_audit(text, None, MEASURED_OK, checklist, weights=LAB_WEIGHTS))
    assert "figure" in kinds_of(grade_audit(text, None, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS))
    # without the student's weights (their code did not run) nothing is checked
    assert "figure" not in kinds_of(grade_audit(text, None, MEASURED_OK, checklist))


def kinds_of(r: dict) -> list[str]:
    return [f["kind"] for f in r["flags"]]


# ----------------------------------------- 4. "This does not prove ..." is about what the sentence before is about

ESSAY = (GAMING / "llm_essay_en.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["essay_this_after_generic_en.md", "essay_this_after_generic_zh.md"])
def test_this_after_a_sentence_on_attention_in_general_is_about_attention_in_general(name, checklist):
    """An essay with one reading, each of its paragraphs closed by "This does not prove ..." (这不能证明...) after a
    sentence on attention in general. Before: 6.0 (limits 4, every paragraph "the student's own case"); after: 2.0.
    Round 35: 3.0. Its one reading, "In my heatmap q0 attends most to k1" (q0 最关注 k1), is true of the figure (q0 puts
    0.58 on k1, its largest weight) and is now read as where q0 spends its reading budget (1 of figure_reading's 3), as
    "q0 reads mostly from k1" always was: only the verb differed, and the zh twin earned nothing with any verb. A TA
    gives a true reading its point; the essay's caveats still earn nothing, which is what this test is about."""
    r = grade((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert items(r)["limits"]["points"] == 0 and r["score"] == 3.0, r["items"]
    assert items(r)["figure_reading"]["points"] == 1
    assert "away from what you read in your figure" in items(r)["limits"]["feedback"]["en"]


@pytest.mark.parametrize("tail", [
    # right after the reading, in its paragraph
    " This does not prove that k2 causes the output. It also cannot show whether k2 is feature importance.",
    # a paragraph of its own, pointing back at the reading that ends the paragraph before
    "\n\nThis does not prove that k2 causes the output. It also cannot show whether k2 is feature importance.",
    " 这不能证明 k2 导致了输出。它也不代表 k2 的特征重要性最高。",
])
def test_this_after_a_reading_of_the_figure_is_the_students_own_case(tail, checklist):
    """The chain holds: "It also ..." points back at "This ...", which points back at the reading."""
    text = ESSAY.rstrip("\n") + "\n\nIn my heatmap q1 reads mostly from k2." + tail + "\n"
    r = grade(text, checklist)
    assert items(r)["limits"]["points"] == 3, _feedback(r, "limits")


def test_a_generic_sentence_breaks_the_chain(checklist):
    """A paragraph that reads the figure counts whole; in the next one, "This" points back at a generic sentence."""
    text = (ESSAY.rstrip("\n") + "\n\nIn my heatmap q1 reads mostly from k2.\n\nAttention is used in every "
            "transformer layer today. This does not prove that a high weight is a causal effect.\n")
    assert items(grade(text, checklist))["limits"]["points"] == 0


# ------------------------------------ 5. a caveat that denies one reading to assert the other is an overclaim

@pytest.mark.parametrize("sentence", [
    "A high weight is not a causal effect but the feature importance of the key.",
    "A high weight is not a causal effect. It is exactly the feature importance of that key.",
    "Attention weights are not causal effects, and after training they are exactly feature importance.",
    "The weight of k1 is not a causal effect, rather the importance of k1.",
    "高权重不是因果效应，而是特征重要性。",
    "注意力权重不是因果，而是 feature importance。",
])
def test_what_the_weight_is_said_to_be_after_a_caveat_is_an_overclaim(sentence, checklist):
    """Before: the caveat earned limits 1.5 and nothing was flagged; after: flagged "overclaim" (2 points), limits 0."""
    r = grade(READING + sentence + "\n", checklist)
    assert "overclaim" in [f["kind"] for f in r["flags"]]
    assert items(r)["limits"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "A high weight is not a causal effect, but importance is a different question.",
    "A high weight is not a causal effect, but the feature importance of k1 cannot be read off either.",
    "A high weight is not the cause but a reading coefficient.",
    "高权重不是因果效应，而是读取系数。",
    "The weight is not the cause of the output, rather a reading coefficient.",
    "A high weight is not feature importance but a routing choice.",
])
def test_a_caveat_followed_by_what_the_weight_really_is_is_no_overclaim(sentence, checklist):
    r = grade(READING + sentence + "\n", checklist)
    assert "overclaim" not in [f["kind"] for f in r["flags"]]
    assert items(r)["limits"]["points"] >= 1.5


# ------------------------------------------------------ 6. a caveat argued from a false fact of the lab

@pytest.mark.parametrize("sentence", [
    "The output does not depend on the attention weights at all, so a high weight is not a causal effect.",
    "A high weight is not feature importance, because attention weights are always uniform.",
    "The weights are not reading coefficients of the layer, and they are not causal.",
    "注意力权重不是因果，因为输出根本不依赖权重。",
    "高权重不等于特征重要性，因为权重总是均匀的。",
    "权重并不是读取系数，也不是因果效应。",
])
def test_a_caveat_argued_from_a_false_fact_earns_nothing(sentence, checklist):
    """Before: the caveat earned limits 1.5 (not_causal or not_importance); after: 0, and the feedback says why."""
    r = grade(READING + sentence + "\n", checklist)
    assert items(r)["limits"]["points"] == 0
    assert "says something false of attention" in items(r)["limits"]["feedback"]["en"]
    assert "错误说法" in items(r)["limits"]["feedback"]["zh"]


@pytest.mark.parametrize("sentence", [
    "The output does not depend only on the weights, so a high weight is not a causal effect.",
    "The weights are not always uniform, and a high weight is not a causal effect.",
    "If all keys were equal, the weights would always be uniform; a high weight is still not a causal effect.",
    "The weights are reading coefficients, not a causal effect.",
    "输出不只依赖权重，所以高权重不是因果效应。",
    "如果所有 key 相同，权重总是均匀的；高权重也不是因果效应。",
])
def test_a_true_premise_keeps_the_caveat(sentence, checklist):
    r = grade(READING + sentence + "\n", checklist)
    assert items(r)["limits"]["points"] == 1.5, items(r)["limits"]["feedback"]["en"]


# ---------------------------------------------- 7. an opener repeated before most sentences ties none of them

@pytest.mark.parametrize("name", ["template_in_my_heatmap_en.md", "template_in_my_heatmap_zh.md"])
def test_an_essay_with_in_my_heatmap_before_every_sentence_earns_the_figure_only(name, checklist):
    """The formula's variant without "shows": "In my heatmap, attention is not feature importance." Before: 11.5 and
    11.5; after: 2.0, and the feedback says the opening reads as a formula."""
    r = grade((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] == 2.0, r["items"]
    assert "opening reads as a formula" in items(r)["limits"]["feedback"]["en"]
    assert "开头读作套话" in items(r)["limits"]["feedback"]["zh"]


TEMPLATE_HONEST_EN = "In my heatmap, the rows are the queries q0 and q1 and the columns are the keys k0, k1, k2.\nIn my heatmap, q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\nIn my heatmap, each row sums to 1.\nIn my heatmap, the bright cell at k2 does not mean that k2 caused q1's output, and a high weight is not feature importance.\nIn my heatmap, the weights are reading coefficients, not the true mechanism, and one toy example does not generalise.\n"
TEMPLATE_HONEST_ZH = '在我的热力图中，行是 q0、q1，列是 k0、k1、k2。\n在我的热力图中，q0 主要关注 k1（0.58），q1 主要关注 k2（0.67）。\n在我的热力图中，每一行的和都是 1。\n在我的热力图中，k2 那一格很亮，但这不代表 k2 导致了 q1 的输出，高权重也不等于特征重要性。\n在我的热力图中，权重只是读取系数，不是真实机制；一个小例子也不能推广。\n'


# Round 35: the zh twin 7.0 -> 8.0. Its "q0 主要关注 k1（0.58），q1 主要关注 k2（0.67）" is where each query spends its
# reading budget, as the en twin's "q0 reads mostly from k1 (0.58)" was (a query's peak in any words, reading_budget): the
# pinned 7.0 was the verb, not a TA's score. The point still between them is the texts': the en line says "the rows are
# the queries q0 and q1", the zh one "行是 q0、q1" without 查询/query (a copula before the labels is read in neither language).
# Round 36: the zh twin 8.0 -> 9.0, as the en one: a copula before the labels ("行是 q0、q1") now reads rows = queries.
@pytest.mark.parametrize("text, score", [(TEMPLATE_HONEST_EN, 9.0), (TEMPLATE_HONEST_ZH, 9.0)])
def test_a_template_that_names_cells_and_values_keeps_its_score(text, score, checklist):
    """The same opener before every line, but the lines read cells and values: unchanged (9.0, 7.0 before and after;
    round 35: 9.0, 8.0)."""
    assert grade(text, checklist)["score"] == score


def test_alternating_openers_that_only_name_the_figure_are_a_template_too(checklist):
    """"In my heatmap," / "Looking at my heatmap," / "In this figure," in turn, none before half of the sentences: 11.5
    with a template of one repeated opener only, 2.0 with any opening that names the figure and reads nothing."""
    text = (GAMING / "template_in_my_heatmap_en.md").read_text(encoding="utf-8")
    parts = text.split("In my heatmap,")
    openers = ["In my heatmap,", "Looking at my heatmap,", "In this figure,"]
    text = parts[0] + "".join(openers[i % 3] + p for i, p in enumerate(parts[1:]))
    assert text.count("In this figure,") >= 2
    assert grade(text, checklist)["score"] == 2.0
