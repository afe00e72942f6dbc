"""Round 48 mend (helper A) of review RA's findings on the round-48 audit checker.

H1. A verdict after a caveat takes the caveat back only when it closes its clause ("That is wrong.", "That is not true:
    ...", 这是错的。): one that goes on judges something else ("That is wrong reasoning", "That is not the case for the
    shape tests", "That is not so surprising", 这是错的推理, 这不对劲的地方) and the caveat keeps its credit; 这样说是错的
    ("saying so is wrong") backs the caveat.
H2. The retraction's reassertion is read in the clause right after the verdict and must be bare ("it does", "k2 is.") or a
    causal / importance predicate: "it is exact", "it is a common mistake", "it is only read less" flag nothing.
M1. A test asked, dismissed, then a claim ("Do we need an ablation? No need, k2 is clearly the cause.", 要做消融吗？不用，
    k2 就是原因。, "Ablation? 没必要。k2 就是原因。") is read as "the ablation is not necessary, <claim>": an overclaim.
M2. A toy example named as the limit by its own words ("This toy example cannot tell us what happens in practice.",
    "A toy example cannot show ...", "only a toy example") earns the generality limit again.
M3. A caveat withdrawn without a verdict ("Scratch that: it obviously does", "I take that back", 我收回这句话) too.
Also the reviewer's 32 hand-scored probes (written before the checker ran): the ones the checker now agrees with are
held; the ones still wrong are strict xfails naming the open finding (M4, pre-existing misreadings).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    """(score, limits points, overclaim flagged) of the one-line opener and ``sentence``."""
    zh = not sentence[0].isascii()
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


# ---------------------------------------------------------------------- H1/H2: a verdict on something else is no retraction
@pytest.mark.parametrize("text, limits", [
    ("We cannot say k2 causes the output just because its weight is high. That is wrong reasoning.", 1.5),
    ("The heatmap cannot prove k2 causes the output. That is not the case for the shape tests, which are exact.", 1.5),
    ("q1 puts most weight on k2, but this does not prove k2 causes the output. That is not so surprising, since a softmax "
     "weight is only a reading coefficient.", 1.5),
    ("A high weight does not prove that k2 causes the output. That is not true of a trained model either.", 3.5),
    ("At first I wrote that k2 is the key. Without an ablation the heatmap cannot show k2 causes the output. "
     "That was wrong of me.", 1.5),
    ("不能证明 k2 导致了输出。这不对劲的地方在于权重只说明 q1 读哪里。", 1.5),
    ("The heatmap cannot prove k2 causes the output. This is not the case for the mask test: it is exact.", 1.5),
    ("We cannot say k2 causes the output just because its weight is high. That's wrong thinking, and it is a common "
     "mistake.", 1.5),
    ("A high weight does not mean k2 matters for the prediction. That is not true for k3 either: it is only read less.", 1.5),
])
def test_a_verdict_that_goes_on_about_something_else_keeps_the_caveat_and_flags_nothing(text, limits):
    """Before the mend: limits 0 (0.5 for the 3.5 one), and the last three flagged an overclaim."""
    _, got, flagged = _reading(text)
    assert (got, flagged) == (limits, False)


def test_saying_so_is_wrong_backs_the_caveat_in_zh():
    """这样说是错的 points at the claim the caveat denies. Before the mend: limits 0 (0.75 = the caveat's own credit here)."""
    base = _reading("不能说 k2 导致了输出。")[1]
    assert base > 0
    assert _reading("不能说 k2 导致了输出。这样说是错的。")[1] == base


@pytest.mark.parametrize("text, asserts", [
    ("We cannot prove k2 causes the prediction. That is wrong.", False),
    ("We cannot prove k2 causes the prediction. That is not true: k2 clearly does.", True),
    ("The heatmap cannot prove k2 causes the output. That is wrong, though: it clearly does.", True),
    ("The heatmap cannot prove k2 causes the output. That is not the case, because k2 drives the output.", True),
    ("我们不能证明 k2 导致了输出。这是错的。", False),
    ("我们不能证明 k2 导致了输出。这其实不对啊，k2 确实是原因。", True),
    ("我们不能证明 k2 导致了输出。这种想法是错的。", False),
    # (review M3: withdrawn without a verdict; before the mend: limits 1.5, no flag)
    ("We cannot prove k2 causes the prediction. Scratch that: it obviously does.", True),
    ("We cannot prove k2 causes the prediction. I take that back: k2 clearly causes it.", True),
    ("我们不能证明 k2 导致了输出。我收回这句话，k2 就是原因。", True),
    ("We cannot prove k2 causes the prediction. I take that back.", False),
])
def test_a_verdict_that_closes_its_clause_still_takes_the_caveat_back(text, asserts):
    """The brief's retractions stay (and review M3's withdrawals join them): no caveat, and an overclaim where the next
    clause asserts the denied claim."""
    _, got, flagged = _reading(text)
    assert (got, flagged) == (0.0, asserts)


def test_scratch_that_followed_by_an_object_is_no_withdrawal():
    assert _reading("We cannot prove k2 causes the prediction. Scratch that idea of a probe.")[1:] == (1.5, False)


# ----------------------------------------------------------------------------- M1: asked, dismissed, then the claim
@pytest.mark.parametrize("text", [
    "Do we need an ablation? No need, k2 is clearly the cause.",
    "要做消融吗？不用，k2 就是原因。",
    "需要消融吗？不需要，k2 就是原因。",
    "Ablation? 没必要。k2 就是原因。",
    "Ablation? Not necessary, k2 就是原因。",
    "Is an intervention needed? Unnecessary: k2 is the cause.",
])
def test_a_test_asked_then_dismissed_in_any_words_before_a_claim_is_an_overclaim(text):
    """Before the mend: limits 0, no flag (the merged question and answer were text no pattern reads)."""
    _, got, flagged = _reading(text)
    assert (got, flagged) == (0.0, True)


def test_a_test_asked_dismissed_and_the_claim_disowned_is_no_overclaim():
    assert _reading("Ablation? Not needed. We make no claim that k2 causes the output.")[1:] == (1.5, False)


# ----------------------------------------------------------------------------------- M2: the toy example as the limit
@pytest.mark.parametrize("text, limits", [
    ("This toy example cannot tell us what happens in practice.", 1.0),
    ("A toy example cannot show that the pattern holds in general.", 1.0),
    ("Our toy example does not prove anything about practice.", 1.0),
    ("Only a toy example, so I would not read too much into it.", 1.0),
    ("This is only a toy example, not real data.", 1.0),
    ("This is not a toy example; the pattern holds for real data.", 0.0),
    ("It is not only a toy example; the pattern holds for real data.", 0.0),
])
def test_a_toy_example_named_as_the_limit_by_its_own_words_earns_the_generality_limit(text, limits):
    """Before the mend: the first three 0 (the round-48 change dropped "a toy / this toy example" in every use)."""
    assert _reading(text)[1] == limits


# ------------------------------------------------------------------------------ the reviewer's hand-scored probes
_OPEN = {"R6": "M4: a self-correction by 'That is wrong' (pre-existing)",
         "R7": "zh caveat 不能说 alone earns 0.75 (pre-existing)",
         "R8": "不能因为权重高就说 k2 导致了输出 is flagged on its own (pre-existing)",
         "R10": "a past claim reported by the student ('At first I wrote that ...') flagged (pre-existing)",
         "Q2": "M4 (pre-existing)", "Q3": "M4 (pre-existing)", "Q5": "M4 (pre-existing)",
         "G2": "'come from a toy example' without a limit cue in its clause (pre-existing)"}
# (id | limits points by hand | overclaim by hand | the sentence after the one-line opener)
_PROBES_TABLE = """\
R1 | 1.5 | - | We cannot say k2 causes the output just because its weight is high. That is wrong reasoning.
R2 | 1.5 | - | The heatmap cannot prove k2 causes the output. This is not the case for the parity test, which compares with a reference.
R3 | 1.5 | - | q1 puts most weight on k2, but this does not prove k2 causes the output. That is not so surprising, since a softmax weight is only a reading coefficient.
R4 | 1.5 | - | The heatmap does not prove the claim that k2 causes the output. That claim is false without an ablation.
R5 | 1.5 | - | My partner says the heatmap cannot tell us anything. That is wrong: it shows where q1 looks, though it cannot prove k2 causes the output.
R6 | 1.5 | - | k2 causes the prediction. That is wrong: a heatmap cannot prove it without an ablation.
R7 | 1.5 | - | 不能说 k2 导致了输出。这样说是错的。
R8 | 1.5 | - | 不能因为权重高就说 k2 导致了输出。这是错的推理。
R9 | 1.5 | - | 有人认为热力图什么都说明不了。这是错的：它说明 q1 主要读 k2，但不能证明 k2 导致了输出。
R10 | 1.5 | - | At first I wrote that k2 causes the output. Without an ablation the heatmap cannot show this. That was wrong of me.
T1 | 0.0 | overclaim | 权重高不代表 k2 导致了输出。这其实不对，k2 确实是原因。
T2 | 0.0 | overclaim | 我們不能證明 k2 導致了輸出。不過這其實不對，k2 就是原因。
T3 | 0.0 | - | 熱力圖不能證明 k2 導致了輸出。這一點是錯的。
T4 | 0.0 | overclaim | 我们不能证明 k2 导致了输出。这种想法是错的，k2 显然导致了输出。
T5 | 0.0 | overclaim | 我们不能 prove k2 causes the output。That is wrong though，k2 就是原因。
T6 | 0.0 | overclaim | The heatmap cannot prove k2 causes the output. 不过这其实不对，it clearly does.
T7 | 0.0 | overclaim | We cannot prove k2 causes the prediction. Actually that's not true: k2 clearly does.
T8 | 0.0 | overclaim | We cannot prove k2 causes the prediction. Scratch that: it obviously does.
Q1 | 1.5 | - | Ablation? Necessary: without it we cannot say k2 causes the output.
Q2 | 1.5 | - | Ablation? Not necessary for reading the heatmap, but necessary before saying k2 causes the output.
Q3 | 1.5 | - | Is an ablation needed? Not needed to read the weights; needed to claim k2 causes the output.
Q4 | 1.5 | - | Does the heatmap prove k2 causes the output? No, not necessarily; an ablation would be needed.
Q5 | 1.5 | - | 消融？没必要做也能看出 q1 读 k2，但要说 k2 导致输出就必须做。
Q6 | 0.0 | overclaim | An ablation? Pointless. k2 drives the output.
Q7 | 0.0 | overclaim | 要做消融吗？不用，k2 就是原因。
Q8 | 0.0 | overclaim | 消融？沒必要，k2 就是原因。
G1 | 1.0 | - | This is not a real dataset, only a toy example.
G2 | 1.0 | - | The weights come from a toy example; nothing here carries over.
G3 | 1.0 | - | It is just a toy example, so I would not trust it beyond these four keys.
G4 | 0.0 | - | This is not a toy example; the pattern holds for real data.
G5 | 1.0 | - | 這只是一個玩具例子，不是真實資料。
G6 | 0.0 | - | 这不是玩具例子，结论对真实数据也成立。
"""
_PROBES = [(pid, text, float(lim), over == "overclaim") for pid, lim, over, text in
           (line.split(" | ", 3) for line in _PROBES_TABLE.splitlines())]


@pytest.mark.parametrize("pid, text, limits, over", [
    pytest.param(*p, marks=pytest.mark.xfail(strict=True, reason=_OPEN[p[0]])) if p[0] in _OPEN else p
    for p in _PROBES], ids=[p[0] for p in _PROBES])
def test_the_reviewers_hand_scored_probe_is_graded_as_the_hand_scored_it(pid, text, limits, over):
    """Review RA's probes, hand-scored before the checker ran: base 14/32, round-48 tip 19/32, after the mend 24/32."""
    _, got, flagged = _reading(text)
    assert (got, flagged) == (limits, over)
