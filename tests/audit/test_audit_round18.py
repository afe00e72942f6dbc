"""Audit red-team round 18: evidence against vocabulary.

1. One sentence that reads the figure anchored a whole essay on attention in general (round 15): the essay of
   gaming/essay_one_figure_line_en.md with "In my heatmap q0 attends most to k2." scored 11/15. When the sentences
   that read the figure hold less than anchor.min_reading_share (0.12) of a long text, only the paragraphs (or
   lists) that read it or speak of the student's own figure or case ("This does not prove ...", "I ran one seed",
   这不能证明) earn concepts (rubric/audit/grade._far_from_figure): 11.0 -> 2.0. Honest audits read their figure
   in 18 % or more of their text, and their caveats a paragraph away keep their points.
2. "This shows / indicates / means that the model relies on k2" (这表明/说明模型依赖 k2) is an overclaim as "This
   proves that ..." is (audit.yaml overclaims.patterns); "suggests" is one, hedged.
3. The colour of a masked key: "dark" (深色, 暗) counts as "black" did, for the low end of the figure's colour scale.
   The figure tells which end is low when its cells follow the weights the student's code computes for the lab's
   example (grade._low_end): dark/black then count only on a dark-low map (viridis), white/light only on a
   light-low map (Blues), and the feedback says which. When the figure cannot tell, dark and black count (the
   defaults of matplotlib and seaborn are dark-low) and white does not.
4. A heading that names the figure ("## What my heatmap cannot prove") makes the statements under it caveats, as a
   "Limitations" heading does; it is no reading of the figure, so rule 1 applies to its section as to any
   paragraph.
5. New gaming audits (tests/audit/gaming, zh and en) and what they revealed: a sight word in a denied statement is no
   reading; "this kind of figure"/这类图, "heatmaps like mine", "This is why ...", "I think ..."/我认为 are no own case.
6. New honest audits (tests/audit/honest) and what they revealed: "label: ..." note lines are notes of their own, a
   "cannot conclude:" lead-in opens a caveat list, a metric given its value is no keyword, and the parts of a sentence
   between semicolons have a two-point budget each.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from rubric.audit import grade_audit
from rubric.audit.figure import analyse_figure
from rubric.audit.grade import _low_end, _reads
from rubric.audit.text import _lines, _segment
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    IMPORTANCE,
    MASKED,
    MEASURED_OK,
    concept_credited,
    items,
    kinds,
    make_heatmap,
)

HERE = Path(__file__).resolve().parent
GAMING = HERE / "gaming"
HONEST = HERE / "honest"
VALIDATION = HERE / "validation"


def grade(text: str, checklist, figure: bytes | None = None, weights=None) -> dict:
    return grade_audit(text, figure if figure is not None else make_heatmap(), MEASURED_OK, checklist, weights=weights)


def _detail(r: dict) -> list:
    return [(it["id"], it["points"], it["feedback"]["en"][-200:]) for it in r["items"]]


# ------------------------------------------------ 1. one reading of the figure does not anchor an essay

ESSAYS = ["essay_one_figure_line_en.md", "essay_one_figure_line_zh.md", "llm_essay_en.md", "llm_essay_zh.md"]
READINGS = ["In my heatmap q0 attends most to k2.", "My heatmap: q1 reads mostly from k2 (0.67).",
            "在我的热力图中，q0 主要关注 k2。", "我的图里第二行最亮的是 k2（0.67）。"]


def _essay_with(name: str, line: str, where: str) -> str:
    """The essay with the reading as a paragraph of its own at the start, in the middle or at the end (the
    essays' own "My heatmap is attached above." / 附上的是我的热力图。 removed)."""
    paras = [p for p in (GAMING / name).read_text(encoding="utf-8").split("\n\n")
             if p.strip() and "attached above" not in p and "附上的是我的热力图" not in p]
    at = {"start": 1 if paras[0].startswith("#") else 0, "middle": len(paras) // 2, "end": len(paras)}[where]
    return "\n\n".join(paras[:at] + [line] + paras[at:]) + "\n"


@pytest.mark.parametrize("where", ["start", "middle", "end"])
@pytest.mark.parametrize("line", READINGS)
@pytest.mark.parametrize("name", ESSAYS)
def test_an_essay_with_one_paragraph_reading_the_figure_earns_no_concept_of_the_essay(name, line, where, checklist):
    """48 texts (4 essays x 4 readings x 3 places): before 9.5-11.5/15, after 2-3 (the reading's paragraph only)."""
    r = grade(_essay_with(name, line, where), checklist)
    assert r["score"] <= 4, _detail(r)
    assert items(r)["limits"]["points"] == 0, _detail(r)
    fb = items(r)["limits"]["feedback"]
    assert "attention in general, away from what you read" in fb["en"] and "泛泛讨论 attention 的段落" in fb["zh"]


def test_the_essay_of_the_gaming_corpus_with_a_cell_read_scores_2(checklist):
    """The brief's example: 11.0 -> 2.0 (the figure's own points). Round 35: 3.0, the essay's caveats still 0. Its one
    reading, "q0 attends most to k2", now earns the reading budget (1) as "q0 reads mostly from k2" in its place already
    did on the same essay (3.0 before round 35 too): the pinned 2.0 was the verb's, not a TA's score."""
    essay = (GAMING / "essay_one_figure_line_en.md").read_text(encoding="utf-8")
    r = grade(essay.replace("My heatmap is attached above.", "In my heatmap q0 attends most to k2."), checklist)
    assert r["score"] == 3 and items(r)["limits"]["points"] == 0, _detail(r)


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
@pytest.mark.parametrize("folder", [HONEST, VALIDATION])
def test_the_rule_changes_no_score_of_an_honest_or_validation_audit(folder, checklist):
    """Every text of these folders grades as it did without the rule (min_reading_share 0): most read their figure
    in 18 % or more of their text; observations_then_limitations_en.md (4 %) reads it in a bullet list, held as one
    block, and its limitations paragraph speaks of its own case ("This is a single head ... I cannot generalise")."""
    without = dataclasses.replace(checklist, anchor_min_reading_share=0.0)
    for p in sorted(folder.glob("*.md")) + sorted(folder.glob("*.txt")):
        text = p.read_text(encoding="utf-8")
        assert grade(text, checklist)["score"] == grade(text, without)["score"], p.name


@pytest.mark.parametrize("name, least_limits", [
    ("caveats_own_paragraph_en.md", 4), ("caveats_under_limits_heading_zh.md", 4),
    ("observations_then_limitations_en.md", 4)])
def test_honest_caveats_in_their_own_paragraph_keep_their_points(name, least_limits, checklist):
    """The per-statement anchoring of an earlier round took all of them (3.5 -> 0); this rule takes none."""
    r = grade((HONEST / name).read_text(encoding="utf-8"), checklist)
    assert items(r)["limits"]["points"] >= least_limits, _detail(r)


@pytest.mark.parametrize("caveat", [
    "This does not prove that the model relies on these positions to make its prediction.",
    "It also cannot show what the other heads do, and a high weight is not a causal effect.",
    "I ran a single seed, so a high weight here is not a causal effect and does not generalise.",
    "这不能证明模型依赖这些位置做出预测，高权重也不等于因果效应。",
    "它也看不出其他头在做什么，权重高不代表因果。"])
def test_a_caveat_that_points_back_at_the_students_case_counts_a_paragraph_away(caveat, checklist):
    """In a long text that reads its figure little, a paragraph that speaks of this heatmap, this case or the
    student's own run ("This ...", "It also ...", "I ran ...", 这/它) is tied to it; the essay's are not."""
    text = _essay_with("llm_essay_en.md", "In my heatmap q0 attends most to k2.", "end") + "\n" + caveat + "\n"
    assert items(grade(text, checklist))["limits"]["points"] >= 1.5


def test_a_reading_inside_a_generic_paragraph_ties_that_paragraph_only(checklist):
    """The rule's limit (left open): statements next to a reading of the figure are read as about it, so a
    reading written into the essay's caveat paragraph earns that paragraph's caveats, not the rest. (Round 35: the
    reading earns its own point, reading budget, as "q0 reads mostly from k2" there did before: figure_reading 0 -> 1.)"""
    essay = (GAMING / "essay_one_figure_line_en.md").read_text(encoding="utf-8").replace(
        "My heatmap is attached above.", "")
    text = essay.replace("Interpreting these matrices requires care.",
                         "In my heatmap q0 attends most to k2. Interpreting these matrices requires care.")
    r = grade(text, checklist)
    assert items(r)["limits"]["points"] == 4 and items(r)["figure_reading"]["points"] == 1, _detail(r)


def test_a_short_text_needs_no_share_of_readings(checklist):
    text = "Rows = queries. Not causal. Not feature importance. One example does not generalise."
    # round 24: "Not causal." and "Not feature importance." are bare keywords, half credit each: 0.75 + 0.75 + 1
    assert items(grade(text, checklist))["limits"]["points"] >= 2.5


# ------------------------------------------------------- 2. "shows that the model relies on" asserts

@pytest.mark.parametrize("sentence, hedged", [
    ("This shows that the model relies on k2.", False),
    ("The heatmap indicates that the model relies on k2 for its prediction.", False),
    ("It means the model depends on k2.", False),
    ("The figure reveals that the network relies on k1.", False),
    ("This suggests that the model relies on k2.", True),
    ("这表明模型依赖 k2。", False),
    ("这说明模型依赖 k2 做出预测。", False),
    ("這顯示模型依賴 k2。", False),
])
def test_showing_that_the_model_relies_on_a_key_is_an_overclaim(sentence, hedged, checklist):
    """Before: no flag ("This proves that ..." was flagged since round 17); after: flagged, at half cost when hedged."""
    r = grade_audit(sentence, None, {}, checklist)
    flags = [f for f in r["flags"] if f["kind"] == "overclaim"]
    assert flags, sentence
    assert (("still reads" in flags[0]["message"]["en"]) == hedged), flags[0]["message"]["en"]


@pytest.mark.parametrize("sentence", [
    "This does not show that the model relies on k2.",
    "The figure cannot show that the model relies on these positions.",
    "Nothing here shows that the model relies on k2.",
    "The heatmap shows that the model relies on the mask to remove padding.",
    "这不能说明模型依赖这些位置做出预测。",
    "这显示模型依赖 mask 去掉 padding。",
])
def test_a_denied_showing_or_one_about_the_mask_is_no_overclaim(sentence, checklist):
    assert "overclaim" not in kinds(grade_audit(sentence, None, {}, checklist))


# -------------------------------------------------------------------- 3. the colour of a masked key

def _blues(x: float) -> tuple[int, int, int]:
    a, b = (247, 251, 255), (8, 48, 107)
    return tuple(round(a[k] + (b[k] - a[k]) * x) for k in range(3))


def _light_low_heatmap(weights=EXAMPLE_WEIGHTS, vmin: float = 0.0) -> bytes:
    """A Blues heatmap (seaborn's cmap="Blues"): 0 is near white, 1 dark blue (with ``vmin`` below 0, as
    ``sns.heatmap(w, vmin=-0.2)`` draws it, a weight of 0 is a pale blue that stands out from the page)."""
    im = Image.new("RGB", (520, 330), "white")
    d = ImageDraw.Draw(im)
    for r, row in enumerate(weights):
        for c, v in enumerate(row):
            d.rectangle([90 + c * 110, 40 + r * 110, 199 + c * 110, 149 + r * 110],
                        fill=_blues((v - vmin) / (1 - vmin)))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def test_the_figure_tells_which_end_of_its_colour_scale_is_low(checklist):
    dark_low, light_low = analyse_figure(make_heatmap()), analyse_figure(_light_low_heatmap())
    assert _low_end(dark_low, EXAMPLE_WEIGHTS) == "dark"
    assert _low_end(light_low, EXAMPLE_WEIGHTS) == "light"
    assert _low_end(dark_low, None) is None                                    # no weights: cannot tell
    assert _low_end(dark_low, [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]) is None      # equal weights: cannot tell
    assert _low_end(dark_low, [[0.2, 0.8], [0.5, 0.5]]) is None                # another shape: cannot tell
    other = [[0.67, 0.24, 0.09], [0.21, 0.58, 0.21]]                           # another example, unrelated
    assert _low_end(dark_low, other) is None


# The colour of a masked key is read on a figure that shows one (round 22): the lab's example with k0 masked, as the
# student's code computes it (k0 masked for q0). On the lab's example itself no key is masked (test_audit_round22.py).
MASKED_W = [[0.0, 0.73, 0.27], [0.09, 0.24, 0.67]]
VMIN = -0.2        # the masked cell of the Blues figure is pale blue, not the page's white

DARK = ["The masked keys are dark.", "The padded keys at the end are dark.", "被遮蔽的 key 是深色的。",
        "被 mask 的那一列偏暗。", "The masked keys are black.", "被遮蔽的 key 全黑。"]
LIGHT = ["The masked keys are white.", "The masked column looks pale.", "被遮蔽的 key 是白色的。", "被 mask 的列是浅色的。"]


@pytest.mark.parametrize("sentence", DARK)
def test_a_dark_masked_key_counts_on_a_dark_low_figure_and_when_the_figure_cannot_tell(sentence, checklist):
    """Before: "dark"/深色 earned nothing where "black" did; after: both, unless the figure shows low as light."""
    assert items(grade(sentence, checklist, make_heatmap(MASKED_W), MASKED_W))[MASKED[0]]["points"] > 0
    assert concept_credited(sentence, *MASKED, checklist)                      # no figure: cannot tell


@pytest.mark.parametrize("sentence", DARK)
def test_a_dark_masked_key_on_a_light_low_figure_earns_nothing_and_says_why(sentence, checklist):
    r = grade(sentence, checklist, _light_low_heatmap(MASKED_W, VMIN), MASKED_W)
    fb = items(r)["figure_reading"]["feedback"]
    assert items(r)["figure_reading"]["points"] == 0
    assert "smaller weights are drawn lighter" in fb["en"] and "权重越小颜色越浅" in fb["zh"]


@pytest.mark.parametrize("sentence", LIGHT)
def test_a_white_masked_key_counts_only_on_a_light_low_figure(sentence, checklist):
    assert items(grade(sentence, checklist, _light_low_heatmap(MASKED_W, VMIN), MASKED_W))["figure_reading"]["points"] > 0
    dark = grade(sentence, checklist, make_heatmap(MASKED_W), MASKED_W)
    assert items(dark)["figure_reading"]["points"] == 0
    assert "smaller weights are drawn darker" in items(dark)["figure_reading"]["feedback"]["en"]
    assert not concept_credited(sentence, *MASKED, checklist)                  # no figure: cannot tell


@pytest.mark.parametrize("sentence", ["The masked keys are not dark.", "The masked keys are dark grey, not zero?",
                                      "被遮蔽的 key 不是深色的。", "The unmasked keys are dark."])
def test_a_denied_or_asked_dark_earns_nothing(sentence, checklist):
    assert not concept_credited(sentence, *MASKED, checklist)


# ------------------------------------------------------------ 4. a heading that names the figure

HEADING_BODY = ("Attention weights are not causal effects, since the output also depends on the values and later "
                "layers. A high weight is not feature importance. The weights are not the true mechanism of a model. "
                "One small example does not generalise to other inputs.")


def test_generic_caveats_under_a_heading_naming_the_figure_count_in_an_audit_that_reads_it(checklist):
    honest = (HONEST / "bullets_en.md").read_text(encoding="utf-8").split("## What it cannot show")[0]
    text = honest + "\n## What my heatmap cannot prove\n\n" + HEADING_BODY + "\n"
    assert items(grade(text, checklist))["limits"]["points"] == 4


def test_generic_caveats_under_a_heading_naming_the_figure_earn_nothing_in_an_essay(checklist):
    """The heading makes them caveats, not readings: in an essay whose one reading is far from them, they are
    about attention in general like any paragraph (before: limits 4)."""
    essay = (GAMING / "llm_essay_en.md").read_text(encoding="utf-8")
    text = essay + "\n\nIn my heatmap q0 attends most to k1.\n\n## What my heatmap cannot prove\n\n" + HEADING_BODY + "\n"
    assert items(grade(text, checklist))["limits"]["points"] == 0


# ------------------------------------------------------------------ 5. new gaming audits (zh and en)

# name: score with the lab's heatmap before this round (every text of tests/audit/gaming must score <= 4:
# test_audit_validation.py); after: 2-4
NEW_GAMING = {
    # an essay that writes "looking at heatmaps like mine, one sees ..." (看像我这样的热力图) and "a bright cell does not
    # prove ...": a sight word in a denied or generic statement is no reading, "like mine" no own case
    "essay_disguised_as_readings_en.md": 13.0, "essay_disguised_as_readings_zh.md": 13.0,
    # the handout's claims reworded; "这类权重图" / "this kind of figure" is figures in general, not this one
    "handout_rewritten_en.md": 8.5, "handout_rewritten_zh.md": 10.0,
    "heading_over_essay_en.md": 9.0,                       # "## What my heatmap cannot prove" over an essay
    "true_but_irrelevant_en.md": 6.5, "true_but_irrelevant_zh.md": 6.5,   # history, GPUs, softmax facts
    "keyword_salad_sentences_en.md": 4.0, "keyword_salad_sentences_zh.md": 4.0,   # keywords joined by "and"
    "different_figure_en.md": 2.0, "different_figure_zh.md": 2.0,   # a 16x16 head described: cells the grid lacks
    # the essay of essay_one_figure_line with each paragraph opened by "This is ..." / 这就是...: no own case
    "essay_this_prefixed_en.md": 11.0, "essay_this_prefixed_zh.md": 11.0,
    # ... and by "I think ..." / 我认为...: an opinion on attention in general is no own case
    "essay_i_think_en.md": 11.0, "essay_i_think_zh.md": 8.0,
}


@pytest.mark.parametrize("name", sorted(NEW_GAMING))
def test_a_new_gaming_audit_scores_at_most_4_with_the_real_heatmap(name, checklist):
    r = grade((GAMING / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] <= 4, _detail(r)
    assert items(r)["limits"]["points"] == 0, _detail(r)


@pytest.mark.parametrize("sentence, reads", [
    ("The diagonal is bright.", True),
    ("对角线最亮。", True),
    ("A bright cell does not prove a causal effect on the output.", False),
    ("亮的格子并不能证明对输出的因果效应。", False),
])
def test_a_sight_word_in_a_denied_statement_reads_nothing(sentence, reads, checklist):
    assert _reads(checklist, _segment(checklist, sentence)[0]) == reads


@pytest.mark.parametrize("sentence, own", [
    ("This does not prove that the model relies on k2.", True),
    ("This kind of figure cannot prove causality.", False),
    ("这不能证明因果。", True),
    ("这类权重图能支持的结论很有限。", False),
    ("我只跑了一个 seed。", True),
    ("看像我这样的热力图，可以看出每一行对应一个 query。", False),
    ("Looking at heatmaps like mine, one sees that rows are queries.", False),
    ("I ran a single seed.", True),
    ("This is a single head and a single example.", True),
    ("It also cannot show what the other heads do.", True),
    ("这只是一个小例子。", True),
    ("它也看不出其他头在做什么。", True),
    ("This is why interpreting these matrices requires care.", False),
    ("This is self-attention: it compares every query with every key.", False),
    ("这就是 mask 的作用。", False),
    ("这一点需要谨慎解读。", False),
    ("I think interpreting these matrices requires care.", False),
    ("我认为注意力不等于特征重要性。", False),
    ("I only plotted the first head.", True),
])
def test_what_speaks_of_the_students_own_case(sentence, own, checklist):
    # a sentence that points back ("This does not prove ...", 这不能证明) speaks of it when the sentence before it does
    # (round 19, anchor.points_back; test_audit_round19)
    text = _segment(checklist, sentence)[0].text
    assert bool(checklist.anchor_own_case.search(text) or checklist.anchor_points_back.search(text)) == own


# ------------------------------------------------------------ 6. new honest audits, in new styles

# name: score with the lab's heatmap before this round's fixes -> after (every honest file must score >= 12:
# test_audit_round14.py)
NEW_HONEST = {
    "terse_notes_en.md": (10.5, 15.0),           # notes with arrows, "label: ..." lines and a "cannot conclude:" list
    "numbers_inline_prose_en.md": (13.0, 15.0),  # one paragraph, every number inline
    "table_claims_en.md": (15.0, 15.0),          # an English claims table: yes/no per claim and why
    "zh_english_terms_inline_zh.md": (15.0, 15.0),   # 中文夹英文术语, numbers inline
    "qa_format_zh.md": (15.0, 15.0),             # 问/答
    "numbered_steps_dark_mask_en.md": (15.0, 15.0),  # a numbered list; the masked key "is dark" on viridis
}


@pytest.mark.parametrize("name", sorted(NEW_HONEST))
def test_a_new_honest_audit_scores_what_it_earns(name, checklist):
    r = grade((HONEST / name).read_text(encoding="utf-8"), checklist, make_heatmap(), EXAMPLE_WEIGHTS)
    assert r["score"] >= NEW_HONEST[name][1], _detail(r)
    assert kinds(r) == [], r["flags"]


@pytest.mark.parametrize("text, lines", [
    ("exp A: d_k 8 -> 128, entropy w/o scale 1.07 -> 0.15, with scale ~1.05 flat over the whole range\n"
     "exp B: 2 pad keys -> weight 0.000, sample 0 output unchanged, rows still sum to one\n"
     "exp C: 1, 4, 16 queries -> output shapes (1, 8), (4, 8), (16, 8)", 3),
    ("实验 A：d_k 从 8 增大到 128，不加 scale 时 entropy 从 1.07 降到 0.15，加了 scale 一直保持在 1.05 左右\n"
     "实验 B：加 2 个 padding key，它们的 weight 都是 0，第一个样本的 output 没有变", 2),
    # a wrapped line still continues on the next
    ("In experiment A the entropy without the scale went down steadily as the dimension of\nthe keys grew from 8 to 128.", 1),
])
def test_a_line_opening_with_a_label_and_a_colon_is_a_note_of_its_own(text, lines):
    """Before: unpunctuated "label: ..." lines were joined as one wrapped line, one sentence with a two-point
    budget (terse_notes_en: experiments 1 -> 3)."""
    assert len(_lines(text)) == lines


@pytest.mark.parametrize("lead, caveat", [
    ("cannot conclude:", True), ("I can't infer:", True), ("不能推断：", True), ("we can conclude:", False)])
def test_a_lead_in_saying_what_cannot_be_concluded_makes_its_bullets_caveats(lead, caveat, checklist):
    """Before: "cannot conclude:" over "- k1 = most important feature for q0" earned no caveat (terse_notes_en: limits
    1.5 -> 4)."""
    text = f"{lead}\n- k1 = most important feature for q0 (values matter too)\n"
    assert concept_credited(text, *IMPORTANCE, checklist) == caveat


@pytest.mark.parametrize("sentence", [
    "My output matches torch.nn.functional.scaled_dot_product_attention with max_abs_error = 2.6e-7 and "
    "row_sum_error = 1.1e-7 at seed 0.",
    "max_abs_error = 2.6e-7 and row_sum_error = 1.1e-7 against F.scaled_dot_product_attention with seed 0.",
    "与 scaled_dot_product_attention 比较，max_abs_error = 2.6e-7 且 row_sum_error = 1.1e-7。",
])
def test_metrics_given_their_values_are_a_measurement_not_a_keyword_list(sentence, checklist):
    """Before: the reference and two metric names in one clause were three keywords (reference not credited: parity
    2.5 of 3; validation en_partial_copy 6.0, hand 6.5)."""
    r = grade_audit(sentence, None, MEASURED_OK, checklist)
    assert items(r)["parity"]["points"] == 2.5, items(r)["parity"]["feedback"]["en"]


def test_metric_names_without_values_in_a_keyword_clause_are_still_keywords(checklist):
    r = grade_audit("max_abs_error row_sum_error scaled_dot_product_attention rows queries", None, MEASURED_OK, checklist)
    assert "list of keywords" in items(r)["parity"]["feedback"]["en"]


@pytest.mark.parametrize("text, item, points", [
    ("In experiment A the entropy without scaling dropped from 1.07 to 0.15; in experiment B the 2 padding keys got "
     "weight 0.0 and the output was unchanged; in experiment C 1, 4 and 16 queries gave output shapes (1, 8), (4, 8) "
     "and (16, 8).", "experiments", 3),
    ("In the figure each row is one query and each column is one key; every row sums to 1; a masked key is 0 in every "
     "row.", "figure_reading", 3),
    ("实验 A：不缩放时熵从 1.07 降到 0.15；实验 B：2 个 padding key 的权重都是 0.0，输出不变；实验 C：1、4、16 个 query 的"
     "输出形状分别是 (1, 8)、(4, 8)、(16, 8)。", "experiments", 3),
])
def test_the_parts_of_a_sentence_between_semicolons_have_a_budget_each(text, item, points, checklist):
    """Before: one two-point budget for the whole sentence (experiments 2, figure_reading 2; validation
    en/zh_wrong_numbers 8 -> 9, hand 9)."""
    assert items(grade_audit(text, None, MEASURED_OK, checklist))[item]["points"] == points


def test_a_keyword_list_between_semicolons_is_still_a_keyword_list(checklist):
    r = grade_audit("rows queries columns keys sums to 1 masked 0; not causal", None, MEASURED_OK, checklist)
    assert "list of keywords" in items(r)["figure_reading"]["feedback"]["en"]


@pytest.mark.parametrize("text", [
    "In my heatmap the rows are the queries and the columns are the keys, and each row sums to 1. The masked key gets "
    "weight 0 in both rows, so the mask works as it should.\n\nA high attention weight is not a causal effect: removing "
    "the key might not change the output at all. Attention weights are not feature importance either, since the size of "
    "the values matters. One example does not generalise to other inputs.\n",
    "我的热力图里行是 query，列是 key，每一行的和都是 1。被 mask 的 key 在两行里的权重都是 0，说明 mask 生效了。\n\n"
    "高注意力权重不等于因果效应：去掉这个 key 输出可能根本不变。注意力权重也不是特征重要性，value 的大小同样重要。"
    "一个例子不能推广到其他输入。\n",
])
def test_readings_in_general_words_keep_the_caveats_a_paragraph_away(text, checklist):
    """An honest audit may read its figure in general words ("in my heatmap the rows are the queries ... each row sums
    to 1"): those are readings. Requiring a cell or a value of every reading (ec17158, reverted) took these caveats
    (limits 4 -> 0, 9 -> 5); its target, an essay whose every sentence opens with "The heatmap shows that ...", is
    left open (README)."""
    assert items(grade(text, checklist))["limits"]["points"] == 4


def test_a_reading_dense_in_cells_and_values_counts_at_its_length(checklist):
    """"q0 peaks at k1 (0.58), q1 at k2 (0.67)" is 3 units of _units (cells and numbers are no words) but 11 tokens:
    measured in _units, this audit read its figure in 11.9 % of its text and its "Limitations" lost 4 points (6 -> 2)."""
    text = ("Figure: weights[0, 0], q0 and q1 as rows, k0-k2 as columns. q0 peaks at k1 (0.58), q1 at k2 (0.67).\n\n"
            "Limitations\n\nAttention weights are reading coefficients. A high weight is not a causal effect, and it is "
            "not feature importance, because the values and the later layers shape the output as much as the weights. "
            "The weights are not the true mechanism of the model. A single small example does not generalise to other "
            "inputs, other seeds or a trained model, and a nice heatmap does not replace the shape tests and the parity "
            "check.\n")
    assert items(grade(text, checklist))["limits"]["points"] == 4
