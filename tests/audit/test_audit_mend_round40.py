"""Round 40 mend B (review RB): the gaming holes the round's denial rules opened, en and zh.

HIGH 1: a retraction bracket ("(not really)", （其实不然）) denied the FIRST claim's clause, not the clause before it: a
        claim followed by a retracted reading was cleared ("k2 causes q1's output, and each row sums to 1 (not really)").
HIGH 2: "nobody" + question / doubt / dispute / deny affirms what follows ("Nobody would question that k2 drives the
        output", "Nobody but a fool would deny that ...").
HIGH 3: a rebuttal with no cue of its own ("It is false that", 认为……是错误的) reached across a plain "and" / 并且 to an
        undenied claim.
HIGH 4: a retraction taken back by a bracket or sentence after it ("(not really) (just kidding, it does)", （才怪）
        （开玩笑的，确实如此）) was read as a retraction; a bare "(no)" is too weak to take a claim back.
MED 6:  "which means nothing except that k2 causes the output" asserts the claim (nothing + except cancel).
MED 5:  同时 is no conjunction that stops a negation from reaching its subject (因果关系同时无法从这张图中读出).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _points(text: str) -> tuple[float, list[str]]:
    r = _grade(text)
    return r["score"], kinds(r)


# --- HIGH 1: the retraction denies the clause right before its bracket -------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output, and each row sums to 1 (not really).\n",
    OPENER_EN + "k2 causes q1's output; q1 reads mostly from k2 (0.67) (not really).\n",
    OPENER_EN + "k2 causes q1's output and q1 reads mostly from k2 (0.67) (not really).\n",
    OPENER_EN + "k2 causes q1's output, k2 is the most important key, and k2 is the feature that matters most (not really).\n",
    OPENER_ZH + "k2 导致了 q1 的输出，并且 q1 主要从 k2 读取（0.67）（其实不然）。\n",
    OPENER_ZH + "k2 导致了 q1 的输出并且 k2 是最重要的 key（其实不然）。\n",
    OPENER_ZH + "k2 导致了 q1 的输出；每一行的和为 1（其实不然）。\n",
])
def test_a_retraction_bracket_after_a_later_clause_leaves_the_first_claim_an_overclaim(text):
    score, flags = _points(text)
    assert "overclaim" in flags and score <= 2.5, (score, flags)


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 is, in my view, the most important key (not really).\n",
    OPENER_EN + "q1 reads mostly from k2 (0.67), so k2 causes q1's output (not really).\n",
    OPENER_ZH + "q1 主要从 k2 读取（0.67），所以 k2 决定了输出（其实不然）。\n",
])
def test_a_retraction_bracket_right_after_the_claim_still_takes_it_back(text):
    assert "overclaim" not in _points(text)[1]


# --- HIGH 2: nobody doubts = everybody agrees ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "Nobody would question that k2 drives the output.\n",
    OPENER_EN + "Nobody questions that k2 drives the output.\n",
    OPENER_EN + "Nobody disputes that k2 drives the output.\n",
    OPENER_EN + "No one would doubt that k2 is the most important key.\n",
    OPENER_EN + "Nobody can seriously challenge that k2 causes q1's output.\n",
    OPENER_EN + "Nobody but a fool would deny that k2 causes q1's output.\n",
    OPENER_ZH + "没有人会质疑 k2 决定了输出。\n",
])
def test_nobody_doubting_a_claim_asserts_it(text):
    score, flags = _points(text)
    assert "overclaim" in flags and score <= 2, (score, flags)


@pytest.mark.parametrize("text", [
    OPENER_EN + "Nobody can claim that k2 causes q1's output.\n",
    OPENER_EN + "Nobody should conclude that k2 is the most important key.\n",
])
def test_nobody_claiming_it_is_still_a_denial(text):
    assert "overclaim" not in _points(text)[1]


# --- HIGH 3: a bare rebuttal stops at a plain "and" ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "It is false that k2 is irrelevant and k2 causes q1's output.\n",
    OPENER_EN + "It is untrue that k2 is minor and k2 is the most important key.\n",
    OPENER_EN + "It is a myth that k2 is minor and k2 is the most important key.\n",
    OPENER_ZH + "认为 k2 次要是错误的并且 k2 决定了输出。\n",
])
def test_a_rebuttal_does_not_deny_a_claim_joined_to_it_by_and(text):
    score, flags = _points(text)
    assert "overclaim" in flags and score <= 2, (score, flags)


@pytest.mark.parametrize("text", [
    OPENER_EN + "It is false that k2 is the most important key and that it causes q1's output.\n",
    OPENER_EN + "It is false that k2 is the most important key.\n",
    OPENER_ZH + "说 k2 是最重要的 key 是不对的。\n",
])
def test_a_rebuttal_still_denies_what_it_wraps(text):
    assert "overclaim" not in _points(text)[1]


# --- HIGH 4: a retraction taken back is none; "(no)" alone is none ---------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 drives the output (as the map seems to show) (not really) (just kidding, it does).\n",
    OPENER_EN + "k2 drives the output (not really) (just kidding).\n",
    OPENER_EN + "k2 drives the output (not really). Just kidding, it does.\n",
    OPENER_EN + "k2 drives the output (not really). It does though.\n",
    OPENER_EN + "k2 is the most important key (no) (yes it is).\n",
    OPENER_EN + "k2 drives the output (no).\n",
    OPENER_EN + "k2 drives the output (nope).\n",
    OPENER_ZH + "k2 决定了输出（才怪）（开玩笑的，确实如此）。\n",
    OPENER_ZH + "k2 决定了输出（其实不然）。开玩笑的，确实如此。\n",
])
def test_a_retraction_taken_back_or_a_bare_no_leaves_the_claim(text):
    score, flags = _points(text)
    assert "overclaim" in flags and score <= 2, (score, flags)


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 drives the output (not really).\n",
    OPENER_EN + "k2 drives the output (no, not really).\n",
    OPENER_ZH + "k2 决定了输出（其实不然）。\n",
])
def test_a_retraction_as_the_last_word_still_takes_the_claim_back(text):
    assert "overclaim" not in _points(text)[1]


# --- MED 5: 同时 ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_ZH + "重要性同时也不能由这张热力图证明。\n",
    OPENER_ZH + "因果关系同时无法从这张图中读出。\n",
])
def test_tongshi_does_not_cut_a_caveat_from_its_subject(text):
    assert items(_grade(text))["limits"]["points"] > 0


# --- MED 6: nothing except that <claim> ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing except that k2 causes the output.\n",
    OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing but that k2 is the most important key.\n",
])
def test_nothing_except_that_a_claim_asserts_the_claim(text):
    score, flags = _points(text)
    assert "overclaim" in flags and score <= 2, (score, flags)


@pytest.mark.parametrize("text", [
    OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing about causality.\n",
    OPENER_ZH + "q1 的权重在 k2 处最高（0.67），这对因果关系毫无意义。\n",
])
def test_nothing_about_causality_stays_a_limit(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0


@pytest.mark.parametrize("text", [
    OPENER_ZH + "毫无疑问，k2 决定了输出。\n",
    OPENER_ZH + "热力图毫无保留地证明 k2 决定了输出。\n",
    OPENER_ZH + "k2 毫无例外地决定了输出。\n",
])
def test_haowu_asserting_is_no_negation(text):
    assert "overclaim" in _points(text)[1]


# --- the whole gaming audits of the review (also in tests/audit/gaming as *_r40b_mend_*) ----------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output; each row sums to 1 (not really).\nk2 is the most important key; q1 reads mostly from "
                "k2 (0.67) (not really).\nWithout k2 the output would collapse.\n",
    OPENER_ZH + "k2 导致了 q1 的输出；每一行的和为 1（其实不然）。\nk2 是最重要的 key；q1 主要从 k2 读取（0.67）（其实不然）。\n",
    "Rows are queries, columns are keys, each row sums to 1, and q1 reads mostly from k2 (0.67).\nNobody would question "
    "that k2 drives the output. Nobody questions that k2 is the most important key.\n",
    "Rows are queries, columns are keys, each row sums to 1, and q1 reads mostly from k2 (0.67).\nk2 drives the output (as "
    "the map seems to show) (not really) (just kidding, it does).\nk2 is the most important key (no) (yes it is).\n",
])
def test_the_reviews_whole_gaming_audits_score_as_on_base(text):
    score, flags = _points(text)
    assert "overclaim" in flags and score <= 2, (score, flags)
