"""Issue 15: the audit score rewards evidence, not vocabulary.

Scoped negation in both languages, intensifiers that are not negations, hedged overclaims, observed
results for the experiments, copied handout text, numbers attached to the metric they follow, LaTeX and
Unicode math, terse notes, the reason given when an item is not credited, and claims checked against the
student's own test results."""

from __future__ import annotations

import pytest

from rubric.audit import DEFAULT_CHECKLIST_PATH, grade_audit
from tests.audit.helpers import items, kinds


def points(text: str, item: str, checklist, measured=None, **kw) -> float:
    return items(grade_audit(text, None, measured or {}, checklist, **kw))[item]["points"]


# ------------------------------------------------------------------------------------- scoped negation

@pytest.mark.parametrize("negated, plain", [
    ("Rows are not queries.", "Rows are queries."),
    ("行不是 query。", "行是 query。"),
    ("Rows do not sum to 1.", "Rows sum to 1."),
    ("行和不为 1。", "行和为 1。"),
    ("Masked keys are not 0.", "Masked keys are 0."),
    ("mask 的位置不是 0。", "mask 的位置是 0。"),
])
def test_a_negated_statement_earns_nothing_where_the_plain_one_earns(negated, plain, checklist):
    assert points(plain, "figure_reading", checklist) > 0
    r = grade_audit(negated, None, {}, checklist)
    assert items(r)["figure_reading"]["points"] == 0
    assert "stated in the negative" in items(r)["figure_reading"]["feedback"]["en"]
    assert "否定" in items(r)["figure_reading"]["feedback"]["zh"]


@pytest.mark.parametrize("text", [
    "不用怀疑图证明了因果与重要性。",
    "No doubt it proves causality and importance.",
    "没错，高权重就是 feature importance。",
    "Without doubt the heatmap shows the true mechanism.",
    "毫无疑问，k2 导致了输出。",
])
def test_intensifiers_are_not_negations(text, checklist):
    r = grade_audit(text, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0
    assert "overclaim" in kinds(r)


@pytest.mark.parametrize("text", [
    "Causality cannot be inferred from this heatmap.",
    "因果关系无法从这张图得出。",
    "It does not prove causality.",
    "这张图不能证明因果。",
])
def test_negation_governs_its_predicate_before_or_after_a_short_subject(text, checklist):
    r = grade_audit(text, None, {}, checklist)
    assert items(r)["limits"]["points"] > 0 and "overclaim" not in kinds(r)


def test_a_negation_in_another_clause_does_not_excuse_an_overclaim(checklist):
    r = grade_audit("The weights are not uniform, which proves that k2 causes the output.", None, {}, checklist)
    assert kinds(r) == ["overclaim"] and items(r)["limits"]["points"] == 0


def test_a_52_character_text_of_false_statements_earns_nothing(checklist, heatmap_png):
    text = "行对应 key，列对应 query，每列和为 1，mask 位置权重为 1，图证明因果。"
    assert len(text) <= 52
    r = grade_audit(text, None, {}, checklist)
    assert r["score"] == 0
    assert grade_audit(text + "\n行不是 query。\n行和不为 1。", None, {}, checklist)["score"] == 0


@pytest.mark.parametrize("hedged, plain", [
    ("k2 is probably the most important key for the output.", "k2 is the most important key for the output."),
    ("k2 可能是第二个 query 最重要的 key。", "k2 是第二个 query 最重要的 key。"),
])
def test_a_hedged_overclaim_is_still_an_overclaim_at_half_the_penalty(hedged, plain, checklist):
    base = ("Each row is one query and each column is one key. Every row sums to 1. "
            "A masked key is 0 in every row.\n")
    full = grade_audit(base, None, {}, checklist)["score"]
    r_hedged = grade_audit(base + hedged, None, {}, checklist)
    r_plain = grade_audit(base + plain, None, {}, checklist)
    assert kinds(r_hedged) == ["overclaim"] and kinds(r_plain) == ["overclaim"]
    assert r_hedged["score"] == full - 1 and r_plain["score"] == full - 2
    assert "hedged" in r_hedged["flags"][0]["message"]["en"]


# ------------------------------------------------------------------------------------- evidence

@pytest.mark.parametrize("instruction, observed", [
    ("实验 A 比较了有无 1/sqrt(d_k) 的 attention entropy。",
     "实验 A：不除以 sqrt(d_k) 时熵从 1.05 降到 0.12。"),
    ("Experiment A compared the attention entropy with and without the scale.",
     "Experiment A: without the scale the entropy dropped from 1.05 to 0.12."),
    ("实验 B 检查 padding 位置的权重是否为 0。",
     "实验 B：加了 padding key 之后，padding 位置权重为 0，第一个样本输出不变。"),
    ("Experiment C used 1, 4 and 16 queries.",
     "Experiment C: with 1, 4 and 16 queries the output shapes were (2, 1, 8), (2, 4, 8), (2, 16, 8)."),
    ("实验 c：分别用 1、4、16 个 query。", "实验 c：分别用 1、4、16 个 query，输出只沿 query 轴变化。"),
])
def test_an_experiment_counts_only_with_an_observed_result(instruction, observed, checklist):
    r = grade_audit(instruction, None, {}, checklist)
    assert items(r)["experiments"]["points"] == 0
    assert "no observed result" in items(r)["experiments"]["feedback"]["en"]
    assert "没有观察到的结果" in items(r)["experiments"]["feedback"]["zh"]
    assert points(observed, "experiments", checklist) == 1


def test_the_handout_is_read_from_inside_the_repository(checklist):
    assert checklist.handout is not None
    for name in checklist.handout.files:
        path = (DEFAULT_CHECKLIST_PATH.parent / name).resolve()
        assert path.is_file() and DEFAULT_CHECKLIST_PATH.parent in path.parents


@pytest.mark.parametrize("copied", [
    "每个 query 得到一行权重；一行描述「这个 query 如何分配它对所有 key 的读取预算」。",
    "Attention 的输出依赖其他位置，但这不自动等于因果解释、feature importance 或真实机制发现。",
    "实验 A：d_k 从 8 增到 128 时，比较有无 1/sqrt(d_k) 的 attention entropy；无 scale 的 logits 会变大，softmax 过度尖锐。",
])
def test_a_sentence_copied_from_the_handout_earns_nothing_and_is_flagged(copied, checklist):
    r = grade_audit(copied, None, {}, checklist)
    assert r["score"] == 0
    assert kinds(r) == ["copied"]
    assert "handout" in r["flags"][0]["message"]["en"] and "讲义" in r["flags"][0]["message"]["zh"]


def test_own_sentences_that_name_the_reference_function_are_not_copies(checklist):
    text = ("我在 torch.manual_seed(0) 下和 torch.nn.functional.scaled_dot_product_attention 比较，"
            "max_abs_error 为 2.4e-7。")
    r = grade_audit(text, None, {"max_abs_error": 2.5e-7}, checklist)
    assert "copied" not in kinds(r) and items(r)["parity"]["points"] > 0


def test_copied_concepts_say_why_they_earn_nothing(checklist):
    r = grade_audit("权重首先是模型内部的读取系数。但这不自动等于因果解释、feature importance 或真实机制发现。",
                    None, {}, checklist)
    assert "copied from the handout" in items(r)["limits"]["feedback"]["en"]


# ------------------------------------------------------------------------------------- numbers

def test_a_number_belongs_to_the_metric_it_follows(checklist):
    text = "Rows sum to 1 (0.330+0.670), and row_sum_error = 1.2e-7."
    r = grade_audit(text, None, {"row_sum_error": 1.1e-7}, checklist)
    assert r["flags"] == []
    r = grade_audit("Rows sum to 1 (0.330+0.670).", None, {"row_sum_error": 1.1e-7}, checklist)
    assert r["flags"] == [] and items(r)["figure_reading"]["points"] > 0


def test_an_honest_value_from_another_seed_is_not_a_contradiction(checklist):
    text = "With seed 1, max_abs_error = 2.1e-6 against the reference implementation."
    r = grade_audit(text, None, {"max_abs_error": 0.0}, checklist)
    assert r["flags"] == []
    assert items(r)["parity"]["points"] > 0
    assert "contradict" not in items(r)["parity"]["feedback"]["en"]


@pytest.mark.parametrize("text, item", [
    ("The weights satisfy $\\sum_j A_{ij} = 1$ for every query.", "figure_reading"),
    ("权重满足 $\\sum_j A_{ij}=1$。", "figure_reading"),
    ("After setting the score of k2 to $-\\infty$, every query gives k2 a weight of 0.", "parity"),
    ("把 k2 的 score 设为 −∞ 后，所有 query 对 k2 的权重都为 0。", "parity"),
])
def test_latex_and_unicode_math_are_read(text, item, checklist):
    assert points(text, item, checklist) > 0


def test_a_bound_written_with_unicode_le_is_read(checklist):
    r = grade_audit("max_abs_error ≤ 3e-7", None, {"max_abs_error": 2e-5}, checklist)
    assert kinds(r) == ["contradiction"]


# ------------------------------------------------------------------------------------- terse notes

@pytest.mark.parametrize("note, item", [
    ("行 = query，列 = key", "figure_reading"),
    ("rows = queries, cols = keys", "figure_reading"),
    ("Not causal.", "limits"),
    ("不是因果。", "limits"),
])
def test_terse_notes_count(note, item, checklist):
    assert points(note, item, checklist) > 0


def test_a_bare_keyword_is_too_short_and_says_so(checklist):
    r = grade_audit("- 行\n- 因果", None, {}, checklist)
    assert r["score"] == 0


def test_a_keyword_list_earns_nothing_and_says_so(checklist):
    r = grade_audit("row query column key sums to 1 masked 0 reading budget", None, {}, checklist)
    assert items(r)["figure_reading"]["points"] == 0
    assert "list of keywords" in items(r)["figure_reading"]["feedback"]["en"]
    assert "堆砌" in items(r)["figure_reading"]["feedback"]["zh"]


# ------------------------------------------------------------------------------------- the student's tests

CLAIM = "把 k1 设为 -inf 后，所有 query 对 k1 的权重都变成 0，说明 mask 是在 softmax 之前加上的。"


def test_a_claim_refuted_by_the_students_own_failing_test_is_flagged(checklist):
    tests = [{"id": "test_blocked_key_gets_zero_weight", "outcome": "failed"},
             {"id": "test_row_sums_are_one", "outcome": "passed"}]
    r = grade_audit(CLAIM, None, {}, checklist, tests=tests)
    assert kinds(r) == ["claim_vs_tests"]
    assert "test_blocked_key_gets_zero_weight" in r["flags"][0]["message"]["en"]
    assert "softmax" in r["flags"][0]["message"]["zh"]


def test_a_claim_the_tests_support_or_no_test_results_is_not_flagged(checklist):
    assert grade_audit(CLAIM, None, {}, checklist,
                       tests={"test_blocked_key_gets_zero_weight": "passed"})["flags"] == []
    assert grade_audit(CLAIM, None, {}, checklist)["flags"] == []


def test_an_english_mask_before_softmax_claim_is_checked_too(checklist):
    r = grade_audit("The mask is added to the scores before the softmax.", None, {}, checklist,
                    tests={"test_additive_mask_parity": "failed"})
    assert kinds(r) == ["claim_vs_tests"]


# ------------------------------------------------------------------------------------- PDF text

def test_hard_wrapped_lines_from_a_pdf_are_read_as_whole_sentences(checklist):
    wrapped = ("这张图是手算例子的 weights[0, 0]。图中每一行对应一个 query，每一列对应\n"
               "一个 key，两行的和都是 1。这张图不能证明因果，k2 的权重高并不意味着 k2 导致\n"
               "了输出；高权重也不等于 feature importance。")
    one_line = wrapped.replace("\n", "")
    r_wrapped = grade_audit(wrapped, None, {}, checklist)
    assert r_wrapped["score"] == grade_audit(one_line, None, {}, checklist)["score"]
    assert items(r_wrapped)["limits"]["points"] == 3


def test_a_negation_between_commas_governs_only_its_own_clause(checklist):
    assert points("Each row, not each column, sums to 1.", "figure_reading", checklist) > 0
    assert points("Each row does not sum to 1.", "figure_reading", checklist) == 0
