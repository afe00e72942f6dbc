"""Round 46 (builder A): the audit checker's misreadings left open at stop 49, and the hunt's.

1. A denied requirement of the test a causal or importance question needs ("Whether k2 matters needs no ablation: the
   heatmap shows it", k2 是否重要不需要做消融) rejects the caveat: it earned the causal caveat on its "no"; it earns nothing
   and is an overclaim.
2. A certainty set off by commas ("k2 is, almost certainly, the cause of q1's output", k2，毫无疑问，是 q1 输出的原因) asserts
   the claim as without the commas: it was no claim at all.
3. A supposition written without a comma and denied ("If k2 causes it the heatmap cannot prove it", 如果 k2 导致了输出热力图
   也证明不了) is the caveat its comma'd twin is: it earned nothing (en) or was flagged as the claim it supposes (zh).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    """(score, limits points, overclaim flagged) of the one-line opener and ``sentence``."""
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


# ------------------------------------------------------------------------------------------------ 1. "needs no ablation"
@pytest.mark.parametrize("sentence", [
    "Whether k2 matters needs no ablation: the heatmap shows it.",
    "Whether k2 causes q1's output requires no ablation: the heatmap already shows it.",
    "Whether k2 causes the output does not need an ablation: the heatmap already shows it.",
    "To know whether k2 matters you need no ablation: the heatmap shows it.",
    "We need no ablation to see that k2 causes the output.",
    "k2 是否重要不需要做消融：热力图已经说明了。",
    "k2 是否导致了输出不用做消融，热力图就能看出来。",
    "想知道 k2 是否导致输出，不需要消融实验。",
    "An ablation is not needed to see that k2 matters.",
    "I do not need to intervene on the keys to claim a causal effect.",
])
def test_a_causal_question_said_to_need_no_ablation_is_an_overclaim_and_no_caveat(sentence):
    """Before: limits 1.5 (the causal caveat, on the "no") and no flag; the zh twins 0 and no flag."""
    _, limits, flagged = _reading(sentence)
    assert limits == 0 and flagged


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove that k2 causes the output; only an ablation can.",
    "热力图不能证明 k2 导致了输出，需要做消融。",
])
def test_the_ablation_a_causal_claim_needs_stays_a_caveat(sentence):
    _, limits, flagged = _reading(sentence)
    assert limits > 0 and not flagged


@pytest.mark.parametrize("sentence", [
    "Experiment B needs no ablation: the padding keys get weight 0.",
    "No ablation is needed for the parity check.",
    "parity 检查不需要做消融。",
    "Padding is not needed for experiment C.",
    "The heatmap cannot prove causation, no ablation was needed for the parity check.",
])
def test_no_ablation_needed_for_something_else_claims_nothing(sentence):
    assert _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ 2. certainty in commas
@pytest.mark.parametrize("sentence", [
    "k2 is, almost certainly, the cause of q1's output.",
    "k2 is, without doubt, the cause of q1's output.",
    "k2, almost certainly, causes q1's output.",
    "k2，毫无疑问，是 q1 输出的原因。",
    "k2，几乎可以肯定，就是 q1 输出的原因。",
])
def test_a_certainty_set_off_by_commas_still_asserts_the_claim(sentence):
    """Before: 3.0, no flag (the commas cut the claim in three clauses and the certainty was no known aside)."""
    assert _reading(sentence)[2] is True


@pytest.mark.parametrize("sentence", [
    "k2 is, almost certainly, not the cause of q1's output.",
    "The heatmap, certainly, cannot prove that k2 causes the output.",
    "The rows sum to 1, which is, without doubt, correct.",
])
def test_a_certainty_in_commas_around_a_denial_or_a_fact_claims_nothing(sentence):
    assert _reading(sentence)[2] is False


# ------------------------------------------------------------------------------------------------ 3. comma-less supposition
@pytest.mark.parametrize("sentence", [
    "If k2 causes it the heatmap cannot prove it.",
    "If k2 causes q1's output the heatmap cannot show that.",
    "If k2 causes the output then the heatmap cannot prove it.",
    "如果 k2 导致了输出热力图也证明不了。",
    "如果 k2 导致了输出那么热力图也证明不了。",
])
def test_a_comma_less_supposition_denied_is_the_causal_caveat(sentence):
    """Before: limits 0 (en), or flagged as an overclaim (zh); its twin with a comma earned 1.5."""
    _, limits, flagged = _reading(sentence)
    assert limits == 1.5 and not flagged


@pytest.mark.parametrize("sentence", [
    "If we look at the heatmap k2 causes the output.",
    "If you look at row 2 k2 clearly causes q1's output.",
])
def test_a_condition_before_an_asserted_claim_keeps_the_overclaim(sentence):
    assert _reading(sentence)[2] is True


# ------------------------------------------------------------------------------------------------ 4. inline limits label
@pytest.mark.parametrize("sentence", [
    "局限：只跑了一个 seed。",
    "局限性：只用了一个 seed。",
    "局限：只有一个小例子。",
    "Limitations: I only ran one seed.",
])
def test_a_limits_label_with_its_content_on_the_line_credits_the_limit(sentence):
    """Before: limits 0 (the colon cut the label's clause from what it labels)."""
    assert _reading(sentence)[1] == 1


@pytest.mark.parametrize("sentence", ["Note: one seed.", "Parity: seed 0 on one small example."])
def test_another_label_before_a_colon_is_no_limits_label(sentence):
    assert _reading(sentence)[1] == 0


# ------------------------------------------------------------------------------------------------ 5. appositive peak
def _reading_points(sentence: str) -> tuple[float, bool]:
    r = _grade(OPENER_EN + sentence + "\n")
    return items(r)["figure_reading"]["points"], "figure" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "q1 puts 0.67 on k2, its largest weight.",
    "q1 puts 0.67 on k2, which is its largest weight.",
    "q1 puts 0.67 on k2, more than on any other key.",
])
def test_a_peak_said_after_a_comma_reads_the_querys_peak(sentence):
    """Before: figure_reading 1 (the opener's axes only: the cell was read as a value, its peak missed)."""
    assert _reading_points(sentence) == (2, False)


def test_a_false_peak_said_after_a_comma_is_a_misreading():
    assert _reading_points("q1 puts 0.09 on k0, its largest weight.")[1] is True


def test_a_value_with_another_word_after_the_comma_reads_no_peak():
    assert _reading_points("q1 puts 0.67 on k2, the largest key index.")[0] == 1


# ------------------------------------------------------------------------------------------------ 6. code-switched
@pytest.mark.parametrize(("mixed", "zh"), [
    ("high weight 不代表 k2 导致了输出，要做 ablation 才知道。", "权重高不代表 k2 导致了输出，要做消融才知道。"),
    ("attention 高不代表 k2 导致了输出。", "注意力高不代表 k2 导致了输出。"),
    ("是不是 causal，要做消融才知道。", "是不是因果，要做消融才知道。"),
    ("但 high weight 不代表 k2 导致了 q1 的 output。", "但权重高不代表 k2 导致了 q1 的输出。"),
])
def test_a_code_switched_caveat_earns_what_its_zh_twin_earns(mixed, zh):
    """Before: the mixed sentences earned 1.5 less (the English weight or cause was not read by the zh phrases)."""
    assert _reading(mixed)[1] == _reading(zh)[1] > 0


def test_a_code_switched_high_weight_read_as_importance_is_an_overclaim():
    """Before: 3.0 and no flag; 权重高代表 k2 很重要 is flagged."""
    assert _reading("high weight 代表 k2 很重要。")[2] is True


# ------------------------------------------------------------------------------------------------ hunt: short notes
def test_short_unpunctuated_notes_one_a_line_are_not_joined_into_a_keyword_list():
    """Hunt h08: lines of notes without full stops were joined as a hard-wrapped paragraph, one keyword list: limits 0
    where each line states its limit (4)."""
    text = ("rows r queries cols r keys, each row adds up to 1\n"
            "q1 mostly looks at k2 (0.67) and q0 at k1\n"
            "cant say k2 causes the output from this, need to ablate it\n"
            "high weight doesnt mean important either\n"
            "only one seed so cant say in general\n"
            "max_abs_error 2.6e-7 row_sum_error 1.1e-7\n")
    assert items(_grade(text))["limits"]["points"] == 4


@pytest.mark.parametrize("text", [
    # cut at a wrap's width, and after a word no sentence ends on
    "In experiment A the entropy without the scale went down steadily as the dimension of\nthe keys grew from 8 to 128.",
    "The heatmap cannot show that k2 causes the output, and a high weight does not make the\nkey important.",
])
def test_a_line_cut_by_a_wrap_still_continues_on_the_next(text):
    from rubric.audit.text import _lines
    assert len(_lines(text)) == 1


# ------------------------------------------------------------------------------------------------ hunt: "only one seed"
@pytest.mark.parametrize("sentence", ["I only ran one seed.", "q1 reads mostly from k2, and I only used a single seed."])
def test_only_one_seed_states_the_generality_limit(sentence):
    """Before: limits 0 ("mentioned, but not stated as something the figure cannot prove"); hand scores credit it."""
    assert _reading(sentence)[1] == 1


@pytest.mark.parametrize("sentence", ["只跑了一个 seed。", "One seed only."])
def test_only_one_seed_as_a_bare_note_earns_half(sentence):
    """The bare-caveat rule (settings.bare_caveat_units) still applies."""
    assert _reading(sentence)[1] == 0.5


def test_a_query_reading_one_key_only_is_no_limit():
    assert _reading("q1 only reads from one key.")[1] == 0


# ------------------------------------------------------------------------------------------------ hunt: hedged "what drives"
def test_a_key_probably_what_drives_the_output_is_a_hedged_overclaim():
    """Hunt en_r46_hedged_overclaim: "so k2 is probably what drives q1's output" was no claim ("k2 is what drives ..."
    without the hedge was one)."""
    r = _grade(OPENER_EN + "q1 puts most of its weight on k2 (0.67), so k2 is probably what drives q1's output.\n")
    flags = [f for f in r["flags"] if f["kind"] == "overclaim"]
    assert len(flags) == 1 and "only hedged" in flags[0]["message"]["en"]
