"""Audit red-team round 15: anchoring per statement, "the heatmap shows ..." as a reference to the figure,
and caveats written as what cannot be done ("it is impossible to read causality off my heatmap").

New texts (written for this round): tests/audit/gaming/essay_one_figure_line_{en,zh}.md, an essay on attention
in general with one line about the student's heatmap, and tests/audit/honest/{heatmap_shows_en,heatmap_shows_zh,
impossible_caveats_en}.md. Scores with the lab's heatmap, before -> after this round:

    essay_one_figure_line_en.md   11.0 -> 2.0      heatmap_shows_en.md       10.0 -> 13.0
    essay_one_figure_line_zh.md   11.0 -> 2.0      heatmap_shows_zh.md       14.0 -> 14.0
                                                   impossible_caveats_en.md  11.0 -> 14.0

(The gaming and honest folders are also graded by test_audit_validation.py, <= 4, and test_audit_round14.py,
>= 12.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from rubric.audit.grade import _Anchoring
from rubric.audit.text import _segment
from tests.audit.helpers import MEASURED_OK, items, kinds, make_heatmap

HERE = Path(__file__).resolve().parent
GAMING = HERE / "gaming"
HONEST = HERE / "honest"
NEW_HONEST = ["heatmap_shows_en.md", "heatmap_shows_zh.md", "impossible_caveats_en.md"]
NEW_GAMING = ["essay_one_figure_line_en.md", "essay_one_figure_line_zh.md"]


def grade(text: str, checklist) -> dict:
    return grade_audit(text, make_heatmap(), MEASURED_OK, checklist)


# ---------------------------------------------------------------- 1. anchoring per statement

@pytest.mark.parametrize("name", NEW_GAMING)
def test_an_essay_with_one_line_about_the_figure_earns_only_the_figure(name, checklist):
    """The essay's statements are a paragraph or more away from "My heatmap is attached above", and its title
    ("What attention maps can and cannot tell us") names attention in general: no statement is about the
    figure. Before round 15 the one line anchored the whole essay (11/15)."""
    r = grade((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] == 2, [(it["id"], it["points"]) for it in r["items"]]
    fb = items(r)["limits"]["feedback"]
    assert "stated only in sentences that refer to no cell of your figure" in fb["en"]
    assert "只出现在没有提到你的图中任何格子" in fb["zh"]


@pytest.mark.parametrize("name", NEW_HONEST)
def test_a_new_honest_audit_scores_between_12_5_and_14(name, checklist):
    r = grade((HONEST / name).read_text(encoding="utf-8"), checklist)
    assert 12.5 <= r["score"] <= 14, [(it["id"], it["points"], it["feedback"]["en"][-160:]) for it in r["items"]]
    assert kinds(r) == []


def _anchored(text: str, checklist) -> list[bool]:
    sentences = _segment(checklist, text)
    anchoring = _Anchoring(checklist, sentences)
    return [i in anchoring for i, s in enumerate(sentences) if not s.is_heading]


GENERAL = ("Attention weights are not feature importance, and a single example does not generalise to other "
           "inputs, whatever the model. ")


def test_a_reference_reaches_its_paragraph_but_not_past_a_blank_line_or_a_heading(checklist):
    text = GENERAL + "In my heatmap q0 reads mostly k1.\n\n" + GENERAL + "\n## Parity\n" + GENERAL
    assert _anchored(text, checklist) == [True, True, False, False]


def test_a_heading_about_the_figure_anchors_its_section_and_a_title_about_attention_does_not(checklist):
    body = "\n" + GENERAL + "\n\n" + GENERAL + "\n\n"
    assert _anchored("## What it cannot show" + body + "In my heatmap q0 reads k1.\n", checklist)[:2] == [True, True]
    assert _anchored("# What attention maps can and cannot tell us" + body + "In my heatmap q0 reads k1.\n",
                     checklist)[:2] == [False, False]


# --------------------------------------------- 2. "the heatmap shows ..." refers to the figure

@pytest.mark.parametrize("sentence", [
    "The heatmap shows that the weights of each row add up to 1.",
    "The figure suggests that one row is more peaked than the other.",
    "The plot indicates that the softmax runs over the keys.",
    "As the heatmap clearly shows, the rows are queries.",
    "The figure does not show a causal effect.",
    "热力图显示每一行的和都是 1。",
    "热力图表明 softmax 沿 key 轴。",
    "从热力图可以看出一行更集中。",
    "图为两行三列的 heatmap。",
])
def test_what_the_heatmap_is_said_to_show_is_a_reference_to_it(sentence, checklist):
    assert _Anchoring(checklist, _segment(checklist, sentence)).refers(0)


@pytest.mark.parametrize("sentence", [
    "Attention heatmaps show how queries read keys.",
    "A heatmap shows the weights of a layer.",
    "The figure shows what it can prove and what it cannot prove.",
    "The figure is used to audit routing.",
    "Interpreting these matrices requires care.",
    "I saw the values 0.31 and 0.77.",
])
def test_a_heatmap_in_general_or_what_a_figure_is_for_is_no_reference(sentence, checklist):
    assert not _Anchoring(checklist, _segment(checklist, sentence)).refers(0)


# ----------------------------------------- 3. what cannot be done with the heatmap is a caveat

@pytest.mark.parametrize("sentence, concept", [
    ("It is impossible to read causality off my heatmap.", "not_causal"),
    ("Reading causality off my heatmap is impossible.", "not_causal"),
    ("Causality is impossible to establish from my heatmap.", "not_causal"),
    ("Inferring causality from my heatmap would be unjustified.", "not_causal"),
    ("My heatmap is incapable of establishing a causal effect.", "not_causal"),
    ("Concluding feature importance from my plot would be unwarranted.", "not_importance"),
    ("Claiming that k2 is important because of my heatmap is unfounded.", "not_importance"),
    ("从我的热力图不可能读出因果关系。", "not_causal"),
    ("单凭这张图断定 k2 的重要性是站不住脚的。", "not_importance"),
    ("这张图推不出因果。", "not_causal"),
])
def test_what_cannot_be_read_off_the_heatmap_is_a_caveat(sentence, concept, checklist):
    r = grade(sentence, checklist)
    credit = {"not_causal": 1.5, "not_importance": 1.5}[concept]
    assert items(r)["limits"]["points"] == credit and "overclaim" not in kinds(r)


@pytest.mark.parametrize("sentence", [
    "It is impossible to deny that k2 causes the output.",
    "It is not impossible that my heatmap proves that k2 causes the output.",
])
def test_impossible_denied_or_doubled_is_no_caveat(sentence, checklist):
    r = grade(sentence, checklist)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)
