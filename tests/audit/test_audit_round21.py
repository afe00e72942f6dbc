"""Audit red-team round 21: the lab's false facts as a class, and cells read the ways students write them.

1. Round 19's false facts were three denials per language ("the output does not depend on the weights"). The class is
   wider and mostly written as assertions: the softmax over the wrong axis (columns, or the whole matrix, sum to 1),
   masked or padding keys getting a small / near-zero weight instead of exactly 0, the heatmap showing gradients,
   negative weights, a zero or low weight read as an unimportant key, scaling making the weights sharper, rows read as
   keys. A caveat in a sentence stating one earned its 1.5 limits points; now it earns nothing (audit.yaml
   ``false_claims``). The same claims negated ("masked keys do not get a small weight"), warned of ("a common mistake
   is to think ..."), reported as a bug or in a conditional are true and keep the caveat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

HERE = Path(__file__).resolve().parent
FIGURE = make_heatmap()
READING = "My heatmap: rows are q0, q1 and columns k0-k2; q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\n"


def grade(text: str, checklist) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)


def limits_of(sentence: str, checklist) -> float:
    return items(grade(READING + sentence + "\n", checklist))["limits"]["points"]


# ------------------------------------------------------------------------ 1. false claims of the lab

@pytest.mark.parametrize("sentence", [
    "A high weight is not a causal effect, because softmax runs over the queries.",
    "A high weight is not a causal effect; each column sums to 1.",
    "A high weight is not a causal effect, and the whole attention matrix sums to 1.",
    "A high weight is not a causal effect, and masked keys still get a small weight.",
    "A high weight is not a causal effect, and masked keys probably get a very small weight.",   # a hedge: still false
    "A high weight is not feature importance, since the heatmap shows the gradients.",
    "A high weight is not feature importance, and weights can be negative.",
    "A high weight is not feature importance, and a zero weight means the key is irrelevant.",
    "A high weight is not a causal effect, and scaling by sqrt(d_k) makes the weights sharper.",
    "A high weight is not a causal effect, and each row is a key.",
    "高权重不是因果效应，因为 softmax 是对每一列做的。",
    "高权重不是因果效应，而且每一列的和为 1。",
    "高权重不是因果效应，被 mask 的位置权重很小。",
    "高权重不等于特征重要性，热力图显示的是梯度。",
    "高权重不等于特征重要性，权重可以是负的。",
    "高权重不等于特征重要性，权重为 0 说明这个 key 不重要。",
    "高权重不是因果效应，缩放会让权重更尖锐。",
    "高权重不是因果效应，每一行代表一个 key。",
])
def test_a_caveat_beside_a_false_claim_of_the_lab_earns_nothing(sentence, checklist):
    """Before: limits 1.5 (the caveat); after: 0, and the feedback says a false thing was said."""
    r = grade(READING + sentence + "\n", checklist)
    assert items(r)["limits"]["points"] == 0, items(r)["limits"]["feedback"]["en"]
    assert "says something false of attention" in items(r)["limits"]["feedback"]["en"]
    assert "错误说法" in items(r)["limits"]["feedback"]["zh"]


@pytest.mark.parametrize("sentence", [
    "A high weight is not a causal effect, and softmax does not run over the queries.",
    "A high weight is not a causal effect; masked keys do not get a small weight, they get exactly 0.",
    "A high weight is not a causal effect, and the heatmap does not show gradients.",
    "A high weight is not feature importance, and the weights are never negative.",
    "A high weight is not a causal effect; a common mistake is to think masked keys get a small weight.",
    "A high weight is not a causal effect; I first wrote softmax over the queries, which was a bug.",
    "A high weight is not feature importance, and a zero weight does not mean the key is irrelevant.",
    "A high weight is not a causal effect, and scaling does not make the weights sharper.",
    "If softmax ran over the queries, each column would sum to 1; a high weight is not a causal effect.",
    "A high weight is not a causal effect, and each row is a query.",
    "高权重不是因果效应，softmax 不是对每一列做的。",
    "高权重不是因果效应，被 mask 的位置权重不是很小，而是恰好为 0。",
    "高权重不等于特征重要性，热力图显示的不是梯度。",
    "高权重不等于特征重要性，权重为 0 并不说明这个 key 不重要。",
    "高权重不是因果效应，权重不会是负的。",
    "高权重不是因果效应；常见错误是以为 mask 的位置权重很小。",
])
def test_the_same_claims_denied_warned_of_or_reported_as_a_bug_keep_the_caveat(sentence, checklist):
    assert limits_of(sentence, checklist) == 1.5


# ------------------------------------------------------- 2. cells read the ways round 20 did not read

HONEST_EN = (HERE / "honest" / "en_only.md").read_text(encoding="utf-8")
PEAKS_EN = "q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67)."
HONEST_ZH = (HERE / "honest" / "short_precise_zh.md").read_text(encoding="utf-8")
PEAKS_ZH = "q0 主要读 k1（0.58），q1 主要读 k2（0.67）；"


def with_reading(reading: str) -> str:
    text = HONEST_EN.replace(PEAKS_EN, reading) if reading.isascii() else HONEST_ZH.replace(PEAKS_ZH, reading)
    assert text not in (HONEST_EN, HONEST_ZH)
    return text


# EXAMPLE_WEIGHTS: q0 [0.21, 0.58, 0.21], q1 [0.09, 0.24, 0.67]
@pytest.mark.parametrize("reading", [
    "key 0 of query 0 is 0.71 and key 1 of query 1 is 0.64.",                  # the key named before its query
    "k0 of q0 has weight 0.71 and k1 of q1 has 0.64.",
    "q0's weights are 0.71, 0.20 and 0.09; q1's are 0.10, 0.64 and 0.26.",     # a row without brackets
    "Row 0: 71%, 20%, 9%; row 1: 10%, 64%, 26%.",                              # a row of percentages
    "q0 puts most weight on the last key (0.71) and q1 on the first key (0.64).",
    "q0 的权重分别是 0.71、0.20、0.09，q1 的分别是 0.10、0.64、0.26；",
    "k0 对 q0 的权重是 0.71，k1 对 q1 的权重是 0.64；",
    "q0 的权重：71%、20%、9%；q1 的权重：10%、64%、26%；",
    "q0 主要关注第一列（0.71），q1 主要关注最后一列（0.26）；",
])
def test_another_figures_cells_in_these_forms_earn_nothing(reading, checklist):
    """Before: 14 (en) / 13 (zh) with no flag; after: 4, the text read as another figure's, as round 20's forms."""
    r = grade(with_reading(reading), checklist)
    assert r["score"] == 4, r["items"]
    assert "q0: [0.21, 0.58, 0.21]" in str(r["flags"])


@pytest.mark.parametrize("reading", [
    "key 1 of query 0 is 0.58 and key 2 of query 1 is 0.67.",
    "q0's weights are 0.21, 0.58 and 0.21; q1's are 0.09, 0.24 and 0.67.",
    "Row 0: 21%, 58%, 21%; row 1: 9%, 24%, 67%.",
    "q0 reads mostly from k1 (0.58) and q1 puts most weight on the last key (0.67).",
    "q0 的权重分别是 0.21、0.58、0.21，q1 的分别是 0.09、0.24、0.67；",
    "k1 对 q0 的权重是 0.58，k2 对 q1 的权重是 0.67；",
    "q0 主要关注 k1（0.58），q1 主要关注最后一列（0.67）；",
    "q0 reads mostly from k1 (0.58); max_abs_error 2.6e-7, 1.1e-7 and 0.3 for q1.",    # not a row of weights
])
def test_true_readings_in_these_forms_keep_their_points(reading, checklist):
    r = grade(with_reading(reading), checklist)
    assert "figure" not in [f["kind"] for f in r["flags"]], r["flags"]
    assert r["score"] >= (14 if reading.isascii() else 13), r["items"]


def test_one_false_row_without_brackets_is_flagged_and_costs_its_sentence(checklist):
    r = grade(with_reading("q0 reads mostly from k1 (0.58), and q1's weights are 0.50, 0.30 and 0.20."), checklist)
    assert [f["kind"] for f in r["flags"]].count("figure") == 1
    assert "q1: [0.09, 0.24, 0.67]" in r["flags"][0]["message"]["en"]
    assert r["score"] > 4


# ------------------------------------------------ 3. a diagonal claim is a reading of every query's peak

DIAGONAL_WEIGHTS = [[0.71, 0.20, 0.09], [0.10, 0.64, 0.26]]     # each query i peaks at key i


@pytest.mark.parametrize("sentence", [
    "The diagonal is bright, so rows sum to 1 over the keys.",
    "There is a strong diagonal and each row sums to 1.",
    "Each query puts most of its weight on the key at the same position, and every row sums to 1.",
    "对角线最亮，每一行的和都是 1。",
    "每个 query 把大部分权重放在同一位置的 key 上，每一行的和都是 1。",
])
def test_a_diagonal_the_weights_do_not_have_is_a_misreading(sentence, checklist):
    """EXAMPLE_WEIGHTS peak at k1 and k2, off the diagonal. Before: the sentence earned its row-sum concept with no
    flag; after: it earns nothing and the figure flag gives the computed rows. With weights that do peak on the
    diagonal, the same sentence keeps its points."""
    text = READING.replace("q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67)", "I plotted q0 and q1") \
        + sentence + "\n"
    off = grade(text, checklist)
    on = grade_audit(text, make_heatmap(DIAGONAL_WEIGHTS), MEASURED_OK, checklist, weights=DIAGONAL_WEIGHTS)
    assert "q0: [0.21, 0.58, 0.21]" in str(off["flags"])
    assert "figure" not in [f["kind"] for f in on["flags"]], on["flags"]
    assert items(off)["figure_reading"]["points"] < items(on)["figure_reading"]["points"]


@pytest.mark.parametrize("sentence", [
    "There is no bright diagonal: q0 peaks at k1 and q1 at k2.",
    "对角线并不亮：q0 主要看 k1，q1 主要看 k2。",
])
def test_a_denied_diagonal_is_no_reading(sentence, checklist):
    r = grade(READING + sentence + "\n", checklist)
    assert "figure" not in [f["kind"] for f in r["flags"]], r["flags"]


# ------------------------------------------------------------------------------ 4. the corpora

# Round 21's honest audits read the lab's example in the forms above (keys before queries, rows without brackets,
# percentages, full-width digits, the last key, a table) and deny or warn of the false claims. Graded with the weights
# the student's code computes, they keep every point: no misreading, no false claim.
ROUND21_HONEST = ["fullwidth_digits_zh.md", "key_first_readings_en.md", "key_first_zh.md", "mixed_bullets_zh.md",
                  "negated_false_claims_en.md", "ordinal_last_key_en.md", "percent_table_en.md",
                  "qa_readings_mixed.md", "rows_unbracketed_zh.md", "warned_misconceptions_en.md"]


@pytest.mark.parametrize("name", ROUND21_HONEST)
def test_round21_honest_audits_keep_their_points_with_the_students_weights(name, checklist):
    r = grade((HERE / "honest" / name).read_text(encoding="utf-8"), checklist)
    assert r["score"] >= 12.5, r["items"]
    assert r["flags"] == [], r["flags"]
    assert "false_fact" not in str([it["feedback"] for it in r["items"]])


@pytest.mark.parametrize("sentence", [
    "q0's entropy values were 0.45, 0.30 and 0.25 over the three runs.",    # another quantity written out as a row
    "The scores of q0 are 0.5, 0.3 and 0.2 before the softmax.",
    "q0 的输出分别是 0.5、0.3、0.2。",
    "In self-attention one often sees a bright diagonal, but mine has none.",   # a diagonal of attention maps in general
    "通常自注意力图的对角线最亮，但我的图不是这样。",
])
def test_other_quantities_and_diagonals_in_general_are_no_reading(sentence, checklist):
    """Before the guards these read as a row of weights or a diagonal of this figure and were flagged."""
    r = grade(READING + sentence + "\n", checklist)
    assert "figure" not in [f["kind"] for f in r["flags"]], r["flags"]


def test_a_failing_run_reported_of_the_students_own_softmax_is_no_false_claim(checklist):
    """fixtures/audits/en_honest_failure.md: "... because I think my softmax runs over the query axis (dim=-2) instead
    of the key axis" describes the student's buggy code, not attention."""
    sentence = ("A high weight is not a causal effect; row_sum_error is 4.3e-1 because my softmax runs over the query "
                "axis (dim=-2) instead of the key axis.")
    assert limits_of(sentence, checklist) == 1.5
