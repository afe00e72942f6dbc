"""Audit round 16: honest phrasings of three points that earned nothing, each widened as a class (zh, en, 繁體:
traditional text is read as simplified, tests/audit/test_audit_traditional.py), with the negated and
overclaiming neighbours of every new cue pinned at zero.

1. masked keys shown, not numbered: "the padded keys in the last two columns are black", "columns 14 and 15 are
   zero: those keys are padding", 最后两列被 mask 的 key 全黑 (figure_reading.masked_zero);
2. what a high weight is read as: "a high weight does not mean the key caused the output", 权重高不代表这个 key
   导致了输出, "this does not prove that the model relies on these positions" (limits.not_importance);
3. what only an intervention could show: "only an intervention (masking a key and measuring the output change)
   could support a causal claim", 要检验因果关系需要对 key 做消融 (limits.not_causal, audit.yaml cues.caveat;
   a requirement denied, "no intervention is needed", 不需要干预, is none: cues.negation_exclusions).

Honest files, scores with the lab's heatmap before -> after this round:

    caveats_own_paragraph_en.md           6.5 -> 8.0    (figure_reading 1 -> 2, limits 3.5 -> 4)
    caveats_under_limits_heading_zh.md    6.5 -> 8.0    (figure_reading 1 -> 2, limits 3.5 -> 4)
    observations_then_limitations_en.md   8.5 -> 10.0   (figure_reading 2 -> 3, limits 3.5 -> 4)

The other honest files written the same way gain too: attends_mostly_no_numbers_en 6.5 -> 8.0 ("the padding
keys get no weight"), most_weight_no_numbers_zh 5.5 -> 7.0 (padding 的 key 没有权重), figure_named_first_zh 5.5 -> 7.0,
figure_named_last_en 5.5 -> 7.0, figure_named_first_line_en 5.5 -> 6.0 (its "padded keys ... are dark" is left
open: dark is zero in viridis but the largest weight in Blues). The gaming corpus (2-4) and the validation set
(MAD 0.2368, Spearman 0.9947) are unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import (
    CAUSAL,
    IMPORTANCE,
    MASKED,
    MEASURED_OK,
    concept_credited,
    items,
    kinds,
    make_heatmap,
)

HERE = Path(__file__).resolve().parent
HONEST = HERE / "honest"


@pytest.mark.parametrize("name, score, reading, limits", [
    ("caveats_own_paragraph_en.md", 8.0, 2, 4),
    ("caveats_under_limits_heading_zh.md", 8.0, 2, 4),
    ("observations_then_limitations_en.md", 10.0, 3, 4),
])
def test_the_three_honest_audits_earn_what_they_say(name, score, reading, limits, checklist):
    r = grade_audit((HONEST / name).read_text(encoding="utf-8"), make_heatmap(), MEASURED_OK, checklist)
    detail = [(it["id"], it["points"], it["feedback"]["en"][-160:]) for it in r["items"]]
    assert r["score"] >= score, detail
    assert items(r)["figure_reading"]["points"] >= reading and items(r)["limits"]["points"] >= limits, detail
    assert kinds(r) == []


# ------------------------------------------------ 1. masked keys shown black, or zero written first

@pytest.mark.parametrize("sentence", [
    "The padded keys in the last two columns are black, so the mask works.",
    "Columns 14 and 15 are zero: those keys are padding and the mask removes them.",
    "The masked column is completely black in my heatmap.",
    "The padded positions are blank in every row.",
    "Both padding columns are empty in the plot.",
    "The last two columns are black because those keys are masked.",
    "Keys 3 and 4 get weight 0 because they are padding.",
    "最后两列被 mask 的 key 全黑，说明 mask 生效了。",
    "被 mask 的那两列是黑色的。",
    "padding 的位置全黑。",
    "最后两列全是 0，这些 key 是 padding。",
    "最後兩行被遮罩的 key 全黑。",
    "被遮罩的那兩行是黑的。",
    # "no weight" / 没有权重 of a masked key states its zero (audit.yaml cues.negation_exclusions)
    "The padding keys get no weight, so the mask works.",
    "The masked keys receive no attention at all.",
    "padding 的 key 没有权重，说明 mask 生效了。",
    "被遮罩的 key 完全没有权重。",
    "被遮罩的那兩行完全沒有權重。",
])
def test_masked_keys_shown_black_or_zero_earn_the_masked_point(sentence, checklist):
    assert concept_credited(sentence, *MASKED, checklist)


@pytest.mark.parametrize("sentence", [
    "The masked keys still get weight.",
    "The padded keys in the last two columns are not black, so the mask does not work.",
    "The masked keys are bright, not black.",
    "The masked keys are never black.",
    "Columns 14 and 15 are not zero although those keys are padding.",
    "Columns 14 and 15 are zero: those keys are not padding.",
    "The mask is a black box to me.",
    "最后两列被 mask 的 key 不是全黑。",
    "被 mask 的 key 仍然有权重。",
    "被 mask 的列并没有变黑。",
    "最後兩行被遮罩的 key 並不是全黑。",
    "It is not true that the padding keys get no weight.",
    "The padding keys do not get no weight.",
    "The padding keys never get no weight.",
    "The padding keys still get some weight.",
    "被 mask 的 key 不是没有权重。",
    "被 mask 的 key 并非没有权重。",
    "被遮罩的 key 並非沒有權重。",
])
def test_masked_keys_with_weight_or_not_black_do_not(sentence, checklist):
    assert not concept_credited(sentence, *MASKED, checklist)


# ----------------------------------------------------- 2. what a high weight does not mean

@pytest.mark.parametrize("sentence", [
    "Attention weights are not explanations: a high weight does not mean the key caused the output.",
    "A large attention weight doesn't tell us that the model uses that key.",
    "The brightest cell does not show which key drives the output.",
    "A high weight ≠ a key the output needs.",
    "This does not prove that the model relies on these positions to make its prediction.",
    "The heatmap cannot show whether the prediction depends on k2.",
    "注意力权重不等于解释：权重高不代表这个 key 导致了输出。",
    "高权重并不意味着这个 key 导致了输出。",
    "颜色深不说明这个位置决定了预测。",
    "这不能证明模型依赖这些位置做出预测。",
    "注意力權重不等於解釋：權重高並不意味著這個 key 導致了輸出。",
    "這不能證明模型依賴這些位置做出預測。",
    "A high attention weight is not evidence that the key matters.",
])
def test_what_a_high_weight_does_not_mean_is_the_importance_caveat(sentence, checklist):
    assert concept_credited(sentence, *IMPORTANCE, checklist)


@pytest.mark.parametrize("sentence, overclaim", [
    ("A high weight means the key caused the output.", True),
    ("Attention weights are explanations: a high weight means the key caused the output.", True),
    ("A high weight shows that the model relies on k2.", True),  # an overclaim since round 18 ("shows" as "proves")
    ("This proves that the model relies on these positions.", True),  # an overclaim since round 17
    ("权重高代表这个 key 导致了输出。", True),
    ("注意力权重就是解释。", False),
    ("注意力权重就是解释：权重高代表这个 key 导致了输出。", True),
    ("这证明模型依赖这些位置做出预测。", True),  # an overclaim since round 17
    ("權重高代表這個 key 導致了輸出。", True),
    ("A high attention weight is evidence that the key matters most.", True),
    ("A high attention weight is evidence that the key matters.", True),  # an overclaim since round 17
])
def test_a_high_weight_read_as_meaning_it_earns_no_caveat(sentence, overclaim, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0
    assert ("overclaim" in kinds(r)) == overclaim


# --------------------------------------------- 3. what only an intervention could show is a caveat

@pytest.mark.parametrize("sentence", [
    "Only an intervention (masking a key and measuring the output change) could support a causal claim.",
    "To test a causal claim I would have to ablate the keys and measure the change in loss.",
    "Causality can only be established by an ablation.",
    "A causal claim would need an intervention such as ablating k2.",
    "Only by ablating k2 could we tell whether it causes the output.",
    "To establish causality, one would have to ablate the keys.",
    "要检验因果关系需要对 key 做消融并测量 loss 的变化。",
    "只有做干预实验才能证明因果。",
    "因果关系只能通过消融来检验。",
    "要证明因果，必须做消融实验。",
    "只有做幹預實驗才能證明因果。",
    "因果關係只能通過消融來檢驗。",
    "I would need to intervene on the keys to claim a causal effect.",
    "Whether k2 causes the output can only be tested with an ablation.",
    "Establishing causation would require a counterfactual experiment.",
    "想知道 k2 是否导致输出，只能靠消融实验。",
    "因果需要做干预实验才能确定。",
])
def test_what_only_an_intervention_could_show_is_the_causal_caveat(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert concept_credited(sentence, *CAUSAL, checklist) and "overclaim" not in kinds(r)


@pytest.mark.parametrize("sentence, overclaim", [
    ("This intervention proves that k2 causes the output.", True),
    ("My ablation proves that k2 causes the output.", True),
    ("这个干预证明了 k2 导致了输出。", True),
    # round 46: a denied need of the test a causal claim needs is an overclaim, as 不需要干预就能证明因果 was
    ("No intervention is needed to support a causal claim.", True),
    ("An intervention is not needed: the heatmap alone supports a causal claim.", True),
    ("Not only an intervention could support a causal claim: the heatmap does too.", False),
    ("Only my heatmap could support a causal claim.", False),
    ("Only an intervention could help me here.", False),
    ("The fix requires an intervention.", False),
    ("不需要干预就能证明因果。", True),
    ("无需消融就能确定因果关系。", True),
    ("I do not need to intervene on the keys to claim a causal effect.", True),
    ("想知道 k2 是否导致输出，不需要消融实验。", True),
])
def test_an_intervention_said_to_prove_or_not_to_be_needed_earns_no_caveat(sentence, overclaim, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0
    assert ("overclaim" in kinds(r)) == overclaim
