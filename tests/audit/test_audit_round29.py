"""Audit round 29: evidence of the audit.

1. Honest caveats in the student's own words were taken for the handout translated (round 22's ``handout.translated``):
   "the dark k2 cell does not show that k2 causes q1's output or makes k2 important; the weights are the layer's
   internal reading coefficients, not the real mechanism" names causality, importance, the real mechanism and
   internality, five ideas of the course page's sentence "把 attention weight 直接解释成因果重要性；权重是模型内部计算，
   不等于真实机制", so it was a copy and lost all 4 limits points. Those are the caveats the rubric asks every student to
   state; a translation also keeps the handout sentence's other ideas (automatic, discovery, routing, upgrade...). Now a
   copy needs ``translated.min_other`` of those: the honest sentences keep their points, every translation of round 22
   is still a copy.
2. A key's column read as a whole was not checked: "key 0 receives the most attention overall", "column 0 is the
   brightest", 第一列总体上获得的注意力最多 of a figure whose first column holds the least weight earned the readings' and the
   caveats' points (gaming/column_claims_other_*.md 8/15), and a true total over both queries ("across both queries, k2
   gets the largest total weight") was read as every query's peak and called a misreading. Now the column's sum over
   the queries is checked; a colour word by the figure's low end (darkest is the least weight on viridis, the most on
   Blues); both fixtures 2, flagged; honest/column_claims_*.md 12 before and after.
3. Masked keys' cells left blank (a NaN or a masked entry is not drawn: the white page shows through) on a dark-low
   colour map (viridis): "the masked key k2 is white" was told "a weight of 0 is the darkest colour of its scale, not
   white" and earned nothing, "the masked key k2 is black" was credited; a masked middle column of two such cells was
   one box (5 cells of 6: no lightness read at all). Now such cells are white (reason ``colour_blank`` for "black"),
   the colour scale's low end is read from the drawn cells, and a light region is cut into cells of the grid's size.
4. A Markdown table whose answer cell gives its reason after the "no" ("| k2 causes q1's output | No: that needs an
   ablation |", 不能：需要消融, "No (one small example)") did not deny its row: the claims were read as the student's, flagged
   as overclaims and deducted (honest/table_no_reasons_*.md 7/15, limits 0). Now the cell's first piece is its answer:
   12; "No doubt: ...", "Nothing else matters", "No question" still assert (gaming/table_no_doubt_en.md 2).
5. Struck-through text was read: "This does ~~not~~ prove that k2 causes q1's output" (also ~not~, <del>, <s>, <strike>)
   earned a caveat on a page that shows the "not" struck out, and a claim the student struck out and took back was an
   overclaim. Now struck text is not read; "~0.58" (approximately) is no strikethrough.
6. A screenshot in which the heatmap fills a small part (a notebook or slide captured whole: the lab's figure in the
   middle ninth of a grey page) was "not a heatmap" (figure 0/2, and feedback that calls it a photo or a chart): the
   analysed copy is 160 pixels a side, where such a grid is under the 5 % of the image a grid must cover. Now a figure
   that finds no grid is analysed again, cropped to what differs from the image's border. And an image too small to
   analyse (a 60x34 heatmap) was told it is "not a heatmap ... a photo, a chart or a drawing": a guess. Now the
   feedback gives its size and that no grid was found in it, with how to save it larger.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import (
    EXAMPLE_WEIGHTS,
    MEASURED_OK,
    _viridis,
    items,
    kinds,
    make_cmap_heatmap,
    make_heatmap,
    misreads_a_cell,
)
from tests.audit.test_audit_round14 import HONEST
from tests.audit.test_audit_validation import GAMING
from tests.grading.helpers import english_in_zh

FIGURE = make_heatmap()
READINGS_EN = ("My heatmap is weights[0,0] of the 2x3 example: rows are the queries q0, q1 and columns the keys k0-k2.\n"
               "q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\n")
READINGS_ZH = "我的图是 weights[0,0] 的 2×3 热力图：两行是 q0、q1 两个 query，三列是 k0–k2 三个 key。\nq0 主要读 k1（0.58），q1 主要读 k2（0.67）。\n"


def _limits(sentence: str, checklist) -> tuple[float, dict]:
    opener = READINGS_ZH if any("\u4e00" <= ch <= "\u9fff" for ch in sentence) else READINGS_EN
    r = grade_audit(opener + sentence + "\n", FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return items(r)["limits"]["points"], r


# ------------------------------------------------------------------ 1. own caveats are no translation of the handout

@pytest.mark.parametrize(("sentence", "points"), [
    ("The dark k2 cell does not show that k2 causes q1's output, and it does not make k2 the most important key; the "
     "weights are the layer's internal reading coefficients, not the real mechanism.", 4),
    ("A high weight on k2 does not mean k2 caused q1's output or that k2 is the important feature; it is an internal "
     "reading weight of this layer and says nothing about the true mechanism.", 4),
    # two points a sentence (settings.max_concepts_per_sentence): causality and importance, 3 of the 4
    ("My heatmap does not show causal effects or feature importance: the weights are internal reading coefficients, "
     "not the real mechanism.", 3),
    ("q1 在 k2 上权重最大，并不等于 k2 对输出有因果作用或者 k2 更重要；权重是模型内部的读取系数，不是真实机制。", 4),
])
def test_a_caveat_in_own_words_naming_the_asked_ideas_is_no_copy(sentence, points, checklist):
    """Before: limits 0, flagged copied (five ideas of one handout sentence); after: what the caveats earn."""
    got, r = _limits(sentence, checklist)
    assert "copied" not in kinds(r)
    assert got == points, items(r)["limits"]["feedback"]["en"]


@pytest.mark.parametrize("sentence", [
    # the handout's other ideas kept beside the asked ones (automatic, equal, explanation, discovery; direct,
    # computation...): still a translation, with a cell named or not
    "The weight on k2 does not automatically equal causal explanation, feature importance or real mechanism discovery.",
    "Interpreting the k2 weight directly as causal importance is wrong; weights are internal computation of the model, "
    "not equal to the real mechanism.",
    "This does not automatically mean a causal explanation, feature importance, or the discovery of a true mechanism.",
    "k2 的权重高不能说明 k2 导致了输出，也不说明它更重要；这只是模型内部的计算，不等于真实机制。",
])
def test_a_translation_keeping_the_handouts_other_ideas_is_still_a_copy(sentence, checklist):
    got, r = _limits(sentence, checklist)
    assert got == 0 and "copied" in kinds(r), items(r)["limits"]["feedback"]["en"]


def test_the_checklist_refuses_asked_ideas_it_does_not_define(checklist, tmp_path):
    """``translated.asked`` names ideas of ``translated.terms``: a misspelt one would silently ask for nothing."""
    from rubric.audit.checklist import ChecklistError
    from tests.audit.test_audit_checklist import _edited

    with pytest.raises(ChecklistError, match="asked"):
        _edited(checklist, tmp_path, lambda d: d["handout"]["translated"].update(asked=["causal", "causality"]))


# ------------------------------------------------------------------ 2. a column read as a whole

# EXAMPLE_WEIGHTS by column, summed over both queries: k0 0.30 (least), k1 0.82, k2 0.88 (most); keys counted from 0 or 1
# as cells are, so a false reading is false either way
VIRIDIS = FIGURE                                            # the low end dark: the most weight is the brightest
BLUES = make_cmap_heatmap(EXAMPLE_WEIGHTS, "Blues")         # the low end light: the most weight is the darkest


@pytest.mark.parametrize(("sentence", "figure"), [
    ("Key 0 receives the most attention overall.", VIRIDIS),
    ("Overall, key 0 is attended to the most.", VIRIDIS),
    ("k0 gets the most weight in total.", VIRIDIS),
    ("Across both queries, k0 gets the largest total weight.", VIRIDIS),
    ("q0 reads mostly from k1, but overall k0 receives the most attention.", VIRIDIS),
    ("Column 2 is the darkest column.", VIRIDIS),
    ("The first column is the brightest.", VIRIDIS),
    ("Key 2 receives the least attention of all the keys.", VIRIDIS),
    ("Column 0 is the darkest column.", BLUES),
    ("第一列总体上获得的注意力最多。", VIRIDIS),
    ("两个 query 加起来，k0 得到的权重最多。", VIRIDIS),
    ("k1 这一列是全图最亮的一列。", VIRIDIS),
    ("第三列整体最暗。", VIRIDIS),
])
def test_a_false_reading_of_a_whole_column_is_a_misreading(sentence, figure, checklist):
    """Before: not read (or, with "both queries", read as every query's peak); after: flagged."""
    assert misreads_a_cell(sentence, checklist, figure)


@pytest.mark.parametrize(("sentence", "figure"), [
    ("Key 2 receives the most attention overall.", VIRIDIS),
    ("Across both queries, k2 gets the largest total weight.", VIRIDIS),
    ("q0 reads mostly from k1, but overall k2 receives the most attention.", VIRIDIS),
    ("Column 0 is the darkest column.", VIRIDIS),
    ("The last column is the brightest.", VIRIDIS),
    ("Column 2 is the darkest column.", BLUES),
    ("第三列总体上获得的注意力最多。", VIRIDIS),
    ("两个 query 加起来，k2 得到的权重最多。", VIRIDIS),
    ("第一列总体上获得的注意力最少，是全图最暗的一列。", VIRIDIS),
    # not a reading of a column: denied, compared, another quantity
    ("It is not true that k0 receives the most attention overall.", VIRIDIS),
    ("Column 0 is darker than column 2.", VIRIDIS),
    ("Overall, k0 has the largest entropy contribution.", VIRIDIS),
])
def test_a_true_or_no_reading_of_a_whole_column_is_no_misreading(sentence, figure, checklist):
    """"across both queries, k2 gets the largest total weight" was read as a peak of each query before (flagged)."""
    assert not misreads_a_cell(sentence, checklist, figure)


@pytest.mark.parametrize("name", ["column_claims_other_en.md", "column_claims_other_zh.md"])
def test_an_audit_reading_another_figures_columns_earns_only_the_figure(name, checklist):
    """Before: 8/15 (readings 2, limits 4); after: 2, flagged."""
    text = (GAMING / name).read_text(encoding="utf-8")
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert r["score"] == 2 and "figure" in kinds(r), [(it["id"], it["points"]) for it in r["items"]]


# ------------------------------------------------------------------ 3. masked cells left blank

def _blank_zero(v: float) -> tuple[int, int, int]:
    """viridis, with a weight of 0 not drawn (the page's white), as plt.imshow draws a NaN."""
    return (255, 255, 255) if v == 0 else _viridis(v)


# the lab's example with one key masked, as the mask audit computes it (a masked key's weight is exactly 0)
MASKED = {0: [[0.0, 0.73, 0.27], [0.0, 0.27, 0.73]], 1: [[0.27, 0.0, 0.73], [0.73, 0.0, 0.27]],
          2: [[0.27, 0.73, 0.0], [0.73, 0.27, 0.0]]}


@pytest.mark.parametrize("key", [0, 1, 2])
@pytest.mark.parametrize(("colour", "credited"), [
    ("white", True), ("blank, as white as the page", True), ("black", False), ("dark", False)])
def test_a_masked_key_left_blank_is_white(key, colour, credited, checklist):
    """Before: "white" not credited (told that 0 is the darkest colour), "black" credited; the middle key's column was
    one box. After: the cells' colour decides, and "black" is told the cells show the page."""
    weights = MASKED[key]
    figure = make_heatmap(weights, colour=_blank_zero)
    text = f"My heatmap: rows q0, q1, columns k0-k2. The masked key k{key} is {colour} in both rows: its weight is 0.\n"
    r = grade_audit(text, figure, MEASURED_OK, checklist, weights=weights)
    item = items(r)["figure_reading"]
    assert items(r)["figure"]["points"] == 2 and "figure" not in kinds(r)
    assert (item["points"] > 0) is credited, item["feedback"]["en"]
    if not credited:
        assert "not drawn: they show the white page" in item["feedback"]["en"]
        assert "没有着色，露出的是白色的底" in item["feedback"]["zh"]
        assert not english_in_zh(item["feedback"]["zh"].split("：", 1)[1])


def _frameless(weights) -> bytes:
    """seaborn's heatmap(w, mask=w == 0): the masked cells not drawn, no frame, tick labels beside the grid."""
    import io

    from PIL import Image, ImageDraw

    cell = 110
    im = Image.new("RGB", (90 + 3 * cell + 110, 40 + 2 * cell + 70), "white")
    d = ImageDraw.Draw(im)
    for r, row in enumerate(weights):
        for c, v in enumerate(row):
            if v:
                d.rectangle([90 + c * cell, 40 + r * cell, 90 + (c + 1) * cell - 1, 40 + (r + 1) * cell - 1],
                            fill=_viridis(v))
        d.text((20, 40 + r * cell + 50), f"q{r}", fill="black")
    for c in range(3):
        d.text((90 + c * cell + 50, 40 + 2 * cell + 10), f"k{c}", fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("colour", ["white", "black"])
def test_a_masked_middle_column_left_blank_without_a_frame_is_a_column_of_the_grid(colour, checklist):
    """Before: "not a heatmap" (figure 0, flagged); after: the 2x3 grid, its masked key white."""
    weights = MASKED[1]
    text = f"My heatmap: rows q0, q1, columns k0-k2. The masked key k1 is {colour} in both rows: its weight is 0.\n"
    r = grade_audit(text, _frameless(weights), MEASURED_OK, checklist, weights=weights)
    assert items(r)["figure"]["points"] == 2 and "figure" not in kinds(r)
    assert (items(r)["figure_reading"]["points"] > 0) is (colour == "white")


@pytest.mark.parametrize("key", [0, 1, 2])
def test_a_masked_key_drawn_in_the_colour_maps_low_end_is_still_dark(key, checklist):
    """The same weights drawn with the 0 on the colour map (viridis' dark end): "black" counts, "white" does not."""
    weights = MASKED[key]
    figure = make_heatmap(weights)
    for colour, credited in (("black", True), ("white", False)):
        text = f"My heatmap: rows q0, q1, columns k0-k2. The masked key k{key} is {colour} in both rows: its weight is 0.\n"
        item = items(grade_audit(text, figure, MEASURED_OK, checklist, weights=weights))["figure_reading"]
        assert (item["points"] > 0) is credited, (colour, item["feedback"]["en"])


# ------------------------------------------------------------------ 4. a table's "no" with its reason

TABLE = ("My heatmap: rows q0, q1, columns k0-k2; q0 reads mostly from k1 (0.58), q1 mostly from k2 (0.67).\n\n"
         "| Claim | {header} |\n|---|---|\n| k2 causes q1's output | {answer} |\n")


@pytest.mark.parametrize(("header", "answer"), [
    ("Can my heatmap prove it?", "No: that would need an ablation of k2"),
    ("Can my heatmap prove it?", "No, a weight is not an effect"),
    ("Can my heatmap prove it?", "No — only an intervention could"),
    ("Does the heatmap show it?", "No (one small example)"),
    ("Does the heatmap show it?", "✗ because it needs an ablation"),
    ("这张图能证明吗", "不能：需要对 k2 做消融"),
    ("这张图能证明吗", "否，权重不是因果"),
])
def test_a_table_no_with_its_reason_denies_the_rows_claim(header, answer, checklist):
    """Before: the row's claim was the student's, an overclaim (limits 0, deducted); after: a caveat."""
    r = grade_audit(TABLE.format(header=header, answer=answer), FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] > 0, items(r)["limits"]["feedback"]["en"]


@pytest.mark.parametrize("answer", ["No doubt: the brightest cell is the cause", "No question", "Yes: no ablation needed",
                                    "Nothing else matters"])
def test_a_table_answer_that_only_starts_like_no_still_asserts(answer, checklist):
    r = grade_audit(TABLE.format(header="Can my heatmap prove it?", answer=answer), FIGURE, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    assert items(r)["limits"]["points"] == 0, answer


@pytest.mark.parametrize("name", ["table_no_reasons_en.md", "table_no_reasons_zh.md"])
def test_an_honest_table_of_reasoned_noes_keeps_its_caveats(name, checklist):
    """Before: 7/15 (limits 0, two or three overclaims); after: 12."""
    r = grade_audit((HONEST / name).read_text(encoding="utf-8"), FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert r["score"] >= 12 and "overclaim" not in kinds(r), [(it["id"], it["points"]) for it in r["items"]]


# ------------------------------------------------------------------ 5. struck-through text

READ = "My heatmap: rows are q0, q1 and columns k0-k2; q0 reads mostly from k1 (0.58), q1 mostly from k2 (0.67).\n"


@pytest.mark.parametrize("struck", ["~~not~~", "~not~", "<del>not</del>", "<s>not</s>", "<strike>not</strike>"])
def test_a_struck_out_negation_is_no_caveat(struck, checklist):
    """Before: limits 1.5 (the caveat "does not prove ... causes"); after: the page shows "This does prove", an
    overclaim."""
    text = READ + f"This does {struck} prove that k2 causes q1's output.\n"
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)


def test_a_claim_struck_out_and_taken_back_is_no_overclaim(checklist):
    text = READ + "~~k2 causes q1's output.~~ This does not prove that k2 causes q1's output.\n"
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


@pytest.mark.parametrize("text", ["q0 reads mostly from k1 (~0.58), q1 mostly from k2 (~0.67)",
                                  "k0 ~0.21 and k1 ~0.58.", "```\nw = ~~mask\n```"])
def test_an_approximate_value_or_code_is_no_strikethrough(text):
    from rubric.audit.text import visible

    assert visible(text) == text


# ------------------------------------------------------------------ 6. a heatmap in a larger screenshot

def _in_screenshot(figure: bytes, times: int, page=(240, 240, 240), fmt: str = "PNG") -> bytes:
    """``figure`` in the middle of a page ``times`` its size (a screenshot of the whole window)."""
    import io

    from PIL import Image

    im = Image.open(io.BytesIO(figure)).convert("RGB")
    shot = Image.new("RGB", (im.width * times, im.height * times), page)
    shot.paste(im, ((shot.width - im.width) // 2, (shot.height - im.height) // 2))
    buf = io.BytesIO()
    shot.save(buf, fmt, **({"quality": 90} if fmt == "JPEG" else {}))
    return buf.getvalue()


@pytest.mark.parametrize(("times", "page", "fmt"), [(3, (240, 240, 240), "PNG"), (4, (30, 30, 30), "PNG"),
                                                     (3, (255, 255, 255), "JPEG")])
def test_a_heatmap_filling_a_small_part_of_a_screenshot_is_recognised(times, page, fmt):
    """Before: not_heatmap; after: the 2x3 grid, with the cells' lightness read."""
    from rubric.audit.figure import analyse_figure

    report = analyse_figure(_in_screenshot(FIGURE, times, page, fmt))
    assert (report.kind, report.rows, report.cols) == ("grid", 2, 3)


def test_a_chart_in_a_screenshot_is_still_no_heatmap():
    from rubric.audit.figure import analyse_figure
    from tests.audit.helpers import make_bar_chart, make_pie

    for figure in (make_pie(), make_bar_chart()):
        assert analyse_figure(_in_screenshot(figure, 3)).kind == "not_heatmap"


def test_a_tiny_figure_is_told_its_size_not_that_it_is_a_photo_or_a_chart(checklist):
    """Before: feedback_not_heatmap ("a photo, a chart or a drawing earns nothing"); after: its size, what was not
    found and how to save it larger, zh and en; still 0 points and flagged."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.open(io.BytesIO(FIGURE)).resize((60, 34), Image.Resampling.LANCZOS).save(buf, "PNG")
    r = grade_audit(READ, buf.getvalue(), MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    fb = items(r)["figure"]["feedback"]
    assert items(r)["figure"]["points"] == 0 and "figure" in kinds(r)
    assert "60×34 pixels" in fb["en"] and "photo" not in fb["en"]
    assert "60×34 像素" in fb["zh"] and not english_in_zh(fb["zh"])


def test_a_large_image_reduced_for_the_analysis_is_not_called_small():
    """The size is the image's own, not that of its reduced copy (a 640x480 photo is analysed at 160x120)."""
    from rubric.audit.figure import analyse_figure
    from tests.audit.helpers import make_noise_photo

    assert analyse_figure(make_noise_photo()).reason != "too_small"
