"""Round 32: a statement the student does not assert earns nothing (rubric/attention/audit.yaml cues.unasserted).

"The rows are queries, my friend told me. Something about rows summing to 1, I think. Masked stuff is 0, probably."
with numbers "copied from a classmate" scored 11/15 with the lab's heatmap (tests/audit/gaming/hearsay_hedged_en.md;
its zh twin with 我室友说 / 我抄同学的 / 同上 / 我猜的 7.5). A TA gives such text the figure's 2 points. Caveats
keep their credit: "the heatmap may not generalise" hedges nothing of a reading."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items

TA_SCORES = {"hearsay_hedged_en.md": 2.0, "hearsay_hedged_zh.md": 2.0}


@pytest.mark.parametrize("name", sorted(TA_SCORES))
def test_hedged_and_hearsay_audit_scores_what_a_ta_gives(name, heatmap_png, checklist):
    from tests.audit.test_audit_validation import GAMING

    r = grade_audit((GAMING / name).read_text(encoding="utf-8"), heatmap_png, MEASURED_OK, checklist,
                    weights=EXAMPLE_WEIGHTS)
    assert abs(r["score"] - TA_SCORES[name]) <= 0.5, [(it["id"], it["points"]) for it in r["items"]]


@pytest.mark.parametrize("text", [
    "Each row is a query, my friend told me.",
    "I think each row is a query.",
    "Each row is a query, probably.",
    "行是 query，列是 key，听同学说的。",
    "我猜行是 query，列是 key。",
    "行是 query，列是 key 吧。",
])
def test_a_reading_only_guessed_or_heard_earns_nothing_and_says_why(text, checklist):
    it = items(grade_audit(text, None, {}, checklist))["figure_reading"]
    assert it["points"] == 0
    assert "someone else said" in it["feedback"]["en"] and "转述别人" in it["feedback"]["zh"]


@pytest.mark.parametrize("text", ["Each row is a query.", "行是 query，列是 key。",
                                  "Each row is a query; I think the heatmap may not generalise."])
def test_the_same_reading_asserted_is_credited(text, checklist):
    assert items(grade_audit(text, None, {}, checklist))["figure_reading"]["points"] > 0


@pytest.mark.parametrize("text", [
    "The high weight on k2 is not a causal effect, and one example may not generalise.",
    "k2 的权重高不代表因果关系，一个例子也许不能推广到其他输入。",
    "I think the weights are not a causal effect, and they are not feature importance.",
])
def test_honest_caveats_keep_their_credit(text, checklist):
    assert items(grade_audit(text, None, {}, checklist))["limits"]["points"] > 0


@pytest.mark.parametrize("text, credited", [
    ("max_abs_error = 2.4e-7 (copied from a classmate).\nrow_sum_error = 1.2e-7 (same).", False),
    ("max_abs_error = 2.4e-7，这是我抄同学的。\nrow_sum_error = 1.2e-7，同上。", False),
    ("max_abs_error = 2.4e-7 (my own run).\nrow_sum_error = 1.2e-7 (same).", True),
    ("max_abs_error 大概 2.4e-7。\nrow_sum_error = 1.2e-7。", True),
])
def test_numbers_copied_from_someone_else_earn_nothing_nor_does_their_ditto(text, credited, checklist):
    r = grade_audit(text, None, MEASURED_OK, checklist)
    assert (items(r)["parity"]["points"] >= 2) is credited, items(r)["parity"]


# Round 32, finding 3: the same keyword line in en and in zh earned the per-sentence budget twice (6.5/15; a TA gives 4)
DUMP_EN = "Keywords: rows = queries, row sums = 1, masked = 0, not causal.\n"
DUMP_ZH = "关键词：行 = query，行和 = 1，mask = 0，不是因果。\n"


def test_a_keyword_line_repeated_in_the_other_language_earns_no_more_than_once(heatmap_png, checklist):
    once = grade_audit(DUMP_EN, heatmap_png, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)["score"]
    both = grade_audit(DUMP_EN + DUMP_ZH, heatmap_png, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)["score"]
    assert both <= max(once, 4.0), (once, both)


@pytest.mark.parametrize("text", [
    "I did not run scaled_dot_product_attention myself.",
    "I don't know what scaled_dot_product_attention is.",
    "我没有跑 scaled_dot_product_attention。",
    "scaled_dot_product_attention 是什么我也不清楚。",
])
def test_a_reference_the_student_did_not_run_or_does_not_know_is_no_comparison_with_it(text, checklist):
    it = items(grade_audit(text, None, {}, checklist))["parity"]
    assert it["points"] == 0, it["feedback"]["en"]


def test_a_comparison_the_student_ran_is_credited(checklist):
    assert items(grade_audit("I compared my output with scaled_dot_product_attention under a fixed seed.", None, {},
                             checklist))["parity"]["points"] > 0


def test_a_keyword_line_and_a_longer_twin_in_the_other_language_earn_no_more_than_either(heatmap_png, checklist):
    en = "Keywords: rows = queries, columns = keys, row sum 1, masked key 0, not causal, not feature importance.\n"
    zh = "关键词：行 = query，列 = key，行和为 1，被 mask 的 key 为 0，不是因果，不是特征重要性。\n"

    def score(text: str) -> float:
        return grade_audit(text, heatmap_png, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)["score"]
    assert score(en + zh) <= max(score(en), score(zh))
