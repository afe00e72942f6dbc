"""Round 43 (brief A): audit readings stop 46 left open, en and zh, and the honest sentences close to them.

1. An adverb after a clause break ("nothing else explains the output - clearly k2 causes it", "——显然 k2 导致了输出"):
   the dash splits as it does before the key itself (colon and semicolon already did).
2. (reverted in the mend: a double negation is read as main reads it; see test_audit_mend_round43.py's guards)
3. Hedged negators deny: hardly, scarcely, barely, by no means, in no way ("It is hardly the case that k2 causes the
   output"), zh 很难证明 as 难以; "hardly surprising" does not.
4. A bracket that closes its sentence and opens with a key's statement is a clause of its own ("Nothing else explains the
   output (k2 causes it).", "The heatmap cannot show everything (k2 causes the output, though)").
5. An aside between commas after a negated verb may hold a key or a number when it opens with a concession or a
   condition ("cannot, given k2's weight of 0.67, prove causation", 不能，尽管 k2 的权重是 0.67，证明); a key with a verb of
   its own there is still a claim ("cannot, although k2 causes the output, prove").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _graded(sentence: str) -> dict:
    return _grade((OPENER_ZH if _zh(sentence) else OPENER_EN) + sentence + "\n")


# (item, sentence): a claim the sentence asserts; flagged, no caveat credit, at most the bare claim's 2.0
ASSERTED = [
    ("1", "Nothing else explains the output - clearly k2 causes it."),
    ("1", "Nothing else explains the output - obviously k2 causes it."),
    ("1", "Nothing else explains the output -- surely k2 causes it."),
    ("1", "Nothing else explains the output \u2014 evidently, k2 causes it."),
    ("1", "Nothing else explains the output \u2013 so k2 causes it."),
    ("1", "Nothing else explains the output - of course k2 causes it."),
    ("1", "Nothing else explains the output: clearly k2 causes it."),
    ("1", "Nothing else explains the output; obviously k2 causes it."),
    ("1", "输出没有别的解释——显然 k2 导致了输出。"),
    ("1", "输出没有别的解释——很明显，k2 导致了输出。"),
    ("3", "It is hardly the case that the heatmap cannot prove causation."),
    ("3", "It is hardly surprising that k2 causes the output."),
    ("4", "Nothing else explains the output (k2 causes it)."),
    ("4", "The heatmap cannot show everything (k2 causes the output, though)."),
    ("4", "The output is high (k2 causes it)."),
    ("4", "The weights are clear [k2 causes the output]."),
    ("4", "(k2 causes the output)"),
    ("4", "q1 的输出很高（k2 导致了输出）。"),
    ("4", "（k2 导致了输出）"),
    ("4", "输出没有别的解释（k2 导致了输出）。"),
    ("5", "The heatmap cannot, although k2 causes the output, prove causation."),
    ("5", "The heatmap cannot, given that k2 causes the output, prove causation."),
    ("5", "热力图不能，尽管 k2 导致了输出，证明因果关系。"),
    ("5", "热力图不能，即使 k2 是输出的原因，证明因果关系。"),
    ("5", "It is not, k2 causes the output, whatever you say."),
]

# (item, sentence): an honest caveat: no overclaim, caveat credit
CAVEAT = [
    ("1", "The heatmap cannot prove causation - clearly it only shows weights."),
    ("1", "The heatmap cannot prove causation - obviously that needs an ablation."),
    ("1", "k2 is not - clearly - the cause of the output."),
    ("1", "The weights are not importance: clearly they are mixing coefficients."),
    ("1", "热力图不能证明因果——显然它只显示权重。"),
    ("1", "热力图不能证明因果——当然，这需要消融实验。"),
    ("3", "It is by no means certain that k2 causes the output."),
    ("3", "In no way does the heatmap prove that k2 causes the output."),
    ("1", "热力图不能证明因果——所以需要消融实验。"),
    ("1", "热力图不能证明因果：显然它只显示权重。"),
    ("5", "The heatmap does not, at least for q1, show that k2 causes the output."),
    ("5", "热力图不能，哪怕 k2 的权重最高，证明因果关系。"),
    ("3", "It is hardly the case that k2 causes the output."),
    ("3", "It is scarcely the case that k2 causes the output."),
    ("3", "It is by no means the case that k2 causes the output."),
    ("3", "It is hardly the case that a weight proves causation."),
    ("3", "The heatmap can hardly prove that k2 causes the output."),
    ("3", "The heatmap can scarcely show that k2 causes the output."),
    ("3", "The heatmap barely shows that k2 causes the output."),
    ("3", "A weight of 0.67 by no means proves that k2 causes the output."),
    ("3", "The heatmap in no way shows that k2 causes the output."),
    ("3", "It is far from clear that k2 causes the output."),
    ("3", "It is hardly surprising that the heatmap cannot prove causation."),
    ("3", "热力图很难证明 k2 导致了输出。"),
    ("3", "热力图很难证明因果关系。"),
    ("3", "很难说 k2 导致了输出。"),
    ("3", "k2 未必导致了输出。"),
    ("3", "谈不上 k2 导致了输出。"),
    ("3", "不见得是 k2 导致了输出。"),
    ("4", "The heatmap cannot prove causation (it only shows weights)."),
    ("4", "The heatmap cannot show that k2 causes the output (that needs an ablation)."),
    ("4", "k2 gets 0.67 (it is the brightest cell), but the heatmap cannot prove that k2 causes the output."),
    ("4", "Causality (of k2) cannot be inferred from the weights."),
    ("4", "The heatmap cannot prove that k2 causes q1's output (k2 only has a weight of 0.67), or that k1 matters most."),
    ("4", "What this heatmap cannot prove: that k2 causes q1's output (that would need an ablation), or that k1 is the most "
          "important feature for q0."),
    ("4", "The heatmap cannot prove that k2 causes the output (k2 only gets 0.67)."),
    ("4", "热力图不能证明因果（它只显示权重）。"),
    ("4", "热力图不能说明 k2 导致了输出（这需要消融实验）。"),
    ("5", "The heatmap cannot, given k2's weight of 0.67, prove causation."),
    ("5", "The heatmap cannot, despite k2's weight of 0.67, prove causation."),
    ("5", "The heatmap does not, even with a weight of 0.67 on k2, show that k2 causes the output."),
    ("5", "The heatmap cannot, at 0.67 for k2, prove causation."),
    ("5", "The heatmap cannot, with k2 at 0.67, prove causation."),
    ("5", "The heatmap does not, for k2 at 0.67, show that k2 causes the output."),
    ("5", "The heatmap cannot, even given k2's 0.67, prove that k2 causes the output."),
    ("5", "A weight cannot, whatever k2's 0.67 suggests, prove that k2 causes the output."),
    ("5", "A weight does not, however large, prove causation."),
    ("5", "热力图不能，尽管 k2 的权重是 0.67，证明因果关系。"),
    ("5", "热力图无法，即使 k2 的权重高达 0.67，证明 k2 导致了输出。"),
    ("5", "热力图不能，即使 k2 的权重是 0.67，证明 k2 导致了输出。"),
    ("5", "热力图无法，鉴于 k2 只是一个权重，证明因果关系。"),
]


@pytest.mark.parametrize(("item", "sentence"), ASSERTED)
def test_a_claim_the_sentence_asserts_is_flagged_and_earns_no_caveat(item, sentence):
    r = _graded(sentence)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0 and r["score"] <= 2, (
        item, r["score"], kinds(r))


@pytest.mark.parametrize(("item", "sentence"), CAVEAT)
def test_an_honest_caveat_earns_caveat_credit_and_no_flag(item, sentence):
    r = _graded(sentence)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (item, r["score"], kinds(r))


@pytest.mark.parametrize("sentence", ["One cannot say that k2 is not the cause.", "k2 is the cause."])
def test_a_cause_with_nothing_it_causes_is_read_alike_plain_or_doubly_denied(sentence):
    """"k2 is the cause" names no output: the plain claim is no overclaim, and its double denial earns no caveat either."""
    r = _graded(sentence)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


@pytest.mark.parametrize("sentence", ["(k2 causes it)", "k2 causes it."])
def test_a_bracketed_claim_about_it_with_no_output_named_is_read_as_the_plain_one(sentence):
    """Round 42: the pronoun is the output only when the sentence names the output before it; brackets change nothing."""
    assert "overclaim" not in kinds(_graded(sentence))


GAMING = Path(__file__).resolve().parent / "gaming"


@pytest.mark.parametrize("name", sorted(p.name for p in GAMING.glob("*_r43_*")))
def test_the_round_43_gaming_audits_are_flagged_earn_no_caveat_and_at_most_2(name):
    r = _grade((GAMING / name).read_text(encoding="utf-8"))
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0 and r["score"] <= 2, (r["score"], kinds(r))


def test_there_are_round_43_gaming_audits_in_both_languages():
    names = {p.name for p in GAMING.glob("*_r43_*")}
    assert any(n.endswith("_en.md") for n in names) and any(n.endswith("_zh.md") for n in names)


@pytest.mark.parametrize(("sentence", "reading"), [("q1 barely attends to k0 (0.09).", 2.0),
                                                   ("The heatmap barely differs from the reference.", 1.0)])
def test_barely_in_a_reading_of_the_figure_denies_nothing(sentence, reading):
    """hardly / scarcely / barely deny only before a verb of proving, saying or causing: a small weight read off the
    figure keeps its figure-reading credit (main's points)."""
    r = _graded(sentence)
    assert items(r)["figure_reading"]["points"] == reading and "overclaim" not in kinds(r), (r["score"], kinds(r))
