"""Specification of the written-audit checker (rubric/audit/ with rubric/attention/audit.yaml).

The lab asks for "one figure and a paragraph explaining what the figure can prove and what it cannot".
These tests pin down how audits in Chinese, English or both are scored, that attention weights read as
causality/importance are penalised while the same words used as caveats are credited, that reported
numbers are cross-checked with the grader's own measurement, and that keyword stuffing does not pay."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import MEASURED_OK, items, kinds
from tests.helpers import cpu_in_yardsticks

FIXTURE_AUDITS = ["zh_thorough.md", "en_thorough.md", "mixed.md", "overclaim_short_en.md", "overclaim_short_zh.md",
                  "stuffing.txt", "zh_claims_pass_but_fails.md", "en_honest_failure.md"]


# ------------------------------------------------------------------------------------- result shape

@pytest.mark.parametrize("name", FIXTURE_AUDITS)
def test_result_follows_the_contract(name, audit_text, heatmap_png, checklist):
    """{"score","max":15,"items":[{"id","label","found","points","max_points","feedback"}],"flags":[...]};
    the score is the sum of the item points; every text is bilingual."""
    r = grade_audit(audit_text(name), heatmap_png, MEASURED_OK, checklist)
    assert set(r) == {"score", "max", "items", "flags"}
    assert r["max"] == 15
    assert [it["id"] for it in r["items"]] == ["figure", "figure_reading", "limits", "parity", "experiments"]
    for it in r["items"]:
        assert set(it) == {"id", "label", "found", "points", "max_points", "feedback"}
        assert set(it["label"]) == set(it["feedback"]) == {"en", "zh"}
        assert 0 <= it["points"] <= it["max_points"]
        assert it["found"] == (it["points"] > 0)
    assert r["score"] == pytest.approx(sum(it["points"] for it in r["items"]), abs=0.011)
    assert 0 <= r["score"] <= 15
    for f in r["flags"]:
        assert f["kind"] in ("contradiction", "overclaim", "copied", "figure", "claim_vs_tests")
        assert set(f["message"]) == {"en", "zh"}


# ------------------------------------------------------------------------------------- fixture audits

def test_thorough_chinese_audit_with_heatmap_earns_at_least_10(audit_text, heatmap_png, checklist):
    r = grade_audit(audit_text("zh_thorough.md"), heatmap_png, MEASURED_OK, checklist)
    assert r["score"] >= 10
    assert r["flags"] == []
    assert all(it["found"] for it in r["items"])


def test_thorough_english_audit_with_heatmap_earns_at_least_10(audit_text, heatmap_png, checklist):
    r = grade_audit(audit_text("en_thorough.md"), heatmap_png, MEASURED_OK, checklist)
    assert r["score"] >= 10
    assert r["flags"] == []
    assert all(it["found"] for it in r["items"])


def test_mixed_chinese_english_audit_is_graded_like_a_single_language_one(audit_text, heatmap_png, checklist):
    r = grade_audit(audit_text("mixed.md"), heatmap_png, {"max_abs_error": 2.0e-7, "row_sum_error": 0.0}, checklist)
    assert r["score"] >= 10
    assert r["flags"] == []
    assert items(r)["limits"]["points"] >= 3


@pytest.mark.parametrize("name", ["overclaim_short_en.md", "overclaim_short_zh.md"])
def test_short_audit_reading_the_heatmap_as_causal_importance_earns_at_most_6(name, audit_text, heatmap_png,
                                                                              checklist):
    r = grade_audit(audit_text(name), heatmap_png, MEASURED_OK, checklist)
    assert r["score"] <= 6
    assert "overclaim" in kinds(r)
    assert items(r)["limits"]["points"] == 0


@pytest.mark.parametrize("name", ["zh_thorough.md", "en_thorough.md", "mixed.md"])
def test_same_audit_without_its_figure_earns_less(name, audit_text, heatmap_png, checklist):
    text = audit_text(name)
    with_fig = grade_audit(text, heatmap_png, MEASURED_OK, checklist)
    without = grade_audit(text, None, MEASURED_OK, checklist)
    assert without["score"] < with_fig["score"]
    assert items(without)["figure"]["points"] == 0 and not items(without)["figure"]["found"]
    assert "2x3" in items(without)["figure"]["feedback"]["en"]


def test_figure_that_is_not_the_labs_heatmap_earns_nothing_and_is_flagged(audit_text, heatmap_png, checklist):
    from tests.audit.helpers import make_blank, make_pie

    text = audit_text("en_thorough.md")
    s_heat = items(grade_audit(text, heatmap_png, MEASURED_OK, checklist))["figure"]["points"]
    assert s_heat == 2
    for fig, seen in ((make_pie(), "not a heatmap"), (make_blank(), "blank")):
        r = grade_audit(text, fig, MEASURED_OK, checklist)
        assert items(r)["figure"]["points"] == 0
        assert "figure" in kinds(r)
        assert seen in next(f for f in r["flags"] if f["kind"] == "figure")["message"]["en"]


def test_keyword_stuffing_earns_little(audit_text, heatmap_png, checklist):
    """A bare list of every keyword of the rubric, even with "not causal" in it, is not an audit."""
    text = audit_text("stuffing.txt")
    assert grade_audit(text, None, MEASURED_OK, checklist)["score"] <= 3
    assert grade_audit(text, heatmap_png, MEASURED_OK, checklist)["score"] <= 5
    english_only = text.splitlines()[0]
    assert grade_audit(english_only, None, MEASURED_OK, checklist)["score"] == 0


def test_one_sentence_cannot_collect_every_item(checklist):
    """Each sentence credits at most a couple of concepts, however many keywords it packs."""
    text = ("In this figure each row is a query and each column is a key, every row sums to 1, the masked key is 0, "
            "the entropy grows with scale, padding keys are 0, we used 1, 4, 16 queries, and it is not causal "
            "and not feature importance and not the mechanism.")
    assert grade_audit(text, None, {}, checklist)["score"] <= 3


def test_empty_or_missing_text_earns_only_the_figure(heatmap_png, checklist):
    for text in (None, "", "   \n "):
        r = grade_audit(text, heatmap_png, MEASURED_OK, checklist)
        assert r["score"] == 2 and r["flags"] == []
        assert "No audit text" in items(r)["limits"]["feedback"]["en"]
        assert "没有提交审计文字" in items(r)["limits"]["feedback"]["zh"]


def test_partial_coverage_gets_partial_points_and_names_what_is_missing(checklist):
    text = "这张热力图中，每一行对应一个 query，每一列对应一个 key。每一行的权重加起来都是 1，这是 softmax 沿 key 轴归一化的结果。"
    it = items(grade_audit(text, None, {}, checklist))["figure_reading"]
    assert 0 < it["points"] < it["max_points"]
    assert "Not credited" in it["feedback"]["en"] and "masked" in it["feedback"]["en"]
    assert "not found" in it["feedback"]["en"]
    assert "未得分" in it["feedback"]["zh"]


# ------------------------------------------------------------------------------------- negation awareness

CAVEATS = [
    "这张热力图不能说明因果关系，只能说明读取路由。",
    "The heatmap does not prove causality, it only shows how each query reads the keys.",
    "注意力权重并不等于 feature importance，它只是模型内部的读取系数。",
    "Attention weights cannot be read as feature importance or as a causal effect of the inputs.",
    "我们不能说，k2 是最重要的特征，因为 value 的大小也会影响输出。",
    "It would be a mistake to say that the heatmap proves key 2 causes the output.",
    "不要把颜色深浅升级成「因果重要性」，这是实验里列出的常见失败。",
    "A bright cell is not evidence that token 2 is the most important token for the prediction.",
    "权重高并不意味着该 key 对预测更重要，也不代表它导致了输出。",
    "It is wrong to read high attention as importance for this figure.",
    "ｔｈｅ　ｈｅａｔｍａｐ　ｄｏｅｓ　ｎｏｔ　ｐｒｏｖｅ　ｃａｕｓａｌｉｔｙ　ｏｆ　ａｎｙ　ｋｅｙ．",   # full-width
]

OVERCLAIMS = [
    "热力图证明了 X 是最重要的特征。",
    "热力图证明了 k2 是最重要的特征。",
    "The heatmap proves that token 2 causes the output.",
    "这张图不是随便画的，它证明了 token 2 是最重要的特征。",
    "The heatmap cannot prove causality, but it shows that key 2 is the most important feature.",
    "颜色越深说明该特征越重要，所以 k1 是最重要的特征。",
    "This shows that key 1 is the most important input for query 0.",
    "由图可见，k2 导致了模型的输出结果。",
    "Higher attention weights mean the token is more important for the prediction.",
    "因为 k1 的权重最大，所以 k1 对输出的贡献最大。",
    "The heatmap explains why the model predicts class 1 for this row.",
    "Key 2 contributes the most to the output of query 0.",
]

NEUTRAL = [
    "每一行是一个 query，每一列是一个 key，每行和为 1。",
    "This shows how each query distributes its reading budget over the keys.",
    "The figure shows how the weights are determined by the scores q·k / sqrt(d_k).",
    "mask 导致被屏蔽位置的权重变为 0，这是我们想要的。",
    "热力图能证明因果吗？不能。",
    "The heatmap might suggest that key 2 is important, but we cannot be sure.",
]


@pytest.mark.parametrize("sentence", CAVEATS)
def test_negated_causality_or_importance_counts_as_a_caveat_not_an_overclaim(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] > 0


@pytest.mark.parametrize("sentence", OVERCLAIMS)
def test_claiming_the_weights_prove_causality_or_importance_is_flagged(sentence, checklist):
    r = grade_audit(sentence, None, {}, checklist)
    assert kinds(r).count("overclaim") == 1
    msg = r["flags"][0]["message"]
    assert "feature importance" in msg["en"] and "因果" in msg["zh"]


@pytest.mark.parametrize("sentence", NEUTRAL)
def test_descriptions_questions_and_hedges_are_not_overclaims(sentence, checklist):
    assert "overclaim" not in kinds(grade_audit(sentence, None, {}, checklist))


def test_an_overclaim_costs_points_even_in_an_otherwise_thorough_audit(audit_text, heatmap_png, checklist):
    text = audit_text("en_thorough.md")
    base = grade_audit(text, heatmap_png, MEASURED_OK, checklist)
    worse = grade_audit(text + "\nOverall, the heatmap proves that key 1 is the most important feature.\n",
                        heatmap_png, MEASURED_OK, checklist)
    assert worse["score"] == pytest.approx(base["score"] - 2)
    assert kinds(worse) == ["overclaim"]
    assert "deducted" in items(worse)["limits"]["feedback"]["en"]


def test_overclaim_penalty_is_capped(checklist):
    text = "\n".join(f"The heatmap proves that key {i} is the most important feature." for i in range(10))
    r = grade_audit(text, None, {}, checklist)
    assert kinds(r).count("overclaim") == 5          # settings.max_overclaim_flags
    assert r["score"] >= 0


def test_points_under_a_cannot_prove_heading_are_caveats(checklist):
    text = ("## 这张图不能证明什么\n\n"
            "- k2 的颜色最深，k2 就导致了模型的输出结果，这种推断是站不住的\n"
            "- 权重最高的 key 是最重要的特征：这也是常见的误读\n\n"
            "This figure cannot prove the following:\n\n"
            "- that key 2 causes the output of the model for every input we could give it\n")
    r = grade_audit(text, None, {}, checklist)
    assert "overclaim" not in kinds(r)
    assert items(r)["limits"]["points"] >= 2


def test_a_can_and_cannot_heading_does_not_excuse_an_overclaim(checklist):
    text = "## 这张图能证明什么、不能证明什么\n\n热力图证明了 k2 是最重要的特征。\n"
    assert "overclaim" in kinds(grade_audit(text, None, {}, checklist))


# ------------------------------------------------------------------------------------- numbers

NUMBER_FORMATS = [
    "max_abs_error = 3.2e-7",
    "max_abs_error: 3.2E-07",
    "max_abs_error 为 3.2×10^-7",
    "max_abs_error 为 3.2 × 10⁻⁷",
    "max abs error is 3.2x10^-7",
    "max_abs_error = 0.00000032",
    "max_abs_error = $3.2 \\times 10^{-7}$",
    "最大绝对误差为 3.2×10⁻⁷",
    "ｍａｘ＿ａｂｓ＿ｅｒｒｏｒ＝３．２ｅ－７",
    "max_abs_error = 3.2 * 10**-7",
]


@pytest.mark.parametrize("fmt", NUMBER_FORMATS)
def test_reported_max_abs_error_is_read_in_common_formats(fmt, checklist):
    text = f"我用固定 seed 把自己的实现和参考实现进行了比较，{fmt}。"
    consistent = grade_audit(text, None, {"max_abs_error": 3.0e-7}, checklist)
    assert consistent["flags"] == []
    # the value (1 credit) + "fixed seed ... reference" (0.5 credit), of 3 credits for 3 points
    assert items(consistent)["parity"]["points"] == pytest.approx(1.5)
    wrong = grade_audit(text, None, {"max_abs_error": 4.1e-3}, checklist)
    assert kinds(wrong) == ["contradiction"]
    assert "4.1e-03" in wrong["flags"][0]["message"]["en"] and "4.1e-03" in wrong["flags"][0]["message"]["zh"]


def test_numbers_in_latex_and_in_pasted_code_output_are_read(checklist):
    text = ("My results for the parity check:\n\n"
            "$\\text{row\\_sum\\_error} = 1.2 \\times 10^{-7}$\n\n"
            "```\n>>> print(f\"max_abs_error: {err}\")\nmax_abs_error: 2.384185791015625e-07\n```\n")
    ok = grade_audit(text, None, {"max_abs_error": 2.4e-7, "row_sum_error": 1.1e-7}, checklist)
    assert ok["flags"] == [] and items(ok)["parity"]["points"] == 2
    bad = grade_audit(text, None, {"max_abs_error": 2.4e-7, "row_sum_error": 0.43}, checklist)
    assert kinds(bad) == ["contradiction"] and "row_sum_error" in bad["flags"][0]["message"]["en"]


def test_consistent_numbers_earn_the_parity_item(audit_text, checklist):
    r = grade_audit(audit_text("zh_thorough.md"), None, MEASURED_OK, checklist)
    assert items(r)["parity"]["points"] == 3 and r["flags"] == []


def test_report_contradicting_the_measurement_is_flagged_and_loses_the_parity_item(audit_text, heatmap_png,
                                                                                    checklist):
    text = audit_text("en_thorough.md")
    ok = grade_audit(text, heatmap_png, MEASURED_OK, checklist)
    bad = grade_audit(text, heatmap_png, {"max_abs_error": 2.3e-3, "row_sum_error": 1.1e-7}, checklist)
    assert kinds(bad) == ["contradiction"]
    assert items(bad)["parity"]["points"] == 0 and not items(bad)["parity"]["found"]
    assert "contradict" in items(bad)["parity"]["feedback"]["en"]
    assert bad["score"] == pytest.approx(ok["score"] - items(ok)["parity"]["points"])
    msg = bad["flags"][0]["message"]
    assert "max_abs_error" in msg["en"] and "2.3e-03" in msg["en"] and "1e-05" in msg["en"]
    assert "评分器" in msg["zh"]


def test_claiming_a_pass_while_the_measurement_fails_is_a_contradiction(audit_text, checklist):
    """The student says "row_sum_error 的检查也通过了" but their softmax runs over the wrong axis."""
    r = grade_audit(audit_text("zh_claims_pass_but_fails.md"), None,
                    {"max_abs_error": 0.21, "row_sum_error": 0.43}, checklist)
    assert kinds(r) == ["contradiction", "contradiction"]
    assert items(r)["parity"]["points"] == 0


def test_bound_below_threshold_contradicts_a_failing_measurement(checklist):
    text = "The parity check against the reference: max_abs_error < 1e-6 on my machine."
    assert kinds(grade_audit(text, None, {"max_abs_error": 3.0e-5}, checklist)) == ["contradiction"]
    assert grade_audit(text, None, {"max_abs_error": 4.0e-7}, checklist)["flags"] == []


def test_the_lab_threshold_after_less_than_is_not_a_measurement(checklist):
    """Copying "max_abs_error(output) < 1e-5" from the handout reports nothing, and contradicts nothing."""
    for text in ("max_abs_error(output) < 1e-5", "结果：max_abs_error(output) < 1e-5，row_sum_error < 1e-6，全部通过。"):
        r = grade_audit(text, None, {"max_abs_error": 3.0e-5, "row_sum_error": 1e-7}, checklist)
        assert items(r)["parity"]["points"] == 0 and r["flags"] == []
        assert "a threshold is not a measurement" in items(r)["parity"]["feedback"]["en"]


def test_honest_report_of_a_failure_is_not_a_contradiction(audit_text, checklist):
    r = grade_audit(audit_text("en_honest_failure.md"), None, {"max_abs_error": 2.3e-3, "row_sum_error": 0.41},
                    checklist)
    assert r["flags"] == []
    assert items(r)["parity"]["points"] > 0


@pytest.mark.parametrize("reported, measured, contradiction", [
    ("2.4e-7", 2.6e-7, False),
    ("5.96e-8", 0.0, False),            # both at float32 noise level
    ("2.1e-6", 0.0, False),             # another seed: a different value, both pass
    ("1e-3", 2.0e-7, False),            # reports a failure the grader did not reproduce: honest, not wrong
    ("2.0e-7", 4.0e-6, False),          # 20x apart, both pass the 1e-5 threshold
    ("9e-6", 2.0e-5, True),             # reports a pass, the measurement fails the 1e-5 threshold
    ("2.0e-5", 3.0e-5, False),          # both fail
])
def test_a_contradiction_is_a_pass_fail_disagreement(reported, measured, contradiction, checklist):
    text = f"Compared with the reference implementation, max_abs_error = {reported}."
    r = grade_audit(text, None, {"max_abs_error": measured}, checklist)
    assert (kinds(r) == ["contradiction"]) is contradiction
    assert items(r)["parity"]["points"] > 0 or contradiction


def test_threshold_quoted_next_to_the_value_is_not_taken_as_the_value(checklist):
    text = "The threshold is 1e-5 and my max_abs_error = 2.5e-7 for float32."
    r = grade_audit(text, None, {"max_abs_error": 2.4e-7}, checklist)
    assert r["flags"] == []


def test_several_runs_are_consistent_if_one_matches(checklist):
    text = "max_abs_error 在 float32 下为 2.4e-7，在 float64 下为 3e-16。"
    assert grade_audit(text, None, {"max_abs_error": 2.5e-7}, checklist)["flags"] == []


def test_no_measurement_means_no_cross_check(audit_text, checklist):
    for measured in ({}, None, {"max_abs_error": None, "row_sum_error": "n/a"}):
        assert grade_audit(audit_text("en_thorough.md"), None, measured, checklist)["flags"] == []


def test_nan_measurement_fails_and_contradicts_a_claimed_pass(checklist):
    r = grade_audit("max_abs_error = 2.4e-7, passed.", None, {"max_abs_error": float("nan")}, checklist)
    assert kinds(r) == ["contradiction"] and "NaN/inf" in r["flags"][0]["message"]["en"]


# ------------------------------------------------------------------------------------- performance

def test_deterministic(audit_text, heatmap_png, checklist):
    text = audit_text("mixed.md")
    assert grade_audit(text, heatmap_png, MEASURED_OK, checklist) == grade_audit(text, heatmap_png, MEASURED_OK,
                                                                                  checklist)


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_20kb_audit_costs_at_most_14_yardsticks_of_cpu(audit_text, heatmap_png, checklist):
    """The largest audit accepted is graded in a bounded number of yardsticks of CPU (tests/helpers.py). It took
    8.5 (68-69 ms) at round 22 (4.5-5.3 when a budget of 7 was set, 6.9-7.0 after the round-15/16 cues, 8.4-8.6
    after round 22's checks, which also made the overclaim pass 3x cheaper). On stop 40's idle host, alternated
    runs gave 11.1-11.9 (91-94 ms) for round 36's tree and from under 11 to 11.8 (88-91 ms) for stop 39's (5631e9d), which
    passed under 11 in stop 39's CI: the yardstick does not follow this host's speed for this code closely enough
    for a 10 % margin. 14 leaves room for that and fails on a 20 % slowdown."""
    text = audit_text("zh_thorough.md") + "\n" + audit_text("en_thorough.md") + "\n" + audit_text("mixed.md")
    text = (text * 5).encode()[:20 * 1024].decode("utf-8", "ignore")     # 20 KiB of mixed zh/en UTF-8
    grade_audit(text, heatmap_png, MEASURED_OK, checklist)   # warm-up (regexes compiled and cached)
    seconds, yardsticks = cpu_in_yardsticks(lambda: grade_audit(text, heatmap_png, MEASURED_OK, checklist))
    assert yardsticks < 14, f"{yardsticks:.1f} yardsticks ({seconds * 1000:.1f} ms of CPU)"


def test_pathological_input_stays_fast(checklist):
    """Long lines without punctuation, thousands of numbers and metric names: still bounded (< 0.2 s)."""
    text = ("max_abs_error row_sum_error 1e-7 " * 2000) + ("因果" * 5000) + ("a" * 20000)
    r = grade_audit(text, None, {"max_abs_error": 1e-7}, checklist)
    # CPU, best of three: a wall-clock bound failed at 0.22 s while helpers loaded the 2 cores.
    seconds, _ = cpu_in_yardsticks(lambda: grade_audit(text, None, {"max_abs_error": 1e-7}, checklist), rounds=3)
    assert seconds < 0.2, f"{seconds * 1000:.0f} ms of CPU"
    assert r["score"] <= 2            # a wall of text is not a sentence: only the numbers can count


def test_a_wall_of_text_without_punctuation_earns_no_concept_credit(audit_text, checklist):
    wall = " ".join(line.strip(" #-*.。") for line in audit_text("en_thorough.md").splitlines() if line.strip())
    wall = wall.replace(".", " ").replace(";", " ")
    assert len(wall) > 1000
    r = grade_audit(wall, None, {}, checklist)
    assert all(it["points"] == 0 for it in r["items"] if it["id"] not in ("parity",))
