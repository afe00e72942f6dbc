"""Round 47 (builder A): the audit checker's misreadings left open at stop 50, and the hunt's.

1. The ablation dismissed in other words than "needs no ablation" ("We can skip the ablation, k2 clearly matters",
   不做消融也能知道 k2 导致了输出) beside a key's causal or importance claim: it earned the causal caveat (zh, on the 不 of
   不做) or nothing, unflagged; it is an overclaim and no caveat.
2. The narrow case named as what it is ("This is one seed on a 2x3 toy example", 只跑了一次, a single run): no limit was
   credited without "only" or a negation; it is the generality limit.
3. A row said to be 1 ("every row is 1.0", 每一行都是 1, "row sums are all 1.0"): the row-sum reading, not credited.
4. A cell read with q0 and a k label ("q0 puts 0.58 on k2"): q0 在 k2 上的权重 is read as a cell, as 对 k2 的权重 is; it
   is flagged when the audit counts its keys from 0 (a k0 named) or fits no count. (The round's "a q0 counts the k labels
   from 0 too" was withdrawn in the mend, review RA H1: k2 may be the second key, an honest reading.)
"""

from __future__ import annotations

import pytest

from rubric.audit import load_checklist
from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds, make_heatmap, misreads_a_cell
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, dict, bool]:
    """(score, items by id, overclaim flagged) of the one-line opener and ``sentence``."""
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r), "overclaim" in kinds(r)


# ------------------------------------------------------------------------------------------- 1. ablation dismissed
@pytest.mark.parametrize("sentence", [
    "不做消融也能知道 k2 导致了输出。",
    "跳过消融，我们也能确定 k2 很重要。",
    "We can skip the ablation, k2 clearly matters.",
    "There's no point in running an ablation, k2 matters.",
])
def test_a_dismissed_ablation_beside_a_keys_causal_claim_is_an_overclaim_and_no_caveat(sentence):
    """Before: zh 4.5 with the causal caveat (limits 1.5) and no flag; en 3.0, no flag."""
    _, its, flagged = _reading(sentence)
    assert flagged and its["limits"]["points"] == 0


# (mend, review RA M4: these were flagged before the round too, by the key's causal claim alone; a guard, not a test of
# the round's patterns)
@pytest.mark.parametrize("sentence", [
    "消融实验可以省掉，k2 决定了输出。",
    "k2 导致了 q1 的输出，消融是多余的。",
    "An ablation would be overkill here, k2 is the cause of q1's output.",
    "We skipped the ablation because k2 clearly causes the output.",
    "k2 clearly drives the output, so we can skip the ablation.",
])
def test_a_dismissed_ablation_beside_an_asserted_cause_stays_an_overclaim(sentence):
    _, its, flagged = _reading(sentence)
    assert flagged and its["limits"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "不做消融就不能说 k2 导致了输出。",
    "不做消融，我们无法判断 k2 是否重要。",
    "我们跳过了消融，所以不能说 k2 是否重要。",
    "We cannot skip the ablation: the heatmap does not prove k2 causes the output.",
    "I did not skip the ablation; without it nothing shows that k2 causes the output.",
    "We skipped the ablation for time, so causality is untested.",
])
def test_a_skipped_ablation_with_the_claim_denied_stays_a_caveat(sentence):
    _, its, flagged = _reading(sentence)
    assert not flagged and its["limits"]["points"] > 0


def test_a_skipped_ablation_with_no_claim_is_no_overclaim():
    assert not _reading("We skipped the ablation because of time.")[2]
    assert not _reading("时间不够，跳过了消融实验。")[2]


# ------------------------------------------------------------------------------------------- 2. one seed, toy size
@pytest.mark.parametrize("sentence", [
    "This is one seed on a 2x3 toy example.",
    "This is a single run on a 2x3 toy.",
    "It's only a 2x3 toy example with one seed.",
    "只跑了一次，而且是 2x3 的小例子。",
    "这只是玩具规模的例子。",
])
def test_one_seed_a_single_run_or_a_toy_size_named_is_the_generality_limit(sentence):
    """Before: limits 0 (en; zh 只跑了一次 / 玩具规模 too): no "only" before the seed and no negation."""
    assert _reading(sentence)[1]["limits"]["points"] == 1


@pytest.mark.parametrize("sentence", [
    "I used a toy example, and the result holds for every input.",
    "This is one seed, but the pattern is the same for all inputs.",
    "这个结论可以推广到所有输入，虽然只跑了一次。",
    "I ran the parity check once with seed 0.",
])
def test_a_narrow_case_said_to_generalise_or_only_mentioned_is_no_limit(sentence):
    assert _reading(sentence)[1]["limits"]["points"] == 0


# ------------------------------------------------------------------------------------------- 3. a row said to be 1
@pytest.mark.parametrize("sentence", [
    "every row is 1.0", "Each row is 1.", "All rows = 1.0", "row sums are all 1.0", "Row totals: 1.0, 1.0.",
    "Each row is 100%.", "每一行都是 1。", "两行都等于 1.0。",
])
def test_a_row_said_to_be_one_is_the_row_sum_reading(sentence):
    """Before: figure_reading 1 (the opener's rows = queries only)."""
    assert _reading(sentence)[1]["figure_reading"]["points"] == 2


@pytest.mark.parametrize("sentence", [
    "every row is one query", "Each row is 1 query.", "every row is 1.0 wide", "每一行都是 1 个 query。",
])
def test_a_row_that_is_one_of_something_else_is_no_row_sum(sentence):
    assert _reading(sentence)[1]["figure_reading"]["points"] == 1


# ------------------------------------------------------------------------------------------- 4. q0 counts k from 0
@pytest.fixture(scope="module")
def cell_env():
    return load_checklist(), make_heatmap()


def _misread_alone(text: str, cell_env) -> bool:
    """Flagged as a misread cell, with the plain opener (no k0 named anywhere)."""
    from rubric.audit import grade_audit
    from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK
    checklist, figure = cell_env
    r = grade_audit(OPENER_EN + text + "\n", figure, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21], q1 [0.09, 0.24, 0.67]
@pytest.mark.parametrize("text", [
    "q0 puts 0.58 on k2.",
    "q0's weight on k2 is 0.58.",
    "w(q0, k2) = 0.58",
    "q0 对 k2 的权重是 0.58。",
    "q0 在 k2 上的权重是 0.58。",
    "q1 puts 0.24 on k2 and q0 puts 0.58 on k2.",
])
def test_a_false_cell_read_with_q0_is_flagged_where_the_audit_counts_keys_from_0(text, cell_env):
    """With CELL_OPENER (a k0 named): k2 is the third key, which holds 0.21 for q0."""
    assert misreads_a_cell(text, *cell_env)


@pytest.mark.parametrize("text", [
    "q0 puts 0.58 on k1.",
    "q1 puts 0.67 on k2.",
    "q0 在 k1 上的权重是 0.58。",
    # keys counted from 1 beside q0: k3 is named, so k2 is the second key
    "q0 puts 0.21 on k1, 0.58 on k2 and 0.21 on k3.",
])
def test_a_true_cell_or_keys_counted_from_1_beside_q0_is_no_misread(text, cell_env):
    assert not _misread_alone(text, cell_env)


def test_the_cell_opener_case_stays_flagged(cell_env):
    assert misreads_a_cell("q0 在 k2 上的权重是 0.58。", *cell_env)


# ------------------------------------------------------------------------------------------- the hunt
# 5. "!=" / "=/=" is "≠": the "!" cut the note in two ("weights != importance" earned nothing, "weights ≠ importance" did)
@pytest.mark.parametrize("sentence", ["weights != importance (values matter too)", "- weights =/= importance, the values matter too"])
def test_an_ascii_not_equal_sign_denies_as_the_unicode_one_does(sentence):
    """Before: limits 0."""
    assert _reading(sentence)[1]["limits"]["points"] > 0


# 6. the test a causal claim needs, named first or for a causal question (en twins of 要说因果需要做消融)
@pytest.mark.parametrize("sentence", [
    "An ablation would be needed for a causal claim.",
    "Interventions are required to make a causal claim.",
    "Reading the weights needs no ablation, but whether k2 causes the output would need one, which I skipped.",
])
def test_an_ablation_said_to_be_needed_for_a_causal_claim_is_the_causal_caveat(sentence):
    """Before: limits 0 (the zh twins earned 1.5)."""
    _, its, flagged = _reading(sentence)
    assert its["limits"]["points"] == 1.5 and not flagged


# 7. "no point in running an ablation" denies nothing: its "no" earned the causal caveat the overclaim then took back
def test_no_point_in_an_ablation_earns_no_caveat():
    """Before: the file en_r47_no_point_overclaim scored 8.5 (limits 1.5 on the "no", before the overclaim was read)."""
    _, its, flagged = _reading("There's no point in running an ablation, k2 matters.")
    assert flagged and its["limits"]["points"] == 0 and its["figure_reading"]["points"] == 0


# 8. 100% is a written one ("each row sums to 100%", 每行加起来是 100%)
@pytest.mark.parametrize("sentence", ["Each row sums to 100%.", "每行加起来是 100%。", "Every row adds up to 100 %."])
def test_a_row_summing_to_100_percent_is_the_row_sum_reading(sentence):
    """Before: figure_reading 1."""
    assert _reading(sentence)[1]["figure_reading"]["points"] == 2


@pytest.mark.parametrize("sentence", ["Each row sums to 10%.", "Each row sums to 1000%."])
def test_other_percentages_are_no_row_sum(sentence):
    assert _reading(sentence)[1]["figure_reading"]["points"] == 1


# 9. a key said to change or affect the output, denied, is the causal caveat (what an ablation tests)
@pytest.mark.parametrize("sentence", [
    "The map cannot prove that k2 changes q1's output.",
    "The heatmap does not show that key 2 affects the prediction.",
    "这张图不能证明 k2 改变了 q1 的输出。",
    "热力图说明不了 k2 影响了输出。",
])
def test_a_key_changing_the_output_denied_is_the_causal_caveat(sentence):
    """Before: limits 0."""
    assert _reading(sentence)[1]["limits"]["points"] > 0


def test_a_key_changing_the_output_asserted_earns_no_caveat():
    assert _reading("k2 changes q1's output.")[1]["limits"]["points"] == 0


# 10. zh: what a key is important for (不能证明 k2 对预测重要, as "k2 is important for the prediction")
def test_a_key_important_for_the_prediction_denied_is_the_importance_caveat():
    """Before: limits 0 (the en twin earned the caveat)."""
    assert _reading("权重不能证明 k2 对预测重要，因为 value 也有影响。")[1]["limits"]["points"] == 1.5


# 11. a generalisation the writer declines (所以我不会推广: 我不会 is the writer's own action) and a single seed as the
# figure's source (来自单个随机种子) state the generality limit
def test_a_declined_generalisation_is_the_generality_limit():
    """Before: limits 0 (the en twin "The figure is from a single seed, so I would not generalise it" earned 1)."""
    assert _reading("这张图来自单个随机种子，所以我不会推广。")[1]["limits"]["points"] == 1


def test_a_single_run_denied_as_a_ground_stays_the_generality_limit():
    """(mend, review RA M4: credited before the round too; a guard)"""
    assert _reading("结果来自一次运行，不能推广。")[1]["limits"]["points"] == 1


def test_the_briefs_one_seed_toy_example_stays_the_generality_limit():
    """(mend, review RA M4: the brief's zh example was credited before the round too; a guard)"""
    assert _reading("只是一个随机种子、2x3 的玩具例子。")[1]["limits"]["points"] == 1


def test_a_single_seed_said_to_generalise_is_no_limit():
    assert _reading("这张图来自单个随机种子，但结论可以推广到所有输入。")[1]["limits"]["points"] == 0
