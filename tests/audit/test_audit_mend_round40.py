"""Round 40 mend B (review RB): the gaming holes the round's denial rules opened, en and zh.

HIGH 1: a retraction bracket ("(not really)", （其实不然）) denied the FIRST claim's clause, not the clause before it: a
        claim followed by a retracted reading was cleared ("k2 causes q1's output, and each row sums to 1 (not really)").
HIGH 2: "nobody" + question / doubt / dispute / deny affirms what follows ("Nobody would question that k2 drives the
        output", "Nobody but a fool would deny that ...").
HIGH 3: a rebuttal with no cue of its own ("It is false that", 认为……是错误的) reached across a plain "and" / 并且 to an
        undenied claim.
HIGH 4: a retraction taken back by a bracket or sentence after it ("(not really) (just kidding, it does)", （才怪）
        （开玩笑的，确实如此）) was read as a retraction; a bare "(no)" is too weak to take a claim back.
MED 5:  同时 is no conjunction that stops a negation from reaching its subject (因果关系同时无法从这张图中读出).
MED 6:  "which means nothing except that k2 causes the output" asserts the claim (nothing + except cancel); 毫无 negates
        ("这对因果关系毫无意义" earns the limit "means nothing about causality" earns), not 毫无疑问 / 毫无保留.
MED 7:  "It isn't true that" is the rebuttal "It is not true that" is ("It isn't true that k2 doesn't cause q1's output"
        earned the causal limit).
The whole gaming audits of the review are also gaming fixtures (tests/audit/gaming/*_r40b_mend_*).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade

# (finding, text, most it may score): a claim the text still asserts, flagged and scored as on the merge base (2.0; 2.5
# where a clause after the claim is honestly taken back and earns its caveat before the overclaim's deduction)
STILL_CLAIMED = [
    ("HIGH 1", OPENER_EN + "k2 causes q1's output, and each row sums to 1 (not really).\n", 2.5),
    ("HIGH 1", OPENER_EN + "k2 causes q1's output; q1 reads mostly from k2 (0.67) (not really).\n", 2.5),
    ("HIGH 1", OPENER_EN + "k2 causes q1's output and q1 reads mostly from k2 (0.67) (not really).\n", 2.5),
    ("HIGH 1", OPENER_EN + "k2 causes q1's output, k2 is the most important key, and k2 is the feature that matters most "
               "(not really).\n", 2.5),
    ("HIGH 1", OPENER_ZH + "k2 导致了 q1 的输出，并且 q1 主要从 k2 读取（0.67）（其实不然）。\n", 2.5),
    ("HIGH 1", OPENER_ZH + "k2 导致了 q1 的输出并且 k2 是最重要的 key（其实不然）。\n", 2.5),
    ("HIGH 1", OPENER_ZH + "k2 导致了 q1 的输出；每一行的和为 1（其实不然）。\n", 2.5),
    ("HIGH 2", OPENER_EN + "Nobody would question that k2 drives the output.\n", 2),
    ("HIGH 2", OPENER_EN + "Nobody questions that k2 drives the output.\n", 2),
    ("HIGH 2", OPENER_EN + "Nobody disputes that k2 drives the output.\n", 2),
    ("HIGH 2", OPENER_EN + "No one would doubt that k2 is the most important key.\n", 2),
    ("HIGH 2", OPENER_EN + "Nobody can seriously challenge that k2 causes q1's output.\n", 2),
    ("HIGH 2", OPENER_EN + "Nobody but a fool would deny that k2 causes q1's output.\n", 2),
    ("HIGH 2", OPENER_ZH + "没有人会质疑 k2 决定了输出。\n", 2),
    ("HIGH 3", OPENER_EN + "It is false that k2 is irrelevant and k2 causes q1's output.\n", 2),
    ("HIGH 3", OPENER_EN + "It is untrue that k2 is minor and k2 is the most important key.\n", 2),
    ("HIGH 3", OPENER_EN + "It is a myth that k2 is minor and k2 is the most important key.\n", 2),
    ("HIGH 3", OPENER_ZH + "认为 k2 次要是错误的并且 k2 决定了输出。\n", 2),
    ("HIGH 4", OPENER_EN + "k2 drives the output (as the map seems to show) (not really) (just kidding, it does).\n", 2),
    ("HIGH 4", OPENER_EN + "k2 drives the output (not really) (just kidding).\n", 2),
    ("HIGH 4", OPENER_EN + "k2 drives the output (not really). Just kidding, it does.\n", 2),
    ("HIGH 4", OPENER_EN + "k2 drives the output (not really). It does though.\n", 2),
    ("HIGH 4", OPENER_EN + "k2 is the most important key (no) (yes it is).\n", 2),
    ("HIGH 4", OPENER_EN + "k2 drives the output (no).\n", 2),
    ("HIGH 4", OPENER_EN + "k2 drives the output (nope).\n", 2),
    ("HIGH 4", OPENER_ZH + "k2 决定了输出（并不）。\n", 2),
    ("HIGH 4", OPENER_ZH + "k2 决定了输出（才怪）（开玩笑的，确实如此）。\n", 2),
    ("HIGH 4", OPENER_ZH + "k2 决定了输出（其实不然）。开玩笑的，确实如此。\n", 2),
    ("MED 6", OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing except that k2 causes the output.\n", 2),
    ("MED 6", OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing but that k2 is the most important key.\n", 2),
    ("MED 6", OPENER_ZH + "毫无疑问，k2 决定了输出。\n", 2),
    ("MED 6", OPENER_ZH + "热力图毫无保留地证明 k2 决定了输出。\n", 2),
    ("MED 6", OPENER_ZH + "k2 毫无例外地决定了输出。\n", 2),
    ("whole", OPENER_EN + "k2 causes q1's output; each row sums to 1 (not really).\nk2 is the most important key; q1 reads "
              "mostly from k2 (0.67) (not really).\nWithout k2 the output would collapse.\n", 2),
    ("whole", OPENER_ZH + "k2 导致了 q1 的输出；每一行的和为 1（其实不然）。\nk2 是最重要的 key；q1 主要从 k2 读取（0.67）（其实不然）。\n", 2),
    ("whole", "Rows are queries, columns are keys, each row sums to 1, and q1 reads mostly from k2 (0.67).\nNobody would "
              "question that k2 drives the output. Nobody questions that k2 is the most important key.\n", 2),
    ("whole", "Rows are queries, columns are keys, each row sums to 1, and q1 reads mostly from k2 (0.67).\nk2 drives the output "
              "(as the map seems to show) (not really) (just kidding, it does).\nk2 is the most important key (no) (yes it is).\n", 2),
]

# (finding, text): a denial that still takes its claim back
STILL_DENIED = [
    ("HIGH 1", OPENER_EN + "k2 is, in my view, the most important key (not really).\n"),
    ("HIGH 1", OPENER_EN + "q1 reads mostly from k2 (0.67), so k2 causes q1's output (not really).\n"),
    ("HIGH 1", OPENER_ZH + "q1 主要从 k2 读取（0.67），所以 k2 决定了输出（其实不然）。\n"),
    ("HIGH 2", OPENER_EN + "Nobody can claim that k2 causes q1's output.\n"),
    ("HIGH 2", OPENER_EN + "Nobody should conclude that k2 is the most important key.\n"),
    ("HIGH 3", OPENER_EN + "It is false that k2 is the most important key and that it causes q1's output.\n"),
    ("HIGH 3", OPENER_EN + "It is false that k2 is the most important key.\n"),
    ("HIGH 3", OPENER_ZH + "说 k2 是最重要的 key 是不对的。\n"),
    ("HIGH 4", OPENER_EN + "k2 drives the output (not really).\n"),
    ("HIGH 4", OPENER_EN + "k2 drives the output (no, not really).\n"),
    ("HIGH 4", OPENER_ZH + "k2 决定了输出（其实不然）。\n"),
    ("MED 7", OPENER_EN + "It isn't true that k2 is the most important key.\n"),
]

# (finding, text): a caveat that still earns its limit
STILL_A_LIMIT = [
    ("MED 5", OPENER_ZH + "重要性同时也不能由这张热力图证明。\n"),
    ("MED 5", OPENER_ZH + "因果关系同时无法从这张图中读出。\n"),
    ("MED 6", OPENER_EN + "The weight of q1 peaks at k2 (0.67), which means nothing about causality.\n"),
    ("MED 6", OPENER_ZH + "q1 的权重在 k2 处最高（0.67），这对因果关系毫无意义。\n"),
]


@pytest.mark.parametrize(("finding", "text", "most"), STILL_CLAIMED)
def test_a_claim_the_text_still_asserts_is_flagged_and_scores_as_on_base(finding, text, most):
    r = _grade(text)
    assert "overclaim" in kinds(r) and r["score"] <= most, (finding, r["score"], kinds(r))


@pytest.mark.parametrize(("finding", "text"), STILL_DENIED)
def test_a_denial_that_takes_its_claim_back_is_no_overclaim(finding, text):
    assert "overclaim" not in kinds(_grade(text)), finding


@pytest.mark.parametrize(("finding", "text"), STILL_A_LIMIT)
def test_a_caveat_still_earns_its_limit(finding, text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, finding


@pytest.mark.parametrize("text", [
    OPENER_EN + "It isn't true that k2 doesn't cause q1's output.\n",
    OPENER_EN + "It is not true that k2 doesn't cause q1's output.\n",
])
def test_a_rebutted_denial_of_a_claim_earns_no_limit(text):
    """MED 7: "isn't true that" is the rebuttal "is not true that" is; its double negation affirms the claim."""
    assert items(_grade(text))["limits"]["points"] == 0
