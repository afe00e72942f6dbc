"""The ninth red-team round of the audit checker: text no audit should hold. Any str is graded without
an exception (lone surrogates, NULs, every Unicode category); the worst audit of any shape costs a few
yardsticks of CPU, never time quadratic in its length; what the rendered page does not show (hidden,
script, style, CDATA, processing instructions, templates, SVG, MathML) earns nothing; invisible
characters inside a word hide nothing from the checker."""

from __future__ import annotations

import json
import random
import sys
import unicodedata

import pytest

from grading.inputs import validate_audit
from rubric.audit import grade_audit
from tests.audit.helpers import AUDITS, MEASURED_OK, items, kinds
from tests.helpers import cpu_in_yardsticks

CAUSAL_CAVEAT = "A high weight does not prove a causal effect of that key on the output."
OVERCLAIM = "The heatmap proves that key 1 is the most important feature of the input."


# ------------------------------------------------------------------------------- any str is graded
def _one_of_each_category() -> str:
    """One code point of every general category Unicode has (Cs: a lone surrogate, Cn: unassigned)."""
    seen: dict[str, str] = {}
    for cp in range(sys.maxunicode + 1):
        cat = unicodedata.category(chr(cp))
        if cat not in seen:
            seen[cat] = chr(cp)
    return "".join(seen.values())


@pytest.mark.parametrize("seed", range(4))
def test_grade_audit_never_raises_on_any_str(seed, checklist):
    """Lone surrogates (a notebook's "\\ud83d"), NULs (OpenCC is C++: a NUL ended the text), controls,
    private use, unassigned code points and one character of every Unicode category, mixed with the
    words, numbers and Markdown the checker reads."""
    rng = random.Random(seed)
    pieces = ["\ud83d", "\ude00", "\udfff\ud800", "\x00", "\x01\x7f\x85", "\u2028", "\ufffe", "\U0010ffff",
              "\U000e0041", "\u00ad", "\u0301", "測試後面", "因果", "不能证明", "max_abs_error = 2.4e-7",
              "cannot prove causality", "<b hidden>", "</b>", "<!--", "```", "|", "\n", "。", ". ", "?",
              "&#97;", "&", "$\\sum$", "10⁻⁷", _one_of_each_category()]
    for _ in range(40):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        r = grade_audit(text, None, {"max_abs_error": rng.choice([0.0, 1e-3, float("nan")])}, checklist,
                        weights=[[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], tests={"test_row_sums_are_one": "failed"})
        json.dumps(r, ensure_ascii=False).encode("utf-8")          # and its result is valid UTF-8


def test_a_lone_surrogate_or_a_nul_hides_nothing_around_it(checklist):
    plain = grade_audit(CAUSAL_CAVEAT, None, {}, checklist)
    for text in (CAUSAL_CAVEAT + " \ud83d", "\ud83d" + CAUSAL_CAVEAT, "Hello.\x00 " + CAUSAL_CAVEAT,
                 "熱力圖\x00" + CAUSAL_CAVEAT):
        assert items(grade_audit(text, None, {}, checklist))["limits"]["points"] == items(plain)["limits"]["points"]


def test_a_notebook_audit_with_a_lone_surrogate_or_nul_escape_is_read_as_valid_utf8(checklist):
    """C1: a notebook's JSON spells "\\ud83d" (half an emoji) in a Markdown cell: the submission used to
    end in "error" (OpenCC's UnicodeEncodeError); the text extracted is valid UTF-8 and graded."""
    data = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {},
         "source": ["# Audit\n", CAUSAL_CAVEAT + " \ud83d\n", "No NUL\u0000 here either.\n"]}]}).encode()
    text = validate_audit("audit.md", data)
    text.encode("utf-8")
    assert "\x00" not in text and CAUSAL_CAVEAT in text
    assert items(grade_audit(text, None, {}, checklist))["limits"]["points"] > 0


# ------------------------------------------------------------------------------------- linear time
_256K = 256 * 1024
WORST_SHAPES = {
    # C2: 1,900 unpunctuated Chinese lines, each long enough to be read as wrapped (12 s before)
    "wrapped_zh_lines": "注意力权重热力图行列查询键值缩放点积掩码填充实验观察记录结果分析\n",
    "wrapped_en_lines": "the attention weights of the heatmap are read along rows and keys for every query\n",
    "one_huge_line": "rows are queries and the heatmap proves causality of key 1 ",
    "many_tiny_lines": "行\n",
    "many_tiny_questions": "行是query?\n",
    # C3: 6,000 unclosed hidden elements (2.6 s before), and as many closed or plain ones
    "unclosed_hidden_elements": "<b hidden>x",
    "closed_hidden_elements": "<b hidden>x</b>",
    "tags": "<b>x ",
    "unclosed_tags": "<a b=\"",
}


@pytest.mark.parametrize("shape", sorted(WORST_SHAPES))
def test_a_256kb_audit_of_any_worst_case_shape_costs_at_most_40_yardsticks(shape, checklist):
    """A 20 KiB honest audit costs ~5 yardsticks (test_audit_grading); the worst 256 KiB of each shape
    (the checker reads settings.max_text_chars of it, and at most 3000 sentences) 0.2-27 (3000 tiny
    questions, the most: 17-27 over runs of the suite), i.e. well under a second on this project's hosts
    (~0.5 s at 40). The quadratic cases this guards against cost hundreds (12 s: ~800)."""
    text = (WORST_SHAPES[shape] * (_256K // len(WORST_SHAPES[shape]) + 1))[:_256K]
    grade_audit(text, None, MEASURED_OK, checklist)
    seconds, yardsticks = cpu_in_yardsticks(lambda: grade_audit(text, None, MEASURED_OK, checklist), rounds=3)
    assert yardsticks < 40, f"{yardsticks:.1f} yardsticks ({seconds * 1000:.1f} ms of CPU)"


def test_a_wrapped_paragraph_longer_than_the_join_limit_stays_a_wall_of_text(checklist):
    """Lines are joined up to a limit; the lines after it continue the same wall of text and earn
    nothing, down to its last piece (a short tail used to read as a sentence of its own)."""
    line = "每一行是一个查询每一列是一个键被屏蔽的位置权重为零这是我观察到的结果分析记录\n"
    r = grade_audit(line * 1000 + "每一行是一个查询", None, {}, checklist)
    assert items(r)["figure_reading"]["points"] == 0


# ------------------------------------------------------------------------ what the page does not show
@pytest.mark.parametrize("hidden", [
    f"<style>\n{CAUSAL_CAVEAT}\n</style>",
    f'<script type="text/plain">\n{CAUSAL_CAVEAT}\n</script>',
    f"<![CDATA[\n{CAUSAL_CAVEAT}\n]]>",
    f"<?php {CAUSAL_CAVEAT} ?>",
    f"<!DOCTYPE {CAUSAL_CAVEAT}>",
    f"<template>{CAUSAL_CAVEAT}</template>",
    f"<svg><text>{CAUSAL_CAVEAT}</text></svg>",
    f"<math><mtext>{CAUSAL_CAVEAT}</mtext></math>",
    f"<template><template></template>{CAUSAL_CAVEAT}</template>",
    f"<b hidden>{CAUSAL_CAVEAT}</b>",
    f'<p style="visibility: hidden">{CAUSAL_CAVEAT}</p>',
    f"<div hidden>\n\n{CAUSAL_CAVEAT}\n",
    f"<script>\n\n{CAUSAL_CAVEAT}\n",
    f"<b hidden>x{CAUSAL_CAVEAT}",
    f"<!-- {CAUSAL_CAVEAT}",
], ids=["style", "script", "cdata", "processing_instruction", "doctype", "template", "svg", "math",
        "nested_template", "hidden_attribute", "visibility_hidden", "unclosed_hidden_block", "unclosed_script",
        "unclosed_hidden_inline", "unclosed_comment"])
def test_text_inside_elements_the_page_does_not_show_earns_nothing(hidden, checklist):
    text = f"My heatmap is nice and colourful.\n{hidden}\n"
    assert items(grade_audit(text, None, {}, checklist))["limits"]["points"] == 0
    assert items(grade_audit(text.replace(hidden, CAUSAL_CAVEAT), None, {}, checklist))["limits"]["points"] > 0


@pytest.mark.parametrize("name", ["A4_en_script_hidden.md", "A4_zh_cdata_hidden.md"])
def test_a_whole_audit_hidden_in_script_or_cdata_earns_nothing(name, audit_text, checklist):
    r = grade_audit(audit_text(name), None, MEASURED_OK, checklist)
    assert all(it["points"] == 0 for it in r["items"])


def test_what_the_page_shows_is_read_tags_in_code_blocks_characters_by_reference_and_attributes_no(checklist):
    # the reference reads its figure (round 15: "My heatmap is nice." alone anchors no long text)
    shown = ("My heatmap is nice: its diagonal is bright.\n<details><summary>Limits</summary>\n\n" + CAUSAL_CAVEAT + "\n</details>\n"
             "<b title=\"hidden\">" + CAUSAL_CAVEAT + "</b>\n")
    assert items(grade_audit(shown, None, {}, checklist))["limits"]["points"] > 0
    # a character reference is read as the character the page shows: no overclaim hides behind it
    assert "overclaim" in kinds(grade_audit("The heatmap proves that key 1 is the most imp&#111;rtant feature.",
                                            None, {}, checklist))
    code = "```\n<style>max_abs_error = 2.4e-7</style>\n```\n"        # shown as written, as code
    assert items(grade_audit(code, None, MEASURED_OK, checklist))["parity"]["points"] > 0


def test_6000_unclosed_hidden_elements_grade_in_a_few_yardsticks(checklist):
    text = (AUDITS / "en_thorough.md").read_text(encoding="utf-8") + "<b hidden>x" * 6000
    seconds, yardsticks = cpu_in_yardsticks(lambda: grade_audit(text, None, MEASURED_OK, checklist), rounds=3)
    assert yardsticks < 10, f"{yardsticks:.1f} yardsticks ({seconds * 1000:.1f} ms of CPU)"


# --------------------------------------------------------------------------------- invisible letters
INVISIBLE = ["\u00ad", "\u034f", "\u2062", "\u180e", "\ufe0f", "\U000e0020", "\u200b", "\u2060", "\u061c"]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_an_overclaim_with_invisible_characters_inside_its_words_is_flagged_and_scores_like_the_plain_one(
        char, audit_text, checklist):
    plain = audit_text("en_thorough.md") + "\n\n" + OVERCLAIM + "\n"
    hidden = plain.replace(OVERCLAIM, " ".join(char.join(word) for word in OVERCLAIM.split(" ")))
    r_plain = grade_audit(plain, None, MEASURED_OK, checklist)
    r_hidden = grade_audit(hidden, None, MEASURED_OK, checklist)
    assert "overclaim" in kinds(r_hidden)
    assert r_hidden["score"] == r_plain["score"]


def test_the_red_team_soft_hyphen_audit_scores_like_its_visible_twin(audit_text, checklist):
    shy = grade_audit(audit_text("A5_en_overclaim_softhyphen.md"), None, {}, checklist)
    assert shy["score"] == grade_audit(audit_text("A5_en_overclaim_visible.md"), None, {}, checklist)["score"]
    assert "overclaim" in kinds(shy)


@pytest.mark.parametrize("lookalike", ["ı", "ɪ"])
def test_latin_lookalike_letters_hide_no_overclaim(lookalike, checklist):
    assert "overclaim" in kinds(grade_audit(OVERCLAIM.replace("i", lookalike), None, {}, checklist))


# ------------------------------------------------------------------------------ negation polarity
@pytest.mark.parametrize("sentence", [
    "It cannot be denied that the heatmap proves causality.",
    "No one can deny that the heatmap proves causality.",
    "None of us doubts that the heatmap proves causality.",
    "I disagree with the claim that the heatmap cannot prove causality.",
    "The heatmap does not fail to reveal the causal structure.",
    "热力图不是不能证明因果。",
    "不能否认热力图证明了因果关系。",
    "我不同意“热力图不能证明因果”这种说法。",
    "並非無法證明因果，這張圖就證明了 k1 是原因。",
    "熱力圖不是不能證明因果。",
    "我不同意「熱力圖不能證明因果」這種說法。",
])
def test_two_negations_or_a_denial_of_a_negation_assert_the_claim(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0
    assert "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "I disagree with the claim that attention weights are not feature importance.",
    "我不同意“高权重不等于重要性”这种说法。",
    "我不同意「高權重不等於重要性」這種說法。",
    "The heatmap does not fail to generalise: one example is enough.",
])
def test_a_denied_caveat_earns_no_caveat_credit(sentence, checklist):
    assert items(grade_audit(sentence, None, {}, checklist))["limits"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "I doubt that the heatmap proves causality.",
    "I deny that a bright cell is a causal effect on the output.",
    "我不同意“热力图能证明因果”这种说法。",
    "我懷疑熱力圖能證明因果。",
    "The heatmap does not prove causality and cannot show feature importance.",
    "The heatmap shows neither causality nor feature importance.",
    "热力图不能证明因果，也不能说明重要性。",
    "这张图说明的不是因果也不是重要性。",
    "I do not think the heatmap proves causality.",
    "We cannot say that the heatmap proves causality.",
    "我不认为热力图能证明因果。",
])
def test_a_single_negation_or_denial_stays_a_caveat(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] > 0 and "overclaim" not in kinds(r)


@pytest.mark.parametrize("sentence", [
    "It goes without saying that the heatmap proves causality.",
    "Obviously the heatmap proves causality.",
    "注意力权重代表因果关系是不言而喻的。",
    "注意力權重代表因果關係是不言而喻的。",
])
def test_obviousness_intensifies_the_claim_and_is_no_negation(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "Honestly I did not have time to think about causality.",
    "I have no idea what feature importance means here.",
    "I did not read the part about the mechanism.",
    "I never generalize, my mom says.",
    "我不想讨论 causality，太难了。",
    "我没有看 importance 这一块。",
    "mechanism 我也不懂，没关系。",
    "我没空 generalize。",
    "我不想討論因果關係，太難了。",
    "我沒有看重要性這一塊。",
])
def test_a_negation_of_the_students_own_action_is_no_caveat(sentence, checklist):
    assert items(grade_audit(sentence, None, {}, checklist))["limits"]["points"] == 0


@pytest.mark.parametrize("name", ["A1_en_double_negation.md", "A1_zh_double_negation.md", "A3_en_worthless.md",
                                  "A3_zh_filler_en_keywords.md"])
def test_red_team_double_negation_and_filler_audits_earn_no_limits(name, audit_text, checklist):
    """(test_audit_traditional.py grades the zh ones again in traditional characters: the same grade.)"""
    assert items(grade_audit(audit_text(name), None, MEASURED_OK, checklist))["limits"]["points"] == 0


# ----------------------------------------------------------------------------------------- numbers
def _claimed(text: str, checklist) -> list[tuple[str, str, float | None]]:
    from rubric.audit.claims import _extract_claims
    from rubric.audit.text import _segment
    return [(c.metric, c.relation, c.value) for s in _segment(checklist, text) for c in _extract_claims(checklist, s)[0]]


@pytest.mark.parametrize("text, metric, value", [
    ("max_abs_error (threshold 1e-5): 2.4e-7", "max_abs_error", 2.4e-7),
    ("max_abs_error 小于 1e-5 的要求，实际是 2.4e-7。", "max_abs_error", 2.4e-7),
    ("row_sum_error 在 1e-6 门槛以下，实测 1.2e-7。", "row_sum_error", 1.2e-7),
    ("row_sum_error is below the 1e-6 threshold (measured 1.2e-7).", "row_sum_error", 1.2e-7),
    ("| 最大绝对误差 | < 1e-5 | 2.4e-7 |", "max_abs_error", 2.4e-7),
    ("row_sum_error（門檻 1e-6）：1.2e-7", "row_sum_error", 1.2e-7),
])
def test_a_measured_value_after_a_quoted_threshold_is_read(text, metric, value, checklist):
    claims = _claimed(text, checklist)
    assert [(m, r) for m, r, _v in claims] == [(metric, "eq")]
    assert claims[0][2] == pytest.approx(value)


@pytest.mark.parametrize("text", ["最大绝对误差为 2.4 乘 10 的 -7 次方。", "最大绝对误差为 2.4 乘以10的-7次方。",
                                  "最大絕對誤差為 2.4 乘以 10 的負 7 次方。", "max_abs_error = 2.4 × 10^-7"])
def test_a_mantissa_times_a_power_of_ten_in_words_is_one_number(text, checklist):
    assert _claimed(text, checklist) == [("max_abs_error", "eq", pytest.approx(2.4e-7))]


def test_a_mantissa_followed_by_a_power_it_cannot_read_is_no_value(checklist):
    """"2.4 × 10 to the minus 7" is not 2.4 (a failing value the grader would call a mismatch)."""
    assert _claimed("max_abs_error = 2.4 × 10 to the minus 7", checklist) == []
    r = grade_audit("max_abs_error = 2.4 × 10 to the minus 7.", None, MEASURED_OK, checklist)
    assert "mismatch" not in str(items(r)["parity"]["feedback"])


# ------------------------------------------------------------------------------ tables and words
@pytest.mark.parametrize("name", ["B1_zh_colloquial.md", "B2_en_table.md"])
def test_a_table_row_answered_no_is_a_caveat_not_an_overclaim(name, audit_text, checklist):
    """"| k1 causes the output | ✗ | needs an ablation |": the cell that answers no denies its row's
    claim (test_audit_traditional.py grades the zh one again in traditional characters)."""
    r = grade_audit(audit_text(name), None, MEASURED_OK, checklist)
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] == items(r)["limits"]["max_points"]


@pytest.mark.parametrize("answer", ["否", "不能", "不可以", "✗", "×", "❌", "No", "Cannot"])
def test_every_way_of_answering_no_in_a_cell_denies_the_row(answer, checklist):
    table = f"| claim | supported? |\n|---|---|\n| k1 causes the output | {answer} |\n"
    r = grade_audit(table, None, {}, checklist)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


def test_a_table_row_answered_yes_is_still_an_overclaim_and_cells_are_clauses(checklist):
    table = "| claim | supported? |\n|---|---|\n| k1 causes the output | ✓ |\n"
    assert "overclaim" in kinds(grade_audit(table, None, {}, checklist))
    # a negation in the "why" cell does not reach the claim in the first one
    table = "| claim | why |\n|---|---|\n| k1 causes the output | the other keys are not bright |\n"
    assert "overclaim" in kinds(grade_audit(table, None, {}, checklist))


@pytest.mark.parametrize("sentence, concept_item", [
    ("要知道去掉某个 key 会不会改变输出，需要做消融实验，热力图本身回答不了这个问题。", "limits"),
    ("A bright cell doesn't mean that key matters more for the prediction.", "limits"),
    ("高权重不代表这个特征对预测影响大。", "limits"),
    ("The weights do not tell us how much a key influences the output.", "limits"),
    ("这只是一个 2×3 的 toy 例子，结论不能外推。", "limits"),
    ("With different random inputs the picture could look completely different, so I would not generalize.", "limits"),
    ("权重是 softmax 归一化之后的读取比例，看不出模型为什么这样预测。", "limits"),
    ("注意力 ≠ 解释。", "limits"),
    ("图好看不代表代码写对了，还是要看 parity 测试。", "limits"),
    ("Each row of weights adds to one.", "figure_reading"),
    ("每一行的权重相加等于一。", "figure_reading"),
    ("被遮住的 key 在每一行的权重都是 0。", "figure_reading"),
])
def test_common_words_for_the_limits_and_the_reading_are_understood(sentence, concept_item, checklist):
    assert items(grade_audit(sentence, None, {}, checklist))[concept_item]["points"] > 0


def test_a_lead_in_saying_what_cannot_be_seen_opens_a_cannot_prove_section(checklist):
    text = "**这张图看不出来的：**\n\n- k1 是最重要的特征。\n- 模型就是这么推理的。\n"
    r = grade_audit(text, None, {}, checklist)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0
