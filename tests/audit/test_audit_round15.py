"""Audit round 15: "the heatmap shows ..." (热力图显示/表明, 从热力图可以看出) refers to the student's figure, and
caveats written as what cannot be done ("it is impossible to read causality off my heatmap", "inferring
importance ... is unjustified") state the caveat. Anchoring stays whole-text (round 14): one reference to
the figure anywhere in a long text anchors all of it, so no honest caveat loses its points for being a
paragraph away from the description of the figure (tests/audit/honest/caveats_*.md, observations_*.md).

New honest texts, scores with the lab's heatmap before -> after this round:

    heatmap_shows_en.md       10.0 -> 13.0   (limits 0 -> 3: "The heatmap shows ..." was no reference)
    heatmap_shows_zh.md       14.0 -> 14.0
    impossible_caveats_en.md  11.0 -> 14.0   (limits 1 -> 4: "impossible to read causality off my heatmap",
                                              "inferring importance ... is unjustified" were missed)

A long text whose only reference to the figure reads nothing in it ("My heatmap is attached above." after
an essay) is not anchored unless it says elsewhere what it sees (audit.yaml anchor.readings / anchor.sights):

    gaming/essay_one_figure_line_en.md  11.0 -> 2.0      gaming/essay_one_figure_line_zh.md  11.0 -> 2.0

(The honest folder is also graded by test_audit_round14.py, the gaming folder by test_audit_validation.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import MEASURED_OK, items, kinds, make_heatmap

HERE = Path(__file__).resolve().parent
GAMING = HERE / "gaming"
HONEST = HERE / "honest"
NEW_HONEST = ["heatmap_shows_en.md", "heatmap_shows_zh.md", "impossible_caveats_en.md"]


def grade(text: str, checklist) -> dict:
    return grade_audit(text, make_heatmap(), MEASURED_OK, checklist)


@pytest.mark.parametrize("name", NEW_HONEST)
def test_a_new_honest_audit_scores_between_12_5_and_14(name, checklist):
    r = grade((HONEST / name).read_text(encoding="utf-8"), checklist)
    assert 12.5 <= r["score"] <= 14, [(it["id"], it["points"], it["feedback"]["en"][-160:]) for it in r["items"]]
    assert items(r)["limits"]["points"] >= 3
    assert kinds(r) == []


# --------------------------------------------- 1. "the heatmap shows ..." refers to the figure

def _general_text_with(sentence: str) -> str:
    """A long text on attention in general (no reference to the student's figure) with one sentence added to its
    paragraph (round 18: a paragraph away, one reading of the figure does not tie the general statements)."""
    return (GAMING / "no_figure_general_en.md").read_text(encoding="utf-8").rstrip("\n") + "\n" + sentence + "\n"


@pytest.mark.parametrize("sentence", [
    "The heatmap shows that the weights of each row add up to 1.",
    "The figure suggests that one row is more peaked than the other.",
    "The plot indicates that the softmax runs over the keys.",
    "As the heatmap clearly shows, the rows are queries.",
    "热力图显示每一行的和都是 1。",
    "热力图表明 softmax 沿 key 轴。",
    "从热力图可以看出一行更集中。",
])
def test_what_the_heatmap_is_said_to_show_is_a_reference_to_it(sentence, checklist):
    assert items(grade(_general_text_with(sentence), checklist))["limits"]["points"] >= 3


@pytest.mark.parametrize("sentence", [
    "Attention heatmaps show how queries read keys.",
    "A heatmap shows the weights of a layer.",
    "The figure shows what it can prove and what it cannot prove.",
    "The figure is used to audit routing.",
    "热力图能显示什么需要谨慎解读。",
])
def test_a_heatmap_in_general_or_what_a_figure_is_for_is_no_reference(sentence, checklist):
    assert items(grade(_general_text_with(sentence), checklist))["limits"]["points"] == 0


# ----------------------------------------- 2. what cannot be done with the heatmap is a caveat

@pytest.mark.parametrize("sentence", [
    "It is impossible to read causality off my heatmap.",
    "Reading causality off my heatmap is impossible.",
    "Causality is impossible to establish from my heatmap.",
    "Inferring causality from my heatmap would be unjustified.",
    "My heatmap is incapable of establishing a causal effect.",
    "Concluding feature importance from my plot would be unwarranted.",
    "Claiming that k2 is important because of my heatmap is unfounded.",
    "从我的热力图不可能读出因果关系。",
    "这张图推不出因果。",
])
def test_what_cannot_be_read_off_the_heatmap_is_a_caveat(sentence, checklist):
    r = grade(sentence, checklist)
    assert items(r)["limits"]["points"] == 1.5 and "overclaim" not in kinds(r)


@pytest.mark.parametrize("sentence", [
    "It is impossible to deny that k2 causes the output.",
    "It is not impossible that my heatmap proves that k2 causes the output.",
])
def test_impossible_denied_or_doubled_is_no_caveat(sentence, checklist):
    r = grade(sentence, checklist)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)


# ------------------- 3. a reference that reads nothing of the figure does not anchor an essay

NEW_GAMING = ["essay_one_figure_line_en.md", "essay_one_figure_line_zh.md"]


@pytest.mark.parametrize("name", NEW_GAMING)
def test_an_essay_with_a_line_naming_the_figure_but_reading_nothing_earns_only_the_figure(name, checklist):
    """An essay on attention in general plus "My heatmap is attached above." (附上的是我的热力图。) scored 11/15:
    the line anchored the whole essay. It names the figure and reads nothing in it (no cell, row, column, value
    or pattern), and nothing else in the essay is seen in a figure: 11.0 -> 2.0 (the figure's own points)."""
    r = grade((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] == 2, [(it["id"], it["points"]) for it in r["items"]]
    fb = items(r)["limits"]["feedback"]
    assert "names your heatmap but never says what you see in it" in fb["en"]
    assert "却没有说出你在图中看到了什么" in fb["zh"]


@pytest.mark.parametrize("line", [
    "My heatmap is attached above: q1 reads mostly from k2.",
    "In my heatmap the second row is the most peaked.",
    "My heatmap is attached above. Its diagonal is the brightest part.",
    "附上的是我的热力图，第二行更集中。",
])
def test_the_same_essay_with_one_reading_of_the_figure_earns_no_caveat_of_the_essay(line, checklist):
    """Round 15 anchored the whole text once it read its figure, so an essay with one such line was anchored
    again (11/15, left open). Since round 18 (test_audit_round18.py) the line anchors the text (no "names no cell"
    reason), but the essay's paragraphs, far from it, earn nothing: the reading is 3-5 % of the text. The honest
    texts in FIGURE_AND_CAVEATS_ONLY of test_audit_round14 read their figure in 18 % or more and keep their caveats."""
    essay = (GAMING / "essay_one_figure_line_en.md").read_text(encoding="utf-8")
    text = essay.replace("My heatmap is attached above.", line)
    limits = items(grade(text, checklist))["limits"]
    assert limits["points"] == 0
    assert "attention in general, away from what you read" in limits["feedback"]["en"]


@pytest.mark.parametrize("essay", ["llm_essay_en.md", "llm_essay_zh.md"])
@pytest.mark.parametrize("line", ["This is my heatmap.", "My figure is attached.", "这是我的热力图。", "附图是我的注意力图。"])
def test_naming_the_figure_alone_anchors_no_long_text(essay, line, checklist):
    text = (GAMING / essay).read_text(encoding="utf-8") + "\n\n" + line + "\n"
    r = grade(text, checklist)
    assert items(r)["limits"]["points"] == 0 and items(r)["figure_reading"]["points"] == 0
