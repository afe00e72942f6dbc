"""Round 45 (brief A): stop 48's open misreadings.

A doubted denial of a key's importance (很难想象 k2 不重要, "hard to imagine k2 being unimportant") and "never fails to be"
assert the claim; "almost certainly causes" is certainty, not a hedge; a supposition without a comma ("If k2 causes q1's
output an ablation would show it") and a reported view rebutted without a negation word ("the heatmap is silent on that",
热图对此无从判断) claim nothing.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "很难想象 k2 不重要。",
    "很难想象 k2 对输出不重要。",
    "It is hard to imagine k2 being unimportant.",
    "It is hard to imagine that k2 does not matter.",
    "It is hard to imagine k2 not being important.",
])
def test_doubting_that_a_key_is_unimportant_claims_it_matters(sentence):
    """Stop 48: 3.0 and no flag (the pair's blanked reading, 'k2 重要', matched no pattern); as 很难想象 k2 不是输出的原因."""
    assert _reading(sentence) == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "我怀疑 k2 不重要。",
    "很难想象缩放不重要。",
    "It is hard to imagine that scaling does not matter.",
    "我不相信热力图能证明 k2 重要。",
])
def test_a_suspicion_or_a_computation_step_said_to_matter_is_no_claim_about_a_key(sentence):
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "k2 never fails to be the most important key.",
    "k2 does not fail to be the most important key.",
])
def test_never_failing_to_be_the_most_important_key_is_the_claim(sentence):
    """Stop 48: 3.0 and no flag ('does be the most important key' matched no pattern); 'k2 is the most important key' is
    flagged."""
    assert _reading(sentence) == (2.0, 0.0, True)


def test_never_failing_to_be_something_else_is_no_claim():
    assert not _reading("The heatmap never fails to be readable.")[2]


@pytest.mark.parametrize("sentence", [
    "k2 almost certainly causes the output.",
    "k2 is almost certainly the cause of the output.",
    "k2 nearly certainly drives q1's output.",
    "几乎可以肯定 k2 导致了输出。",
    "k2 几乎可以肯定导致了输出。",
])
def test_almost_certainly_causes_is_an_overclaim(sentence):
    """Stop 48: the en forms scored 3.0 with no flag (the zh ones were flagged)."""
    assert _reading(sentence) == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "k2 almost causes the output.",
    "The heatmap cannot show that k2 almost certainly causes the output.",
])
def test_almost_alone_or_a_denied_almost_certainly_is_no_claim(sentence):
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "If k2 causes q1's output an ablation would show it.",
    "If k2 causes the output then removing it would change the output.",
    "如果 k2 导致了输出那么消融会显示出来。",
    "如果 k2 是输出的原因的话消融会显示出来。",
])
def test_a_claim_only_supposed_without_a_comma_is_no_claim(sentence):
    """Stop 48: flagged (2.0), while the comma form ('If k2 causes q1's output, an ablation ...') was not."""
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "If q1 attends most to k2 then k2 causes the output.",
    "如果 q1 最关注 k2 那么 k2 就是输出的原因。",
    "If you ask me k2 causes the output.",
    "If k2 causes the output as it obviously does an ablation would show it.",
    "如果没有消融实验也能看出 k2 导致了 q1 的输出。",
])
def test_a_comma_less_conditional_whose_consequent_or_aside_asserts_is_a_claim(sentence):
    assert _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "Some say k2 causes the output; the heatmap is silent on that.",
    "Some say k2 causes the output, but the heatmap is silent on that.",
    "有人说 k2 导致了输出，但热图对此无从判断。",
    "有人说 k2 导致了输出；热力图对此无从判断。",
])
def test_a_reported_view_rebutted_without_a_negation_word_is_no_claim(sentence):
    """Stop 48: flagged (2.0); the rebuttal says what the heatmap does not tell without 不 / not."""
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "Some say k2 causes the output; the heatmap confirms it.",
    "Some say k2 causes the output; I agree.",
    "有人说 k2 导致了输出，热力图也说明了这一点。",
    "有人说 k2 导致了输出，热力图证实了这一点，没有疑问。",
])
def test_a_reported_view_the_writer_then_backs_is_still_a_claim(sentence):
    assert _reading(sentence)[2]


# --- the hunt's classes ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "所以 k2 几乎可以肯定就是 q1 输出的原因。",
    "k2 基本可以肯定是输出的原因。",
    "所以 k2 就是 q1 output 的 cause。",
    "k2 是 q1 输出的 cause。",
])
def test_certainty_between_a_key_and_its_claim_and_a_cause_named_in_english_are_overclaims(sentence):
    """Hunt (mixed_r45_codeswitch_overclaim: 7.0 for hand 6): 3.0 and no flag; 几乎可以肯定 before the key was flagged."""
    assert _reading(sentence) == (2.0, 0.0, True)


@pytest.mark.parametrize("sentence", [
    "热力图不能证明 k2 是 q1 output 的 cause。",
    "不能说 k2 几乎可以肯定是输出的原因。",
])
def test_the_same_words_denied_are_a_caveat(sentence):
    assert _reading(sentence) == (4.5, 1.5, False)


@pytest.mark.parametrize("sentence", [
    "要知道 k2 是否重要，得把它消融掉再比较输出。",
    "要知道 k2 是否重要，得做消融。",
])
def test_knowing_whether_a_key_matters_needs_an_ablation_is_the_causal_caveat_in_zh(sentence):
    """Hunt (zh_r45_silent_rebuttal_honest): 3.0 with no caveat, where 'To know whether k2 matters I would have to ablate
    it' earns the causal caveat (1.5)."""
    assert _reading(sentence)[1] >= 1.5


def test_knowing_whether_a_key_matters_from_the_heatmap_alone_is_no_caveat():
    assert _reading("要知道 k2 是否重要，看热力图就够了。")[1] == 0


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot prove causation. But of course k2 causes q1's output.",
    "It is not feature importance, yet k2 is clearly the most important key.",
    "热力图不能证明因果。但 k2 显然就是 q1 输出的原因。",
    "高权重不是 feature importance，但是 k2 显然是最重要的 key。",
])
def test_a_caveat_taken_back_by_the_overclaim_right_after_it_earns_nothing(sentence):
    """Hunt (gaming_r45_contradictory_en: 5.25, over the gaming ceiling of 4): the caveat earned its points and the
    penalty took them back (2.5 for the second)."""
    r = _grade(("行是 query，列是 key。\n" if any("\u4e00" <= c <= "\u9fff" for c in sentence) else OPENER_EN) + sentence)
    assert r["score"] == 2.0
    limits = items(r)["limits"]
    assert "taken back" in limits["feedback"]["en"] and "收回" in limits["feedback"]["zh"]


@pytest.mark.parametrize(("sentence", "limits"), [
    # another claim than the caveat's: the causal caveat stands (1.5, less the penalty of 2 on reading and limits)
    ("The heatmap cannot prove causality, but it shows k2 is the most important key.", 0.0),
    # the claim first, the caveat after it: a correction, not a retraction
    ("k2 is clearly the cause, but the heatmap cannot prove it.", 1.5),
    ("The heatmap cannot prove causation. But k2 is where q1 reads most.", 0.75),
])
def test_a_caveat_followed_by_another_claim_or_after_the_claim_keeps_its_credit(sentence, limits):
    r = _grade(OPENER_EN + sentence)
    assert items(r)["limits"]["points"] == limits
    assert "taken back" not in items(r)["limits"]["feedback"]["en"]


def test_the_contradictory_hunt_audit_stays_under_the_gaming_ceiling():
    text = ("Rows are queries and columns are keys, each row sums to 1.\n"
            "The heatmap cannot prove causation. But of course k2 causes q1's output, as the 0.67 shows.\n"
            "It is not feature importance, yet k2 is clearly the most important key.\n"
            "It does not generalise, although it is true for every input.\n"
            "max_abs_error = 2.6e-7, row_sum_error = 1.1e-7.\n")
    assert _grade(text)["score"] <= 4.0


@pytest.mark.parametrize("sentence", [
    "热力图不能证明因果，不过 k2 是最重要的 key。",
    "热力图不能证明因果，不过 k2 可能是最重要的 key。",
    "热力图不能证明因果。不过 k2 可能是最重要的 key。",
])
def test_buguo_however_denies_nothing_of_the_claim_after_it(sentence):
    """Hunt: 不过 ('however') was read as 不 + 过, a negation of the claim after it: 6.0 with the importance caveat
    credited (3.0 of limits) and no flag. 但 in its place was flagged."""
    score, limits, flagged = _reading(sentence)
    assert flagged and limits <= 0.5


@pytest.mark.parametrize(("sentence", "limits"), [
    ("不过，热力图不能证明 k2 是输出的原因。", 1.5),
    ("权重不过是读取系数，不等于 feature importance。", 1.5),
])
def test_a_caveat_after_or_around_buguo_keeps_its_credit(sentence, limits):
    score, got, flagged = _reading(sentence)
    assert not flagged and got == limits


def _reading_points(text: str) -> float:
    return items(_grade(text + "\n"))["figure_reading"]["points"]


@pytest.mark.parametrize("text", [
    "rows are qeuries and colums are keys. every row sum to 1.",
    "Rows are querys, coloumns are keys, each row sums to 1.",
])
def test_the_axis_words_misspelt_still_read_the_axes(text):
    """Hunt (en_r45_typos_honest): 'rows are qeuries and colums are keys' earned nothing of the axes (1.0 of reading)."""
    assert _reading_points(text) == 2.0


def test_a_real_word_near_a_typo_is_not_rewritten():
    from rubric.audit.text import normalise
    assert normalise("The query and the column; a colour and a quay.") == "the query and the column; a colour and a quay."


@pytest.mark.parametrize(("text", "limits"), [
    ("行是 query，列是 key，q1 最关注 k2。\n\n## 局限性\n- 只有一个 seed。\n", 0.5),
    ("行是 query，列是 key，q1 最关注 k2。\n热力图不能说明一个 seed 以外的情况。\n", 1.0),
])
def test_one_seed_written_with_a_space_is_the_generality_caveat(text, limits):
    """Hunt (zh_r45_bullets_hedged_overclaim): '一个 seed' with the space before the English word matched nothing, where
    '一个seed' earned the caveat."""
    assert items(_grade(text))["limits"]["points"] == limits


@pytest.mark.parametrize("sentence", [
    "k2 是否导致了输出，要做消融才知道。",
    "k2 是不是输出的原因，得先做消融才能判断。",
    "热力图本身不能证明 k2 重要不重要，要做消融才知道。",
])
def test_whether_a_key_causes_or_matters_needs_an_ablation_to_know_is_the_causal_caveat(sentence):
    """Hunt (zh_r45_unimportant_doubt_honest: 10.0 for hand 11.5): the first two earned nothing, the third only the
    importance caveat; 'k2 是否导致了输出，需要做消融' earned the causal caveat."""
    assert _reading(sentence)[1] >= 1.5
    assert not _reading(sentence)[2]


def test_whether_a_key_causes_the_output_read_off_the_heatmap_is_no_caveat():
    assert _reading("k2 是否导致了输出，我觉得要看热力图。")[1] == 0


@pytest.mark.parametrize("sentence", [
    "有人认为，热力图不能证明因果，这是错的。",
    "Some say, the heatmap cannot prove causation; that is wrong.",
])
def test_a_report_of_a_denial_is_not_a_rebuttal_of_nothing(sentence):
    """Review of this round's rebuttal without a conjunction: the reported denial itself was read as the writer's rebuttal,
    and the verdict that denies it lost its overclaim (tests/audit/test_audit_round13.py)."""
    assert _reading(sentence)[2]
