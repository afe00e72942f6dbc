"""Round 38 mend of the audit rules (review RD, brief MD): honest texts lost points to round 38's new rules.

1. A removal the student ran or measured (去掉 k2 之后，q1 的输出就变了 0.3; "which I measured"; "I measured a difference
   of 0.002"), one said to be untested ("and I have not tested that"), and a result denied after its verb ("will change
   nothing", "would barely change") were flagged as counterfactual overclaims. A counterfactual is an overclaim only when
   asserted without a run or measurement (in its sentence or the next) and without an untested marker.
2. "important" about the student's own procedure ("Key 2 is very important to check", "because it is important:
   max_abs_error = ...") was an importance overclaim: a key is overclaimed only as important for an output, a query or
   the model.
4. A claim re-asserted after its denial's colon ("k2 causes q1's output. The heatmap cannot show that: k2 still causes
   q1's output.", one sentence too) was cleared by the denial: the student takes the denial back, the claim stays.
5. A next-sentence denial pointing back at a true reading ("Each row sums to 1. The heatmap alone cannot show that: I
   checked row_sum_error = 1.1e-7 in code.") took the reading's credit: only a sentence holding a claim is denied.
6. Counterfactual, importance and intent wordings round 38 missed: an imperative ("Take k2 away and q1's output falls
   apart"), an inverted condition ("Should k2 be removed", "Were k2 masked"), k2 一旦被去掉, 没有 k2，…, 如果 k2 被 mask 掉;
   "The most relevant key for q1 is k2", 对 q1 来说，最重要的 key 是 k2, "The model decides based on k2", 模型是靠 k2 做出
   决定的, "The model prefers k2", "k2 is what the model uses to make its decision".
7. A heading's digit ("## Limits (4)") let a list of denials escape the cap at half the limits: a heading reads nothing.
"""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds, make_heatmap

FIGURE = make_heatmap()
CHECKLIST = load_checklist()
OPENER_EN = "Rows are queries, columns are keys.\n"
OPENER_ZH = "行是 query，列是 key。\n"


def _grade(text: str) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, CHECKLIST, weights=EXAMPLE_WEIGHTS)


# --- 1. a removal run, measured or said untested ---------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_ZH + "去掉 k2 之后，q1 的输出就变了 0.3。\n",
    OPENER_ZH + "我把 k2 mask 掉以后，q1 的结果就不一样了（差 0.3）。\n",
    OPENER_ZH + "如果去掉 k2，输出会变，不过我还没有验证过。\n",
    OPENER_EN + "I ran the ablation: without k2, q1's output would shift by 0.3, which I measured.\n",
    OPENER_EN + "Removing k0 would barely change the output: I measured a difference of 0.002.\n",
    OPENER_EN + "Removing k2 would change the output only if its value vector differs, and I have not tested that.\n",
    OPENER_EN + "I removed k2 and re-ran: without k2 the output would be different for this input.\n",
    OPENER_EN + "Removing k2 would change q1's output.\nI measured a difference of 0.3 when I masked it.\n",
    OPENER_EN + "Removing k0 will change nothing in the output.\n",
    OPENER_EN + "Removing k0 would barely change the output.\n",
])
def test_a_removal_run_measured_untested_or_null_is_no_counterfactual_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "If I removed k2, the output would collapse.\n",
    OPENER_EN + "Without k2, q1's output would collapse, since k2 has weight 0.67.\n",
    OPENER_EN + "Removing k2 would change q1's output.\nq1 reads mostly from k2 (0.67).\n",
    OPENER_ZH + "如果去掉 k2，输出一定会崩。k2 的权重是 0.67。\n",
])
def test_a_removal_asserted_beside_a_weight_of_the_figure_stays_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


# --- 2. "important" about the student's procedure -------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "Key 2 is very important to check, because a bug in the mask would show up there first.\n",
    OPENER_EN + "I compared with the reference because it is important: max_abs_error = 2.6e-7.\n",
    OPENER_EN + "I checked the row sums because it is important that the softmax runs over the keys.\n",
    OPENER_EN + "k2 is crucial for the softmax row sum here: without its 0.67, q1's row would not add up to 1.\n",
])
def test_important_about_the_students_own_procedure_is_no_importance_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 is very important for q1.\n",
    OPENER_EN + "k2 is very important to the model.\n",
    OPENER_EN + "k2 is the most relevant key.\n",
    OPENER_EN + "q1 looks at k2 because it is important.\n",
    OPENER_EN + "q1 looks at k2 because it is important for the output.\n",
])
def test_a_key_important_for_an_output_query_or_the_model_stays_an_overclaim(text):
    assert "overclaim" in kinds(_grade(text))


# --- 4. a claim re-asserted after its denial ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show that: k2 still causes q1's output.\n",
    OPENER_EN + "k2 causes q1's output, the heatmap cannot show that: k2 still causes q1's output.\n",
    OPENER_EN + "k2 is the most important key. The figure cannot prove that: but k2 is obviously the most important key.\n",
    OPENER_ZH + "k2 导致了 q1 的输出。这一点热力图无法说明：但 k2 显然导致了 q1 的输出。\n",
])
def test_a_claim_reasserted_after_its_denials_colon_stays_an_overclaim(text):
    r = _grade(text)
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (kinds(r), items(r)["limits"]["points"])


@pytest.mark.parametrize("text", [
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show that: whether k2 matters needs an ablation.\n",
    OPENER_EN + "k2 causes q1's output. The heatmap cannot show that: a weight is how much q1 reads from k2.\n",
    OPENER_ZH + "k2 导致了 q1 的输出。这一点热力图无法说明：k2 是否导致输出需要做消融。\n",
])
def test_a_denial_whose_reason_asks_or_explains_still_denies_the_claim(text):
    r = _grade(text)
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] == 1.5, (kinds(r), items(r)["limits"]["points"])


# --- 5. a denial after a true reading -------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "plain"), [
    (OPENER_EN + "Each row sums to 1. The heatmap alone cannot show that: I checked row_sum_error = 1.1e-7 in code.\n",
     OPENER_EN + "Each row sums to 1.\n"),
    (OPENER_EN + "q1 reads mostly from k2 (0.67). The figure alone cannot prove this.\n",
     OPENER_EN + "q1 reads mostly from k2 (0.67).\n"),
])
def test_a_denial_pointing_back_at_a_true_reading_keeps_its_credit(text, plain):
    got, want = items(_grade(text))["figure_reading"]["points"], items(_grade(plain))["figure_reading"]["points"]
    assert got == want > 1, (got, want)


# --- 6. wordings round 38 missed ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    OPENER_EN + "Take k2 away and q1's output falls apart.\n",
    OPENER_EN + "Should k2 be removed, q1's output would collapse.\n",
    OPENER_EN + "Were k2 masked, the output would change completely.\n",
    OPENER_ZH + "k2 一旦被去掉，q1 的输出就会崩。\n",
    OPENER_ZH + "没有 k2，q1 的输出会完全不同。\n",
    OPENER_ZH + "如果 k2 被 mask 掉，q1 的输出一定会变。\n",
    OPENER_EN + "The most relevant key for q1 is k2.\n",
    OPENER_ZH + "对 q1 来说，最重要的 key 是 k2。\n",
    OPENER_EN + "The model decides based on k2.\n",
    OPENER_ZH + "模型是靠 k2 做出决定的。\n",
    OPENER_EN + "The model prefers k2.\n",
    OPENER_EN + "k2 is what the model uses to make its decision.\n",
])
def test_counterfactual_importance_and_intent_in_other_wordings_are_overclaims(text):
    assert "overclaim" in kinds(_grade(text))


@pytest.mark.parametrize("text", [
    OPENER_EN + "Take k2 away and check whether q1's output changes.\n",
    OPENER_EN + "Next I will remove k2 and check if the output will change.\n",
    OPENER_EN + "The most relevant key for q1 is not necessarily k2.\n",
    OPENER_ZH + "对 q1 来说，最重要的 key 是不是 k2，这张图说明不了。\n",
    OPENER_ZH + "模型是不是靠 k2 做决定，需要消融才能知道。\n",
    OPENER_ZH + "如果 k2 被 mask 掉，q1 的输出会不会变，需要做消融才能知道。\n",
])
def test_the_same_wordings_asked_denied_or_planned_are_no_overclaim(text):
    assert "overclaim" not in kinds(_grade(text))


# --- 7. a heading grounds no denial list ----------------------------------------------------------------------------

DENIALS = ("The heatmap cannot show causation. It cannot show feature importance. It cannot show the true mechanism. "
           "One small example does not generalise to other inputs.\n")


def test_a_headings_digit_does_not_lift_a_denial_lists_cap():
    plain, headed = _grade(DENIALS), _grade("## Limits (4)\n" + DENIALS)
    assert items(headed)["limits"]["points"] == items(plain)["limits"]["points"] == 2, \
        (items(headed)["limits"]["points"], items(plain)["limits"]["points"])
