"""Audit red-team round 13: audits made of false statements scored 13.5/15 and honest ones lost points.

What a sentence states, not which words it holds: assertive idioms built on a negation word ("nothing
less than", 非…莫属) are no caveats; the heatmap's layout is rows = queries and each ROW sums to 1
(handout: row_sums = weights.sum(dim=-1); dim=-2 is the bug), so a clause that maps it the other way
earns nothing; 0.5 is no zero and 0.0000 is one; a number is an experiment's result only next to what
the experiment measures; the grader's own feedback pasted back earns nothing; mechanical facts ("the
mask causes an exact zero weight") are no overclaims; a verdict after an attribution denies it, and a
heading that reports critics opens no limits section; experiment B's own statement is no keyword list;
a Big5 audit is read, and a traditional audit may write 列 for a row as Taiwan does."""

from __future__ import annotations

import re
from pathlib import Path

import opencc
import pytest
import yaml

from grading.inputs import validate_audit
from rubric.audit import DEFAULT_CHECKLIST_PATH, grade_audit
from rubric.audit.checklist import Checklist
from tests.audit.helpers import MEASURED_OK, items, kinds

HERE = Path(__file__).resolve().parent
GAMING = HERE / "gaming"
ALL_FALSE = sorted(GAMING.glob("all_false_*"))


def points(text: str, item: str, checklist, measured=None) -> float:
    return items(grade_audit(text, None, measured or {}, checklist))[item]["points"]


# ------------------------------------------------------------------------ all-false audits

def _unrefutable_max(checklist) -> float:
    """The most an all-false audit can earn by design. The figure item is graded on the image alone
    (the real heatmap earns it whatever the text says), and a fabricated value for each metric that
    agrees with the grader's pass/fail ("max_abs_error = 3e-9" on code measured at 2.6e-7) cannot be
    told from an honest one on another seed: one credit per metric. Everything else in a false audit
    (layout, limits, experiments) is refutable and must earn nothing."""
    figure = sum(it.weight for it in checklist.items if it.kind == "figure")
    metrics = sum(c.credit for it in checklist.items for c in it.concepts if c.kind == "metric")
    return figure + metrics


def test_the_all_false_corpus_covers_both_languages():
    text = " ".join(p.read_text(encoding="utf-8") for p in ALL_FALSE)
    assert len(ALL_FALSE) >= 4 and re.search(r"[\u4e00-\u9fff]", text) and re.search(r"\bthe\b", text)


@pytest.mark.parametrize("path", ALL_FALSE, ids=lambda p: p.name)
def test_an_audit_of_false_statements_earns_at_most_the_figure_and_unrefutable_numbers(path, heatmap_png,
                                                                                        checklist):
    assert _unrefutable_max(checklist) == 4                     # 2 (figure) + 2 metric credits, of 15
    r = grade_audit(path.read_text(encoding="utf-8"), heatmap_png, MEASURED_OK, checklist)
    assert r["score"] <= _unrefutable_max(checklist), [(it["id"], it["points"]) for it in r["items"]]
    assert items(r)["figure_reading"]["points"] == 0 and items(r)["limits"]["points"] == 0
    assert "overclaim" in kinds(r)


# --------------------------------------------------------------------- 1. assertive idioms

ASSERTIVE = [
    "The heatmap is nothing less than proof of a causal effect of k2 on the output.",
    "The bright cell is no less than proof that k2 causes the prediction.",
    "Attention weights are nothing short of a causal explanation of the model.",
    "It is no accident that k2 causes the output.",
    "k2 is no less important than the true cause of the prediction.",
    "k2 is second to none in importance for the prediction.",
    "The importance of the brightest key can hardly be overstated.",
    "热力图所揭示的因果关系非 k2 莫属。",
    "注意力权重无非就是特征重要性。",
    "权重不外乎就是因果效应。",
    "这些实验无一不说明了因果关系。",
]


@pytest.mark.parametrize("sentence", ASSERTIVE)
def test_an_assertive_idiom_built_on_a_negation_word_is_no_caveat(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0


@pytest.mark.parametrize("sentence", [
    "The heatmap is nothing less than proof that k2 causes the output.",
    "注意力权重无非就是特征重要性。",
    "The importance of the brightest key cannot be overstated.",
])
def test_an_assertive_idiom_with_a_claim_is_an_overclaim(sentence, checklist):
    assert "overclaim" in kinds(grade_audit(sentence, None, {}, checklist))


# ---------------------------------------------------------------- 1. the heatmap's layout

@pytest.mark.parametrize("sentence", [
    "In my heatmap the columns are queries and the rows are keys.",
    "Columns are queries; rows are keys.",
    "The x-axis shows the queries.",
    "Queries run along the columns.",
    "Each column sums to 1.",
    "The weights in each column add up to 1.0 because the softmax is over the queries.",
    "横轴是 query，纵轴是 key。",
    "每一列对应一个 query。",
    "每一列的权重加起来等于 1。",
    "softmax 是沿 query 轴归一化的。",
])
def test_a_clause_that_maps_queries_or_sums_to_columns_earns_no_reading_credit(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["figure_reading"]["points"] == 0
    fb = items(r)["figure_reading"]["feedback"]
    assert "opposite" in fb["en"] and "相反" in fb["zh"]


@pytest.mark.parametrize("sentence", [
    "Rows are queries and columns are keys.",
    "Each row is one query; the columns are the keys it reads.",
    "Queries are on the y-axis and keys on the x-axis.",
    "Each row sums to 1; the columns do not sum to 1.",
    "每一行是一个 query，每一列是一个 key。",
    "每一行的和为 1，列和不一定为 1。",
])
def test_the_right_layout_is_still_credited(sentence, checklist):
    assert points(sentence, "figure_reading", checklist) > 0


def test_a_budget_spread_over_the_queries_is_no_reading_budget(checklist):
    assert points("Each key distributes its reading budget across the queries.", "figure_reading", checklist) == 0
    assert points("Each query distributes its reading budget across the keys.", "figure_reading", checklist) > 0


# -------------------------------------------------------------------- 1, 7. zero is zero

@pytest.mark.parametrize("value", ["0.5", "0.05", "1e-3", "0.25"])
def test_a_non_zero_weight_is_not_a_zero_weight(value, checklist):
    for text in (f"The masked key gets weight {value}.", f"被 mask 的 key 权重为 {value}。",
                 f"After -inf, every query gives that key {value}."):
        assert points(text, "figure_reading", checklist) == 0, text
        assert points(text, "parity", checklist) == 0, text


@pytest.mark.parametrize("value", ["0", "0.0", "0.0000", "0.00e+00", "0e0"])
def test_any_formatting_of_zero_is_a_zero_weight(value, checklist):
    assert points(f"The masked key gets weight {value} in every row.", "figure_reading", checklist) > 0
    assert points(f"被 mask 的 key 权重为 {value}。", "figure_reading", checklist) > 0
    assert points(f"Setting k2 to -inf gives weight {value} for every query.", "parity", checklist) > 0
    assert points(f"把 k2 设为 -inf 后，所有 query 对它的权重都是 {value}。", "parity", checklist) > 0
    assert points(f"Experiment B: the two padding keys got weight {value}.", "experiments", checklist) > 0
    assert points(f"实验 B：两个 padding key 的权重都是 {value}。", "experiments", checklist) > 0


def test_a_row_that_sums_to_one_and_a_half_does_not_sum_to_one(checklist):
    assert points("Each row sums to 1.5.", "figure_reading", checklist) == 0
    assert points("Each row sums to 1.000.", "figure_reading", checklist) > 0


# ----------------------------------------------------------- 1. numbers as experiment results

@pytest.mark.parametrize("unrelated, result", [
    ("Experiment A: the entropy is 42 at d_k = 64, see page 0.5.",
     "Experiment A: without scaling the entropy fell from 1.9 to 0.2."),
    ("实验 A：熵是 42（见第 6.2 节）。", "实验 A：不缩放时熵为 0.2，缩放后为 1.8。"),
    ("Experiment C used 1, 4 and 16 queries, as in section 6.3.",
     "Experiment C: with 1, 4 and 16 queries the output shape was (1, 8), (4, 8) and (16, 8)."),
])
def test_a_number_is_an_experiment_result_only_next_to_what_the_experiment_measures(unrelated, result, checklist):
    assert points(unrelated, "experiments", checklist) == 0
    assert points(result, "experiments", checklist) > 0


def test_experiment_b_needs_a_zero_weight_or_rows_that_still_sum_to_one(checklist):
    assert points("Experiment B: the padding keys got weight 0.5 and the rows sum to 3.", "experiments",
                  checklist) == 0
    assert points("Experiment B: the padding keys got weight 0 and the rows still sum to 1.", "experiments",
                  checklist) > 0


# ------------------------------------------------------------ 2. the grader's own feedback

def _feedback_paste(checklist: Checklist, lang: str) -> str:
    """Every "what is missing" message of the checklist and the overclaim message, as a student pastes
    them back after a first attempt."""
    parts = [it["feedback_missing"][lang] for it in checklist.source["items"] if it["kind"] == "concepts"]
    parts.append(checklist.source["overclaims"]["message"][lang].replace("{snippet}", "").replace("{penalty}", "2"))
    return "\n\n".join(parts)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("cut", [False, True], ids=["as_shown", "cut_into_sentences"])
def test_the_graders_feedback_pasted_back_earns_nothing_but_the_figure(lang, cut, heatmap_png, checklist):
    text = _feedback_paste(checklist, lang)
    if cut:                 # one statement per line does not hide the paste
        text = re.sub(r"[;；：:]\s*", ".\n", text)
    r = grade_audit(text, heatmap_png, MEASURED_OK, checklist)
    assert r["score"] == 2, [(it["id"], it["points"]) for it in r["items"]]
    copied = [f["message"] for f in r["flags"] if f["kind"] == "copied"]      # some of it is the handout's too
    assert any("feedback" in m["en"] and "反馈" in m["zh"] for m in copied)


def test_an_honest_sentence_in_the_feedbacks_own_words_is_no_copy(checklist):
    """The feedback states the facts in the plainest words: a student who writes them is not pasting."""
    r = grade_audit("## 图能说明什么\n\n每一行是一个 query，每一列是一个 key。每一行的和都是 1。", None, {}, checklist)
    assert items(r)["figure_reading"]["points"] == 2 and "copied" not in kinds(r)


def test_the_graders_words_are_the_checklist_the_rubric_and_the_checkers_own_messages(checklist):
    from rubric.audit.checklist import grader_texts

    texts = grader_texts(checklist.source, DEFAULT_CHECKLIST_PATH.parent)
    joined = "\n".join(texts)
    assert checklist.source["items"][1]["feedback_missing"]["zh"] in joined           # audit.yaml
    assert checklist.source["reasons"]["copied"]["en"] in joined
    rubric = yaml.safe_load((DEFAULT_CHECKLIST_PATH.parent / "rubric.yaml").read_text(encoding="utf-8"))
    assert rubric["tests"]["test_row_sums_are_one"]["description"]["zh"] in joined    # the rubric's tests
    assert "repeat the grader's own feedback" in joined                                # rubric/audit code
    assert "Your audit reports " in joined


# -------------------------------------------------------------------- 3. mechanical facts

@pytest.mark.parametrize("sentence", [
    "Setting a key to -inf shows that the mask causes an exact zero weight.",
    "The -inf in the mask determines the output of the softmax for that key.",
    "This shows the importance of scaling by sqrt(d_k): without it large logits saturate the softmax.",
    "The experiment demonstrates that scaling causes flatter weights and a higher entropy.",
    "屏蔽的位置导致 softmax 输出为 0。",
    "这说明缩放的重要性：不缩放时 softmax 会饱和。",
])
def test_a_true_fact_of_the_computation_is_no_overclaim(sentence, checklist):
    assert "overclaim" not in kinds(grade_audit(sentence, None, {}, checklist))


@pytest.mark.parametrize("sentence", [
    "The mask shows that k2 causes the output.",
    "The heatmap proves that the brightest key causes the prediction.",
    "High weights show that k2 is the most important feature.",
    "这张热力图证明了 k2 导致了模型的输出。",
])
def test_a_causal_claim_about_the_inputs_stays_an_overclaim(sentence, checklist):
    assert "overclaim" in kinds(grade_audit(sentence, None, {}, checklist))


# --------------------------------------------------------------- 4, 5. attributions

@pytest.mark.parametrize("text", [
    "Some say the heatmap cannot prove causality. They are wrong.",
    "Critics claim the heatmap cannot prove causality, but they are wrong.",
    "有人说热力图不能证明因果。这纯属胡说。",
    "有人认为，热力图不能证明因果，这是错的。",
])
def test_a_verdict_after_an_attribution_denies_the_caveat_it_reports(text, checklist):
    r = grade_audit(text, None, {}, checklist)
    assert items(r)["limits"]["points"] == 0 and "overclaim" in kinds(r)


@pytest.mark.parametrize("text", [
    "Some say the heatmap proves causality. That is nonsense.",
    "有人说热力图证明了因果。这纯属胡说。",
])
def test_a_verdict_after_an_attribution_of_an_overclaim_states_the_caveat(text, checklist):
    r = grade_audit(text, None, {}, checklist)
    assert items(r)["limits"]["points"] > 0 and "overclaim" not in kinds(r)


@pytest.mark.parametrize("text", [
    "Critics say the heatmap cannot prove causality, and I agree with them.",
    "Some say it is wrong to read a high weight as feature importance.",
])
def test_an_attribution_without_a_verdict_keeps_its_caveat(text, checklist):
    assert points(text, "limits", checklist) > 0


@pytest.mark.parametrize("heading", [
    "## What critics say the heatmap cannot prove",
    "## According to skeptics, what the heatmap cannot prove",
    "## 有人认为热力图不能证明的东西",
])
def test_a_heading_that_reports_others_opens_no_limits_section(heading, checklist):
    r = grade_audit(f"{heading}\n\n- The heatmap proves that k2 causes the output.\n- k2 is the most important key.\n",
                    None, {}, checklist)
    assert items(r)["limits"]["points"] == 0 and kinds(r).count("overclaim") == 2


def test_the_students_own_limits_heading_still_opens_the_section(checklist):
    r = grade_audit("## What the heatmap cannot prove\n\n- causality of k2 on the output\n- feature importance\n",
                    None, {}, checklist)
    # round 24: the bare keyword "- feature importance" earns half its 1.5 (reason "bare"); both are still caveats
    assert items(r)["limits"]["points"] == 1.5 + 0.75 and "overclaim" not in kinds(r)


def test_every_cue_group_of_the_checklist_is_read_by_the_checker(checklist):
    """audit.yaml and the code agree: each cue group compiles into a Checklist field, and each field that
    holds a phrase group is read somewhere in rubric/audit (attribution and verdict were loaded, unused)."""
    code = "\n".join(p.read_text(encoding="utf-8") for p in (HERE.parents[1] / "rubric" / "audit").glob("*.py")
                     if p.name != "checklist.py")
    field_of = {"negation_exclusions": "negation_excl", "section_negative": "section_neg",
                "section_ambiguous": "section_amb", "polarity_flip": "flip", "pass": "passed",
                "less_than": "lt_before", "greater_than": "gt_before", "threshold": "thr_before"}
    for cue in checklist.source["cues"]:
        name = field_of.get(cue, cue)
        assert hasattr(checklist, name), cue
        assert re.search(rf"\bcc\.{name}\b", code), f"cues.{cue} is compiled but never read"
    assert re.search(r"\bcc\.mechanical\b", code) and checklist.source["overclaims"]["mechanical"]


# ---------------------------------------------------------------- 6. experiment B

@pytest.mark.parametrize("sentence", [
    "In experiment B the two padding keys got weight 0 and each row still summed to 1 over the real keys.",
    "Experiment B: after adding 2 padding keys, the padded columns were exactly 0 for every query and each row "
    "still summed to 1.",
    "实验 B：加了 2 个 padding key 之后，padding 那两列的权重都是 0，每一行的和仍为 1。",
])
def test_an_honest_sentence_about_experiment_b_is_no_keyword_list(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert items(r)["experiments"]["points"] > 0
    assert "list of keywords" not in items(r)["experiments"]["feedback"]["en"]


def test_a_bare_list_of_keywords_is_still_a_keyword_list(checklist):
    r = grade_audit("row query column key sums to 1 masked 0 reading budget", None, {}, checklist)
    assert items(r)["figure_reading"]["points"] == 0


# ------------------------------------------------------------ 8. Big5 and Taiwan's 行/列

TAIWAN = "這張熱力圖中，每一列是一個 query，每一行是一個 key。每一列的權重加起來為 1，被遮罩的 key 權重為 0。"


@pytest.mark.parametrize("codec", ["big5", "cp950", "big5hkscs"])
def test_a_big5_audit_is_read_as_the_traditional_chinese_it_is(codec):
    assert validate_audit("audit.txt", TAIWAN.encode(codec)) == TAIWAN


def test_a_big5_audit_that_writes_列_for_a_row_as_taiwan_does_is_credited(checklist):
    text = validate_audit("audit.txt", TAIWAN.encode("cp950"))
    assert points(text, "figure_reading", checklist) == 3


def test_a_traditional_audit_in_mainland_usage_keeps_its_grade(checklist):
    mainland = "這張熱力圖中，每一行是一個 query，每一列是一個 key。每一行的權重加起來為 1，被遮罩的 key 權重為 0。"
    assert points(mainland, "figure_reading", checklist) == 3


def test_a_traditional_audit_is_read_in_one_usage_at_a_time(checklist):
    """列 as a row here and as a column there: whichever reading is taken, one of the two is wrong."""
    assert points("每一列是一個 key。每一列的和為 1。", "figure_reading", checklist) == 1


def test_simplified_text_keeps_mainland_usage(checklist):
    assert points("每一列是一个 query。每一列的和为 1。", "figure_reading", checklist) == 0


def test_gbk_is_still_read_as_gbk_before_big5():
    zh = "这张热力图只显示注意力权重，不能说明因果关系。每一行是一个 query，每行的权重之和为 1。"
    assert validate_audit("audit.txt", zh.encode("gbk")) == zh
    tw = opencc.OpenCC("s2tw").convert(zh)
    assert validate_audit("audit.txt", tw.encode("cp950")) == tw
