"""The second red-team round of the audit checker: what a sentence says, not which words it holds.
Text a rendered page hides earns nothing; a rebuttal, a question, a double negative or a negation
of another phrase is no caveat; a list after "cannot prove" is a list of caveats; homoglyphs,
symbols and synonyms read as what they look like; numbers the final code does not give earn
nothing."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import MEASURED_OK, items, kinds

CAUSAL_CAVEAT = "A high weight does not prove a causal effect of that key on the output."


@pytest.mark.parametrize("hidden", [
    f"My heatmap is nice and colourful.\n<!-- {CAUSAL_CAVEAT} -->\n",
    f"My heatmap is nice and colourful.\n\n![{CAUSAL_CAVEAT}](attention.png)\n",
    f'My heatmap is nice and colourful, see [the figure](attention.png "{CAUSAL_CAVEAT}").\n',
    f'My heatmap is nice and colourful.\n<span style="display:none">{CAUSAL_CAVEAT}</span>\n',
], ids=["html_comment", "image_alt_text", "link_title", "hidden_element"])
def test_text_the_rendered_page_does_not_show_earns_nothing(hidden, checklist):
    assert items(grade_audit(hidden, None, {}, checklist))["limits"]["points"] == 0
    assert items(grade_audit(CAUSAL_CAVEAT, None, {}, checklist))["limits"]["points"] > 0


def test_a_link_keeps_its_own_text_and_a_less_than_sign_is_not_a_tag(checklist):
    r = grade_audit("[A high weight does not prove a causal effect](notes.md) of that key; "
                    "max_abs_error < 1e-5 and row_sum_error = 1.1e-7.", None, MEASURED_OK, checklist)
    assert items(r)["limits"]["points"] > 0 and items(r)["parity"]["points"] > 0


REBUTTALS = [
    "It is wrong to say that the heatmap cannot prove causality: the bright cell is the cause of the output.",
    "Oh sure, the heatmap cannot prove that k2 causes the output.",
    "People who say the heatmap cannot prove causality are wrong.",
    "The heatmap cannot fail to prove that k2 causes the output.",
    "说热力图不能证明因果关系是错的。",
]


@pytest.mark.parametrize("sentence", REBUTTALS)
def test_a_rebutted_caveat_is_no_caveat_and_its_claim_is_an_overclaim(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0
    assert "overclaim" in kinds(r)


def test_a_warning_without_a_negation_after_it_stays_a_caveat(checklist):
    r = grade_audit("It would be wrong to say that the heatmap proves that k2 is the most important key.",
                    None, {}, checklist)
    assert items(r)["limits"]["points"] > 0 and "overclaim" not in kinds(r)


def test_a_heading_that_rebuts_the_caveats_opens_no_cannot_prove_section(checklist):
    r = grade_audit("## Why people who say the heatmap cannot prove causality are wrong\n\n"
                    "- The bright cell proves that k2 causes the output.\n- k2 is the most important key.\n",
                    None, {}, checklist)
    assert items(r)["limits"]["points"] == 0 and kinds(r).count("overclaim") == 2


def test_a_rhetorical_question_states_nothing_but_an_answered_one_does(checklist):
    asked = grade_audit("Isn't a high weight simply the feature importance of that key?", None, {}, checklist)
    assert items(asked)["limits"]["points"] == 0
    assert "question" in items(asked)["limits"]["feedback"]["en"] or "asked" in items(asked)["limits"]["feedback"]["en"]
    answered = grade_audit("Does a high weight prove a causal effect of that key? No, it does not.", None, {},
                           checklist)
    assert items(answered)["limits"]["points"] > 0


def test_a_negation_after_a_conjunction_belongs_to_another_phrase(checklist):
    r = grade_audit("The heatmap proves causality and not mere correlation.", None, {}, checklist)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)
    r = grade_audit("Causality cannot be inferred from one heatmap of weights.", None, {}, checklist)
    assert items(r)["limits"]["points"] > 0


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causality, feature importance, or the true mechanism of the model.",
    "这张图不能证明因果、特征重要性或真实的机制。",
    "这张热力图不能说明因果、特征重要性、真实的机制。",
])
def test_every_item_of_a_list_after_cannot_prove_is_a_caveat(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] >= 2


@pytest.mark.parametrize("sentence", [
    "A high weight ≠ a causal effect, and a bright cell ≠ feature importance.",
    "The colour is silent about causation: it falls short of showing that k2 causes the output.",
    "权重高低与因果无关；颜色深浅和重要性是两回事。",
])
def test_symbols_and_other_words_for_not_make_caveats(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


def test_letters_drawn_like_latin_ones_hide_no_overclaim(checklist):
    cyrillic_o = "\u043e"
    r = grade_audit(f"The bright cell pr{cyrillic_o}ves that k2 is the m{cyrillic_o}st important key.", None, {},
                    checklist)
    assert "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "The bright k2 cell is what drives the model's decision for q1.",
    "k2 matters most for the answer.",
    "Attention weights are a faithful attribution of the prediction to the keys.",
    "A high weight means the feature is important.",
    "Large attention indicates that k2 matters most.",
    "权重高代表特征重要。",
    "颜色深说明这个 key 重要。",
])
def test_overclaims_in_other_words_are_flagged(sentence, checklist):
    assert "overclaim" in kinds(grade_audit(sentence, None, {}, checklist))


@pytest.mark.parametrize("sentence", [
    "A high weight does not mean the feature is important.",
    "高权重不代表特征重要。",
    "这个热力图不能说明 k2 这个 key 重要。",
])
def test_the_same_reading_denied_is_a_caveat_in_both_languages(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


def test_failing_numbers_the_final_code_does_not_give_earn_nothing(checklist):
    invented = grade_audit("max_abs_error = 12.5 and row_sum_error = 0.3 against the reference.", None,
                           MEASURED_OK, checklist)
    honest = grade_audit("max_abs_error = 2.6e-7 and row_sum_error = 1.1e-7 against the reference.", None,
                         MEASURED_OK, checklist)
    parity = items(invented)["parity"]
    assert parity["points"] < items(honest)["parity"]["points"]
    assert "grader measured a pass" in parity["feedback"]["en"] and "评分器" in parity["feedback"]["zh"]
    assert "contradiction" not in kinds(invented)   # an earlier run may really have failed


@pytest.mark.parametrize("sentence", [
    "Reading the plot: the vertical axis lists the queries and the horizontal axis lists the keys; "
    "every row totals 1.0; the masked column is all zeros.",
])
def test_common_synonyms_read_the_figure(sentence, checklist):
    assert items(grade_audit(sentence, None, {}, checklist))["figure_reading"]["points"] >= 2


def test_a_zero_written_with_a_decimal_point_is_a_value(checklist):
    r = grade_audit("与参考实现对比，最大误差 0.0，行和误差 1.1e-7。", None, MEASURED_OK, checklist)
    assert "max_abs_error with its value" not in items(r)["parity"]["feedback"]["en"]
    r = grade_audit("The maximum absolute difference from the reference was 0.0.", None, MEASURED_OK, checklist)
    assert items(r)["parity"]["points"] > 0
