"""Round 41 (brief A): gaming holes of the audit checker, en and zh.

1. A double negation that affirms: "It would be wrong to ignore / unfair to doubt that X", "we cannot ignore that X",
   忽视 X 是错误的 assert X (the verdict and the neglect cancel); X keeps its own negations.
2. "Nobody thinks / believes / would say that ... cannot", 没有人认为……不能: the "nobody" denies the report, so it cancels
   the negation in it, as "deny" does; with none there it still denies.
3. A causal claim whose object is a pronoun for the output named before it ("nothing else explains the output: k2 causes
   it", ……：k2 导致了它) is a claim about the output.
4. A zh counterfactual with an emphasis before its condition (显然没有 k2，输出就会崩) or the model as what breaks
   (要是没有 k2，模型就会出错).
5. A claim a retraction bracket takes back ("(not really)", （其实不然）, "(just kidding)") is no overclaim, and no caveat:
   it says the claim was wrong, nothing of what the heatmap can show.
The whole gaming audits are fixtures too (tests/audit/gaming/*_r41_*: bench/audit_validation.py and
test_audit_validation.py read them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade

# (hole, text): a claim the text asserts; flagged, and scored as the bare claim (2.0)
ASSERTED = [
    ("1", OPENER_EN + "It would be wrong to ignore that the heatmap proves k2 causes the output.\n"),
    ("1", OPENER_EN + "It is unfair to doubt that k2 is the most important key.\n"),
    ("1", OPENER_EN + "It would be wrong to dismiss the fact that k2 drives the output.\n"),
    ("1", OPENER_EN + "It would be a mistake to overlook that k2 causes q1's output.\n"),
    ("1", OPENER_EN + "It is hard to deny that k2 is the most important key.\n"),
    ("1", OPENER_EN + "We cannot ignore that k2 is the most important key.\n"),
    ("1", OPENER_ZH + "忽视热力图证明了 k2 导致输出这一点是错误的。\n"),
    ("1", OPENER_ZH + "怀疑 k2 是最重要的 key 是不公平的。\n"),
    ("1", OPENER_ZH + "无视 k2 决定了输出这个事实是不对的。\n"),
    ("2", OPENER_EN + "Nobody thinks the heatmap cannot prove causation.\n"),
    ("2", OPENER_EN + "No one believes that the heatmap cannot show that k2 causes the output.\n"),
    ("2", OPENER_ZH + "没有人认为热力图不能证明因果关系。\n"),
    ("2", OPENER_ZH + "没有人会觉得热力图无法说明 k2 决定了输出。\n"),
    ("2", OPENER_ZH + "没人会相信 k2 不是最重要的 key。\n"),
    ("3", OPENER_EN + "The weight of q1 peaks at k2 (0.67) and nothing else explains the output: k2 causes it.\n"),
    ("3", OPENER_EN + "Nothing else explains the output: k2 causes it.\n"),
    ("3", OPENER_EN + "q1's output has one explanation; k2 drives it.\n"),
    ("3", OPENER_ZH + "q1 的输出只有一个解释：k2 导致了它。\n"),
    ("3", OPENER_ZH + "q1 的输出没有别的解释；k2 决定了它。\n"),
    ("4", OPENER_ZH + "显然没有 k2，输出就会崩。\n"),
    ("4", OPENER_ZH + "很明显，没有 k2，输出就会崩。\n"),
    ("4", OPENER_ZH + "要是没有 k2，模型就会出错。\n"),
    ("4", OPENER_ZH + "显然没有 k2 的话，就不会有合理的输出。\n"),
    ("4", OPENER_ZH + "当然没有 k2，q1 的输出就会完全不同。\n"),
]

# (hole, text): a caveat the new readings must leave a caveat
STILL_A_CAVEAT = [
    ("1", OPENER_EN + "It would be wrong to ignore that the heatmap cannot prove causation.\n"),
    ("1", OPENER_EN + "We cannot ignore that the heatmap cannot prove causation.\n"),
    ("1", OPENER_EN + "It would be wrong to say that the heatmap proves k2 causes the output.\n"),
    ("1", OPENER_EN + "I did not ignore the padding keys; the heatmap cannot prove causation.\n"),
    ("1", OPENER_ZH + "忽视热力图不能证明因果关系这一点是错误的。\n"),
    ("1", OPENER_ZH + "不能忽视热力图不能证明因果关系这一点。\n"),
    ("2", OPENER_EN + "Nobody thinks the heatmap proves causation.\n"),
    ("2", OPENER_EN + "Nobody would claim that k2 causes q1's output.\n"),
    ("2", OPENER_EN + "No one should conclude that the heatmap proves causation.\n"),
    ("2", OPENER_ZH + "没有人认为热力图能证明因果关系。\n"),
    ("2", OPENER_ZH + "谁也不会认为热力图能证明因果。\n"),
    ("3", OPENER_EN + "q1's output is a weighted sum; the heatmap cannot show that k2 causes it.\n"),
    ("4", OPENER_ZH + "显然没有消融实验，就不能说 k2 决定了输出。\n"),
]

# (hole, text): a claim taken back by a retraction bracket: no overclaim, no caveat
RETRACTED = [
    ("5", OPENER_EN + "k2 causes q1's output (not really).\n"),
    ("5", OPENER_EN + "k2 is the most important key (not really).\n"),
    ("5", OPENER_EN + "k2 is the most important key (just kidding).\n"),
    ("5", OPENER_EN + "q1 reads mostly from k2 (0.67), so k2 causes q1's output (not really).\n"),
    ("5", OPENER_ZH + "k2 导致了 q1 的输出（其实不然）。\n"),
    ("5", OPENER_ZH + "k2 是最重要的 key（其实不然）。\n"),
]


@pytest.mark.parametrize(("hole", "text"), ASSERTED)
def test_an_affirmed_claim_is_flagged_and_scores_as_the_bare_claim(hole, text):
    r = _grade(text)
    assert "overclaim" in kinds(r) and r["score"] <= 2, (hole, r["score"], kinds(r))


@pytest.mark.parametrize(("hole", "text"), STILL_A_CAVEAT)
def test_a_caveat_still_earns_its_limit(hole, text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (hole, r["score"], kinds(r))


@pytest.mark.parametrize(("hole", "text"), RETRACTED)
def test_a_retracted_claim_is_no_overclaim_and_earns_no_limit(hole, text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] == 0, (hole, r["score"], kinds(r))


def test_a_caveat_before_a_retracted_claim_keeps_its_limit():
    """Only the retracted clause loses its caveat reading: the caveat said before it is the student's own."""
    for text in (OPENER_EN + "The heatmap cannot prove causation; k2 is the most important key (not really).\n",
                 OPENER_ZH + "热力图不能证明因果关系；k2 是最重要的 key（其实不然）。\n"):
        r = _grade(text)
        assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, text


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 is the most important key (as the map seems to show) (not really).\n",
    OPENER_EN + "k2 causes q1's output (the heatmap shows it) (not really).\n",
    OPENER_ZH + "k2 是最重要的 key（图上看起来如此）（其实不然）。\n",
])
def test_a_retracted_claim_said_to_be_the_figures_keeps_its_limit(text):
    """Taking back what the figure seems to show says that the figure does not show it: the limit
    (validation/en_r40b_bracket_denial.md, hand 10.5)."""
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (r["score"], kinds(r))


GAMING = Path(__file__).resolve().parent / "gaming"


@pytest.mark.parametrize("name", sorted(p.name for p in GAMING.glob("*_r41_*")))
def test_the_round_41_gaming_audits_earn_no_limit_and_at_most_3(name):
    """... and those that assert a claim (all but the retracted ones) are flagged for it."""
    r = _grade((GAMING / name).read_text(encoding="utf-8"))
    assert items(r)["limits"]["points"] == 0 and r["score"] <= 3, (r["score"], kinds(r))
    assert name.startswith("retracted_") or "overclaim" in kinds(r), kinds(r)


# ------------------------------------------------------------------------------------- CPU (the 20 KiB audit)

def test_a_phrase_group_runs_only_the_phrases_whose_literals_occur(checklist):
    """The negation cues' alternation (~80 phrases, many led by a look-around) was tried at every position of every
    sentence: ~10 % of a 20 KiB audit's CPU. The phrases none of whose literals occur are left out."""
    neg = checklist.negation
    text = "the heatmap cannot prove causation"
    kept = neg._kept(text)
    assert kept is not None and 0 < len(kept) < len(neg.alts) / 4
    assert [m.span() for m in neg.finditer(text)] == [m.span() for m in neg.regex.finditer(text)]


def test_a_reduced_alternation_finds_what_the_whole_one_finds(checklist):
    """Same spans, same first match, for the cue and overclaim groups over every sentence of the validation audits (the
    text as it is and with its intensifiers blanked, as the cue pass reads it)."""
    from rubric.audit.text import _blank, _segment

    groups = [checklist.negation, checklist.caveat, checklist.flip, checklist.rebuttal, checklist.overclaim_patterns]
    val = Path(__file__).resolve().parent / "validation"
    for path in sorted(val.glob("*.md")):
        for s in _segment(checklist, path.read_text(encoding="utf-8")):
            for text in (s.text, _blank(checklist.intensifiers, s.text)):
                for g in groups:
                    whole = [m.span() for m in g.regex.finditer(text)]
                    assert [m.span() for m in g.finditer(text)] == whole, (path.name, text)
                    first = g.search(text)
                    assert (first.span() if first else None) == (whole[0] if whole else None), (path.name, text)
