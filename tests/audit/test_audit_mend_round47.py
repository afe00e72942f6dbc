"""Round 47 mend (review RA of builder A's round 47): the checker's new readings, narrowed or widened as classes.

H1. Keys counted from 1 beside a q0 ("q0 puts 0.58 on k2, the middle key") were flagged as cells the figure does not
    show and lost a point: a q0 no longer decides how the k labels are counted (only a k0 named does).
H2. A toy size or a single run merely mentioned ("I plotted the heatmap on the 2x3 toy example", 单次运行耗时 2 ms,
    这不是玩具例子) was credited as the generality limit: it counts only said as a limit (only / just / 只是 ...).
H3. The ablation dismissed in more words ("Ablation not needed", 消融没有必要, 没必要再跑消融了, "leave out", "skip
    ablating", "didn't bother with", 省略了消融) beside a key's causal claim: an overclaim, no caveat.
M1. A skipped ablation with the claim called a guess (“k2 导致了输出”只是猜测) is the caveat, not an overclaim.
M2. The row-sum shorthand in more forms ("Every row's total is 1.0", 每一行都是 100%).
M3. A row that is 1 of something else ("Each row is 1 word", "every row is 1.0 at the peak cell") is no row sum; the
    column twins ("every column is 1.0", 每一列都是 1) are the dim=-2 reading.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, OPENER_EN, OPENER_ZH, items, kinds, make_heatmap
from tests.audit.helpers import grade_example as _grade


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _reading(sentence: str) -> tuple[float, dict, bool]:
    """(score, items by id, overclaim flagged) of the one-line opener and ``sentence``."""
    r = _grade((OPENER_ZH if _zh(sentence) else OPENER_EN) + sentence + "\n")
    return r["score"], items(r), "overclaim" in kinds(r)


@pytest.fixture(scope="module")
def cell_env():
    return load_checklist(), make_heatmap()


def _cells(text: str, cell_env) -> tuple[float, bool]:
    """(score, flagged as a misread cell) of the plain opener (no k0 named) and ``text``."""
    checklist, figure = cell_env
    r = grade_audit((OPENER_ZH if _zh(text) else OPENER_EN) + text + "\n", figure, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    return r["score"], any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


# ------------------------------------------------------------------------------- H1. keys counted from 1 beside q0
# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21], q1 [0.09, 0.24, 0.67]
@pytest.mark.parametrize("text", [
    "q0 puts most of its weight (0.58) on k2, the middle key.",
    "q0 (first query) puts 0.58 on k2 (the second key).",
    "q0 mostly attends to k2.",
    "q0 的权重主要在 k2（中间那个 key），0.58。",
    "q0 puts 0.58 on k2.",
])
def test_keys_counted_from_1_beside_q0_are_no_misread_cell(text, cell_env):
    """Before: flagged ("reads cells your figure does not show"), and scored below the same reading counted from 0."""
    score, flagged = _cells(text, cell_env)
    assert not flagged
    assert score == _cells(text.replace("k2", "k1"), cell_env)[0]


@pytest.mark.parametrize("text", ["q0 puts 0.67 on k2.", "q1 puts 0.58 on k1.", "q0 在 k2 上的权重是 0.67。"])
def test_a_value_that_fits_no_count_of_the_keys_stays_flagged(text, cell_env):
    assert _cells(text, cell_env)[1]


# ------------------------------------------------------------------------------- H2. the setup is no limit
@pytest.mark.parametrize("sentence", [
    "I plotted the heatmap on the 2x3 toy example from the handout.",
    "We work with a toy example: 2 queries and 3 keys.",
    "The dataset is a toy dataset, and k2 matters for it.",
    "我在讲义的 2x3 玩具例子上画了热力图。",
    "这是一个玩具例子：2 个 query，3 个 key。",
    "单次运行耗时大约 2 ms。",
    "这不是玩具例子，结论对真实数据也适用。",
])
def test_a_toy_size_or_single_run_only_mentioned_is_no_limit(sentence):
    """Before: limits 1 (the bare mention, or its negation, counted as the generality limit)."""
    assert _reading(sentence)[1]["limits"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "It's only a 2x3 toy example.", "This is just a toy example, so no general claim.", "只是一个 2x3 的玩具例子。",
    "结果来自单次运行，不能推广。", "Only one seed and a toy size, so no general claim.",
])
def test_a_toy_size_or_single_run_said_as_a_limit_stays_the_limit(sentence):
    assert _reading(sentence)[1]["limits"]["points"] >= 0.5


@pytest.mark.parametrize("text", [
    "I plotted the heatmap on the 2x3 toy example.\nEach row is 1 word of the sentence.\nThe colours are nice.\n",
    "我在 2x3 的玩具例子上画了热力图。\n单次运行很快。\n颜色很好看。\n",
])
def test_a_content_free_text_naming_the_toy_example_gains_nothing(text):
    """Before: 4.0 (en) and 3.0 (zh), for a limit and a row sum the text never states."""
    r = _grade(text)
    assert items(r)["limits"]["points"] == 0 and items(r)["figure_reading"]["points"] == 0


# ------------------------------------------------------------------------------- H3. the ablation dismissed
@pytest.mark.parametrize("sentence", [
    "Ablation not needed, k2 obviously matters.",
    "We can leave out the ablation: k2 clearly matters.",
    "I'd skip ablating k2, it obviously matters.",
    "I didn't bother with an ablation since k2 clearly matters.",
    "消融没有必要，k2 就是原因。",
    "没必要再跑消融了，k2 明显是原因。",
    "我们省略了消融，因为 k2 很明显是原因。",
])
def test_an_ablation_dismissed_beside_a_keys_causal_claim_is_an_overclaim(sentence):
    """Before: the causal caveat (1.5) or nothing, unflagged."""
    _, its, flagged = _reading(sentence)
    assert flagged and its["limits"]["points"] == 0


# ------------------------------------------------------------------------------- M1. the claim called a guess
@pytest.mark.parametrize("sentence", [
    "跳过了消融，所以“k2 导致了输出”只是猜测。",
    "我们跳过了消融，因此 k2 导致输出只是一个假设。",
    "跳过了消融，所以 k2 导致输出这一点没有验证。",
])
def test_a_skipped_ablation_with_the_claim_called_a_guess_is_the_caveat(sentence):
    """Before: an overclaim flag, limits 0."""
    _, its, flagged = _reading(sentence)
    assert not flagged and its["limits"]["points"] > 0


def test_a_claim_not_called_a_guess_stays_an_overclaim():
    assert _reading("跳过了消融，k2 明显导致了输出。")[2]


# ------------------------------------------------------------------------------- M2/M3. the row shorthand
@pytest.mark.parametrize("sentence", [
    "Every row's total is 1.0.", "Rows: each = 1.", "Each row comes out to exactly 1.", "每一行都是 100%。",
    "every row is 1.0 and q1 peaks late",
])
def test_more_forms_of_the_row_shorthand_are_the_row_sum_reading(sentence):
    """Before: figure_reading 1 (the opener's rows = queries only)."""
    assert _reading(sentence)[1]["figure_reading"]["points"] >= 2


@pytest.mark.parametrize("sentence", [
    "Each row is 1 word.", "Each row is 1 of the 2 queries.", "every row is 1.0 at the peak cell",
    "every row is 100% red in my plot", "每一行都是 1 号 token。",
])
def test_a_row_that_is_one_of_something_else_is_no_row_sum(sentence):
    """Before: figure_reading 2 (any noun outside a closed list took the row-sum credit)."""
    assert _reading(sentence)[1]["figure_reading"]["points"] == 1


@pytest.mark.parametrize("sentence", [
    "every column is 1.0", "Each column is 100%.", "column sums are all 1.0", "每一列都是 1。",
])
def test_the_column_twin_of_the_row_shorthand_is_the_dim_minus_2_reading(sentence):
    """Before: not read (no "states the opposite" feedback)."""
    _, its, _ = _reading(sentence)
    assert "states the opposite" in its["figure_reading"]["feedback"]["en"]


# ------------------------------------------------------------------------------- L1. 别 that ends a word
@pytest.mark.parametrize("before", ["没有区别", "分别", "特别"])
def test_a_word_ending_in_bie_declines_no_generalisation(before):
    """Before: the bare 别 of 区别 / 分别 / 特别 read as "don't" before 推广 / 所有."""
    from rubric.audit.grade import _DECLINED
    assert _DECLINED.search(before) is None


@pytest.mark.parametrize("before", ["别", "所以我不会", "不能"])
def test_a_declining_word_before_a_generalisation_is_still_read(before):
    from rubric.audit.grade import _DECLINED
    assert _DECLINED.search(before) is not None
