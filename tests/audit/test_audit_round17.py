"""Audit round 17: three gaps left by round 16, each closed as a class (zh, en, 繁體), with the false and negated
neighbours of every new rule pinned.

1. a bare heading, a short line without final punctuation followed by a paragraph ("Limitations", "What it
   cannot show", 局限, 不能证明什么), opens a "cannot prove" section as "## Limitations" does (rubric/audit/text.py
   _segment); such a section ends at the next bare or marked heading, and a bare heading that denies its
   caveats ("No limitations") opens none;
2. a caveat across a "which" clause: "the heatmap does not tell us which key the prediction relies on",
   热力图不能告诉我们预测依赖哪个 key (audit.yaml cues.carry; limits.not_importance);
3. an assertion of proof or evidence with no importance word: "this proves that the model relies on k2",
   "a high weight is evidence that the key matters", 这证明模型依赖 k2 (audit.yaml overclaims.patterns), while
   "this does not prove that ...", "a high weight is not evidence that ..." stay caveats."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    IMPORTANCE,
    MEASURED_OK,
    concept_credited,
    items,
    kinds,
    make_heatmap,
)


def limits(text: str, checklist) -> float:
    return items(grade_audit(text, None, {}, checklist))["limits"]["points"]




# ------------------------------------------------------------------------------ 1. bare headings

BODY_EN = "The importance of each key for the prediction. The causal effect of a key on the output."
BODY_ZH = "每个 key 对预测的重要性。某个 key 对输出的因果效应。"


@pytest.mark.parametrize("heading, body", [
    ("Limitations", BODY_EN),
    ("What it cannot show", BODY_EN),
    ("What the heatmap cannot prove", BODY_EN),
    ("Caveats", BODY_EN),
    ("局限", BODY_ZH),
    ("不能证明什么", BODY_ZH),
    ("热力图不能说明的", BODY_ZH),
    ("局限性", BODY_ZH),
    ("不能證明什麼", "每個 key 對預測的重要性。某個 key 對輸出的因果效應。"),
])
def test_a_bare_heading_opens_a_limits_section_like_a_marked_one(heading, body, checklist):
    marked = limits(f"## {heading}\n\n{body}", checklist)
    assert marked > limits(body, checklist)
    for text in (f"{heading}\n\n{body}", f"{heading}\n{body}"):
        r = grade_audit(text, None, {}, checklist)
        assert items(r)["limits"]["points"] == marked, text
        assert "overclaim" not in kinds(r), text


@pytest.mark.parametrize("text", [
    # a sentence (final punctuation), not a heading
    "The heatmap cannot prove everything.\n\nKey 2 is the most important feature for the prediction.",
    "热力图不能证明一切。\n\nkey 2 是最重要的特征。",
    # a heading that denies its caveats
    "No limitations\n\nKey 2 is the most important feature for the prediction.",
    "Limitations none\n\nKey 2 is the most important feature for the prediction.",
    "所谓的局限\n\nkey 2 是最重要的特征。",
    "What critics say it cannot prove\n\nKey 2 is the most important feature for the prediction.",
    # a bare limits section ends at the next bare heading
    "Limitations\n\nThe heatmap is not a causal effect.\n\nWhat it shows\n\nKey 2 is the most important feature for the prediction.",
    "局限\n\n热力图不是因果效应。\n\n图能说明什么\n\nkey 2 是最重要的特征。",
    # a long unpunctuated line is a line of text, not a heading
    "The heatmap cannot prove causality and I checked every row of the batch by hand twice today\n\n"
    "Key 2 is the most important feature for the prediction.",
])
def test_sentences_denied_headings_and_later_sections_open_no_limits_section(text, checklist):
    r = grade_audit(text, None, {}, checklist)
    assert "overclaim" in kinds(r), text


@pytest.mark.parametrize("text", [
    "Limitations\n\nThe heatmap is not a causal effect.\n\nWhat the heatmap shows\n\nEach row sums to 1.",
    "局限\n\n热力图不是因果效应。\n\n图能说明什么\n\n每一行的和为 1。",
])
def test_what_follows_a_bare_limits_section_keeps_its_credit(text, checklist):
    assert concept_credited(text, "figure_reading", "each row sums to 1", checklist)


def test_a_bare_heading_at_the_end_opens_nothing(checklist):
    text = "Key 2 is the most important feature for the prediction.\n\nLimitations"
    assert "overclaim" in kinds(grade_audit(text, None, {}, checklist))


# ---------------------------------------------------------------------------- 2. "which" clauses

@pytest.mark.parametrize("sentence", [
    "The heatmap does not tell us which key the prediction relies on.",
    "The heatmap cannot tell which key the output depends on.",
    "The weights do not reveal which key the model relies on.",
    "It doesn't tell us which key matters most for the output.",
    "We cannot know which key the prediction relies on.",
    "From the heatmap we cannot see which key the model relies on.",
    "热力图不能告诉我们预测依赖哪个 key。",
    "热力图不能告诉我们，输出依赖哪个 key。",
    "热力图无法告诉我们模型依赖哪个 key。",
    "熱力圖不能告訴我們預測依賴哪個 key。",
    "It is impossible to tell from the heatmap which key the prediction relies on.",
    "You cannot tell from my heatmap which key the model relies on.",
    "There is no way to say from the heatmap which key the output depends on.",
])
def test_a_negated_which_clause_is_the_importance_caveat(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert concept_credited(sentence, *IMPORTANCE, checklist), items(r)["limits"]
    assert "overclaim" not in kinds(r)


@pytest.mark.parametrize("sentence", [
    "The heatmap tells us which key the prediction relies on.",
    "The heatmap clearly shows which key the output depends on.",
    "The heatmap does not tell us much, which proves that the model relies on k2.",
    "热力图告诉我们预测依赖哪个 key。",
    "热力图清楚地告诉我们输出依赖哪个 key。",
    "It is not impossible to tell from the heatmap which key the prediction relies on.",
    "You can tell from the heatmap which key the model relies on.",
    "It is easy to tell from the heatmap which key the prediction relies on.",
    "It is wrong to say that you cannot tell from the heatmap which key the model relies on.",
])
def test_an_asserted_which_clause_earns_no_caveat(sentence, checklist):
    assert not concept_credited(sentence, *IMPORTANCE, checklist)


# -------------------------------------------------- 3. proof or evidence asserted: an overclaim

@pytest.mark.parametrize("sentence", [
    "This proves that the model relies on k2.",
    "The heatmap proves the prediction depends on key 2.",
    "This demonstrates that the model relies on k2.",
    "A high weight is evidence that the key matters.",
    "The bright cell is clear evidence that k2 is important.",
    "The heatmap is proof that key 2 drives the output.",
    "这证明模型依赖 k2。",
    "热力图证明了预测依赖 key 2。",
    "高权重是这个 key 重要的证据。",
    "这证明了 k2 很重要。",
    "這證明模型依賴 k2。",
    "高權重是這個 key 重要的證據。",
])
def test_proof_or_evidence_asserted_is_an_overclaim(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert "overclaim" in kinds(r)
    assert items(r)["limits"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "This does not prove that the model relies on k2.",
    "The heatmap cannot prove that the prediction depends on key 2.",
    "A high weight is not evidence that the key matters.",
    "A high weight is no evidence that the key matters.",
    "The bright cell is not proof that key 2 drives the output.",
    "Only an ablation could prove that the model relies on k2.",
    "这不能证明模型依赖 k2。",
    "热力图并不能证明预测依赖 key 2。",
    "高权重不是这个 key 重要的证据。",
    "这并不证明 key 2 很重要。",
    "這不能證明模型依賴 k2。",
])
def test_proof_or_evidence_denied_is_no_overclaim(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] > 0


# ------------------------------------------ a bare heading gives a gamer nothing a marked one would not

@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).resolve().parent / "gaming").iterdir()
                                        if p.suffix in (".md", ".txt")))
def test_a_bare_heading_scores_a_gaming_file_no_higher_than_a_marked_one(name, checklist):
    text = (Path(__file__).resolve().parent / "gaming" / name).read_text(encoding="utf-8")
    heading = "局限" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "Limitations"
    figure, w = make_heatmap(), EXAMPLE_WEIGHTS      # the weights the figure plots, as the grader passes them
    bare = grade_audit(f"{heading}\n\n{text}", figure, MEASURED_OK, checklist, weights=w)["score"]
    assert bare <= grade_audit(f"## {heading}\n\n{text}", figure, MEASURED_OK, checklist, weights=w)["score"]
    assert grade_audit(text, figure, MEASURED_OK, checklist, weights=w)["score"] <= 4


@pytest.mark.parametrize("sentence", [
    # facts of the computation: what the output depends on is a mechanism, not a key
    "The parity test confirms that the output depends on the mask.",
    "The test proves the output depends on the scaling factor.",
    "This is evidence that the mask matters.",
    "The row sums are evidence that softmax is applied over keys.",
    "这证明输出依赖 mask。",
    "测试证明了输出依赖缩放。",
])
def test_proof_that_the_output_depends_on_a_mechanism_is_no_overclaim(sentence, checklist):
    assert "overclaim" not in kinds(grade_audit(sentence, None, {}, checklist))


@pytest.mark.parametrize("heading, body", [
    ("Limitations", "Causality of a key\nFeature importance of a key\nThe true mechanism of the model"),
    ("局限", "因果效应\n特征重要性\n真实机制"),
])
def test_unpunctuated_items_under_a_bare_heading_stay_in_its_section(heading, body, checklist):
    marked = grade_audit(f"## {heading}\n\n{body}", None, {}, checklist)
    for text in (f"{heading}\n\n{body}", f"{heading}\n{body}"):
        r = grade_audit(text, None, {}, checklist)
        assert items(r)["limits"]["points"] == items(marked)["limits"]["points"] > 0, text
        assert "overclaim" not in kinds(r), text
