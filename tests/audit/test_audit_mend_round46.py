"""Round 46 mend (review RA of builder A's round 46): the holes A's classes opened, or left, as classes.

1. A limits label or heading rescues only bare notes: an asserted claim under it ("Limitations: k2 causes q1's output.",
   "## Limitations" then "k2 causes q1's output.") is an overclaim, not the caveat (HIGH 1).
2. A peak word after a comma that opens a clause about another key ("q1 puts 0.24 on k1, the most goes to k2 (0.67)",
   q1 对 k0 的权重是 0.09，最大的是 k2) is no peak of the cell just read (HIGH 2); the zh double object "q1 给 k2 0.67，是它
   最大的权重" reads that peak (MED 8).
3. "needs no ablation" does not reach past a contrast ("..., but whether k2 causes the output does") (HIGH 3).
4. "only one seed" next to a statement that the result generalises, or after "not", states no limit (HIGH 4).
5. A Chinese line cut by a narrow wrap (18-33 characters) continues on the next line (HIGH 5).
6. Certainty words set off by commas: "with certainty", "beyond question", "no question", "in all likelihood", 一定 (MED 7).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _graded(text: str) -> dict:
    zh = any("\u4e00" <= c <= "\u9fff" for c in text)
    return _grade((OPENER_ZH if zh else OPENER_EN) + text + "\n")


def _limits_and_flag(text: str, kind: str = "overclaim") -> tuple[float, bool]:
    r = _graded(text)
    return items(r)["limits"]["points"], kind in kinds(r)


# ------------------------------------------------------------------------------------------------ 1. label / heading
@pytest.mark.parametrize("text", [
    "Limitations: k2 causes q1's output.",
    "Limitations: the heatmap proves that k2 causes the output.",
    "Limitations: k2 is the most important key.",
    "局限：k2 导致了 q1 的输出。",
    "局限：热力图证明 k2 是最重要的。",
    "Limitations: one seed. k2 causes q1's output.",
    "## Limitations\nk2 causes q1's output.",
    "Limitations\nthe heatmap proves that k2 causes the output.",
    "局限\nk2 导致了 q1 的输出。",
])
def test_an_asserted_claim_under_a_limits_label_or_heading_is_an_overclaim(text):
    """Before: limits 1.5 and no flag (the label or heading read the claim as negated)."""
    assert _limits_and_flag(text) == (0, True)


@pytest.mark.parametrize(("text", "limits"), [
    ("- Limitations: I only ran one seed.", 1),
    ("**局限：** 只跑了一个 seed。", 1),
    ("## What the heatmap cannot show\n- that k2 causes q1's output", 1.5),
])
def test_a_bare_note_under_a_limits_label_or_heading_still_earns_the_limit(text, limits):
    assert _limits_and_flag(text) == (limits, False)


# ------------------------------------------------------------------------------------------------ 2. appositive peak
@pytest.mark.parametrize("sentence", [
    "q1 puts 0.24 on k1, the most goes to k2 (0.67).",
    "q0 puts 0.21 on k0, the largest of q0's weights is on k1 (0.58).",
    "q1 puts 0.09 on k0 (the highest weight of q1 is 0.67, on k2).",
    "q1 puts 0.24 on k1 - the top weight is k2's 0.67.",
    "q1 对 k0 的权重是 0.09，最大的是 k2（0.67）。",
])
def test_a_peak_word_opening_a_clause_about_another_key_flags_no_misreading(sentence):
    """Before: a 'figure' flag quoting the correct value (the peak word was read as the peak of the cell just read)."""
    assert "figure" not in kinds(_graded(sentence))


@pytest.mark.parametrize("text", [
    "Rows are queries q0, q1 and columns are keys k0-k2; each row sums to 1.\nq0 puts 0.21 on k0, the largest of q0's "
    "weights goes to k1 (0.58).\nq1 puts 0.09 on k0, the most goes to k2 (0.67).\nA high weight is not a causal effect.",
    "行是 query（q0、q1），列是 key（k0-k2），每行和为 1。\nq0 对 k0 的权重是 0.21，最大的是 k1（0.58）。\n"
    "q1 对 k0 的权重是 0.09，最大的是 k2（0.67）。\n权重高不代表因果。",
])
def test_an_honest_audit_reading_values_then_the_peak_keeps_its_points(text):
    """Before: 2.0 with figure_reading 0 and limits 0 (main: 5.5 en, 6.25 zh)."""
    r = _grade(text + "\n")
    assert "figure" not in kinds(r) and items(r)["figure_reading"]["points"] == 2


@pytest.mark.parametrize("sentence", ["q1 给 k2 0.67，是它最大的权重。", "q1 gives k2 0.67, its largest weight."])
def test_a_double_object_value_with_an_appositive_peak_reads_the_peak(sentence):
    """Before: figure_reading 1 (q1 给 k2 0.67 was read as no cell)."""
    r = _graded(sentence)
    assert items(r)["figure_reading"]["points"] == 2 and "figure" not in kinds(r)


def test_a_double_object_value_that_is_wrong_is_a_misreading():
    assert "figure" in kinds(_graded("q1 给 k2 0.33，是它最大的权重。"))


# ------------------------------------------------------------------------------------------------ 3. contrast
@pytest.mark.parametrize("sentence", [
    "Reading the weights needs no ablation, but whether k2 causes the output does.",
    "读权重不需要做消融，但要判断 k2 是否导致输出就需要消融。",
    "看出 q1 最关注 k2 不需要消融，但说 k2 导致了输出需要消融。",
    "k2 是否重要需要做消融，而画热力图不需要消融。",
    "The parity check needs no ablation; the causal question does.",
    "It doesn't take an ablation to read the weights; it takes one to say what causes the output.",
])
def test_a_contrast_after_a_denied_need_is_the_caveat_and_no_overclaim(sentence):
    """Before: an overclaim (the no-need pattern reached past 'but' / 而), or limits 0 (the ellipsis was no caveat)."""
    limits, flagged = _limits_and_flag(sentence)
    assert limits > 0 and not flagged


def test_a_contrast_ends_the_reach_but_a_claim_in_one_clause_is_still_flagged():
    assert _limits_and_flag("Whether k2 matters needs no ablation, but the parity check does.") == (0, True)


# ------------------------------------------------------------------------------------------------ 4. only one seed
@pytest.mark.parametrize("sentence", [
    "I only ran one seed, and the result holds for every input.",
    "只跑了一个 seed，结论可以推广到所有输入。",
    "Only one seed was needed because attention is the same for all inputs.",
    "Just one example is enough to show that k2 always matters.",
    "I ran five seeds, not only one seed, and the pattern held on all of them.",
    "The mask check used only one input row, which is fine for a parity check.",
])
def test_only_one_seed_next_to_a_generalisation_or_denied_states_no_limit(sentence):
    """Before: limits 1 (the generality limit), a false 'you state what the heatmap cannot prove'."""
    assert _limits_and_flag(sentence)[0] == 0


@pytest.mark.parametrize("sentence", ["I only tried this one example, so I cannot generalise.", "我只用了一个随机种子。"])
def test_only_one_seed_with_a_denied_generalisation_still_states_the_limit(sentence):
    assert _limits_and_flag(sentence)[0] == 1


# ------------------------------------------------------------------------------------------------ 5. narrow zh wrap
_ZH = ("热力图里每一行是一个查询，每一列是一个键，每行的权重之和都是一，这说明softmax是按行做的。"
       "第二个查询在第三个键上的权重最大，约为零点六七，第一个查询最关注第二个键，约零点五八。"
       "需要注意的是，注意力权重高并不意味着这个键对输出有因果作用，要想知道因果关系必须做干预实验。"
       "同样，权重大也不能说明这个键是重要的特征。另外我们只看了一个很小的例子，结论不一定能推广到别的输入上。")


@pytest.mark.parametrize("width", [21, 24, 26])
def test_a_zh_paragraph_wrapped_below_30_characters_reads_as_unwrapped(width):
    """Before: 26 characters a line scored 7 (figure_reading 1), unwrapped 9."""
    wrapped = "\n".join(_ZH[i:i + width] for i in range(0, len(_ZH), width))
    assert _grade(wrapped + "\n")["score"] == _grade(_ZH + "\n")["score"]


def test_a_zh_caveat_cut_by_a_wrap_is_one_line():
    from rubric.audit.text import _lines
    text = ("我的热力图中行是 query，列是 key，每一行加起来等于 1。q0 最关注 k1，权重是 0.58；q1 最关注 k2，权重是 0.67。"
            "但是热力图不能证明 k2\n导致了 q1 的输出，只有做消融实验才能知道。")
    assert len(_lines(text)) == 1


@pytest.mark.parametrize("text", ["只跑了一个 seed\n权重高不代表重要", "行是 query 列是 key\n热力图不能证明因果"])
def test_short_zh_notes_one_a_line_are_not_joined(text):
    from rubric.audit.text import _lines
    assert len(_lines(text)) == 2


# ------------------------------------------------------------------------------------------------ 6. certainty forms
@pytest.mark.parametrize("sentence", [
    "k2 is, with certainty, the cause of q1's output.",
    "k2 is, beyond question, the cause of q1's output.",
    "k2, no question, causes q1's output.",
    "k2 is, in all likelihood, the cause of q1's output.",
    "k2，一定，是 q1 输出的原因。",
])
def test_a_certainty_in_commas_asserts_the_claim(sentence):
    """Before: limits 0 and no flag."""
    assert _limits_and_flag(sentence)[1] is True


def test_not_certain_in_zh_is_no_assertion():
    assert _limits_and_flag("k2 不一定是 q1 输出的原因，热力图说明不了因果。") == (1.5, False)
