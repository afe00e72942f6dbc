"""The third red-team round of the audit checker (audit12): what a cue negates, which headings and table
columns deny, embedded questions, and claim extraction in linear time."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import MEASURED_OK, items, kinds
from tests.helpers import cpu_in_yardsticks


def _limits_and_flags(text: str, checklist) -> tuple[float, list[str]]:
    r = grade_audit(text, None, {}, checklist)
    return items(r)["limits"]["points"], kinds(r)


# ---------------------------------------------------------------------------------------- speed
@pytest.mark.parametrize("text", [
    "```\n" + "行和误差1" * 12000 + "\n```\n",
    "```\n" + "row sum error 1 " * 3750 + "\n```\n",
    "行和误差1" * 12000,
], ids=["code_line_zh", "code_line_en", "prose_line_zh"])
def test_a_60k_line_of_metric_names_and_numbers_grades_in_linear_time(text, checklist):
    """Claim extraction bisects to the next mention and number (it rescanned every number per mention),
    and a code line is read in pieces no longer than a sentence: ~2 s (~120 yardsticks) before, 4-12 now
    (the ratio moves by half over runs of the suite, hence the margin). Stop 52: round 48's retraction rules cost the
    zh prose line ~10 % (177-178 -> 193-196 ms of CPU, alternated, grade_audit alone, three rounds each), and
    its ratio ran 11.5-24.7 alone and 31.3 once inside a whole fast lane: 36 keeps room for that noise and still
    fails far below the ~120 of the quadratic reading."""
    grade_audit(text, None, MEASURED_OK, checklist)
    seconds, yardsticks = cpu_in_yardsticks(lambda: grade_audit(text, None, MEASURED_OK, checklist), rounds=3)
    assert yardsticks < 36, f"{yardsticks:.1f} yardsticks ({seconds * 1000:.1f} ms of CPU)"


def test_numbers_in_a_long_code_line_are_still_read(checklist):
    r = grade_audit("```\n" + "x = 1; " * 300 + "row_sum_error = 1.1e-7\n```\n", None, MEASURED_OK, checklist)
    assert items(r)["parity"]["points"] > 0


# --------------------------------------------------------------------------- what a cue negates
@pytest.mark.parametrize("sentence", [
    "The heatmap proves causation rather than mere correlation.",
    "Key 1 rather than key 0 is the most important feature of the input.",
    "Key 1 instead of key 0 is the most important feature of the input.",
    "热力图证明了因果而非相关。",
    "是 k1 而非 k0 对输出的贡献最大。",
    "熱力圖證明了因果而不是相關。",
])
def test_rather_than_and_er_fei_negate_what_follows_not_the_claim_before_them(sentence, checklist):
    limits, flags = _limits_and_flags(sentence, checklist)
    assert limits == 0 and "overclaim" in flags


@pytest.mark.parametrize("sentence", [
    "No other key is as important as key 1 for the output.",
    "No key contributes more to the prediction than key 1.",
    "没有哪个 key 比 k1 更重要。",
    "沒有哪個 key 比 k1 更重要。",
    "k1 的贡献无人能及。",
])
def test_a_superlative_written_with_a_negation_is_an_overclaim(sentence, checklist):
    limits, flags = _limits_and_flags(sentence, checklist)
    assert limits == 0 and "overclaim" in flags


@pytest.mark.parametrize("sentence", [
    "The causal effect of key 1 on the output cannot be overstated.",
    "The causal role of key 1 cannot be ignored.",
    "k1 对输出的因果作用不容忽视。",
    "k1 的重要性不可低估。",
    "我们不能忽视 k1 对输出的因果影响。",
    "不能排除 k1 就是最重要的特征。",
    "没有任何证据表明 k1 不是最重要的特征。",
    "There is no evidence that key 1 is not the most important feature.",
])
def test_cannot_be_ignored_and_no_evidence_that_not_are_emphasis_not_caveats(sentence, checklist):
    assert _limits_and_flags(sentence, checklist)[0] == 0


@pytest.mark.parametrize("sentence", [
    "The weights are not non-causal.",
    "The weights are not un-causal.",
    "The heatmap is far from not proving causality.",
])
def test_not_non_and_far_from_not_are_double_negations_that_assert(sentence, checklist):
    assert _limits_and_flags(sentence, checklist)[0] == 0


def test_a_single_non_or_far_from_stays_a_caveat(checklist):
    assert _limits_and_flags("A high weight is far from proving a causal effect.", checklist)[0] > 0


# ----------------------------------------------------------------- first person and polarity flips
@pytest.mark.parametrize("sentence", [
    "I don't doubt that key 1 causes the output.",
    "We never doubted that key 1 is the most important feature.",
    "I didn't deny that key 1 causes the output.",
    "我们没有否认 k1 是最重要的特征。",
    "我們沒有否認 k1 是最重要的特徵。",
])
def test_a_negated_doubt_or_denial_by_the_student_asserts_the_claim(sentence, checklist):
    limits, flags = _limits_and_flags(sentence, checklist)
    assert limits == 0 and "overclaim" in flags


@pytest.mark.parametrize("sentence", [
    "I cannot agree that the heatmap fails to show causality.",
    "我不认为热力图不能证明因果。",
    "很难说热力图不能证明因果。",
    "It is hard to argue that key 1 is not the most important key.",
])
def test_a_negated_reporting_verb_denies_the_caveat_it_reports(sentence, checklist):
    assert _limits_and_flags(sentence, checklist)[0] == 0


def test_a_negated_reporting_verb_alone_is_a_caveat(checklist):
    limits, flags = _limits_and_flags("I don't think the heatmap proves causality.", checklist)
    assert limits > 0 and "overclaim" not in flags


# ------------------------------------------------------------------- headings and table columns
@pytest.mark.parametrize("text", [
    "## Limitations: none\n\nThe heatmap proves that key 1 causes the output.\n",
    "## Myths about what the heatmap supposedly cannot prove\n\nKey 1 is the most important feature.\n",
    "## 所谓的局限\n\n热力图证明了 k1 导致了输出。\n",
    "## 局限？没有\n\nk1 是最重要的特征，颜色越深越重要。\n",
    "**What the heatmap cannot prove: nothing, it proves everything**\n\nKey 1 causes the output.\n",
    "The heatmap cannot prove anything I have not already shown:\n\n- Key 1 causes the output.\n",
])
def test_a_heading_that_says_there_is_nothing_it_cannot_prove_opens_no_cannot_prove_section(text, checklist):
    limits, flags = _limits_and_flags(text, checklist)
    assert limits == 0 and "overclaim" in flags


@pytest.mark.parametrize("header", ["Can a skeptic refute it?", "有反例吗", "Wrong?", "Counterexample?"])
def test_a_no_cell_denies_its_row_only_under_a_column_asking_whether_the_figure_proves_it(header, checklist):
    table = f"| Claim | {header} |\n|---|---|\n| Key 1 causes the output | No |\n| k1 是最重要的特征 | 否 |\n"
    limits, flags = _limits_and_flags(table, checklist)
    assert limits == 0 and flags.count("overclaim") == 2
    honest = table.replace(header, "Can the heatmap prove it?")
    limits, flags = _limits_and_flags(honest, checklist)
    assert limits > 0 and "overclaim" not in flags


# ------------------------------------------------------------------------------ embedded questions
@pytest.mark.parametrize("sentence", [
    "Only an ablation could tell us whether key 1 causes the output.",
    "Whether key 1 drives the prediction is something this plot cannot answer.",
    "To find out if key 1 matters most, one would have to remove it and rerun the model.",
    "要判断 k1 是否导致了输出，必须做消融实验。",
    "k1 是否决定了模型的输出，这张图回答不了。",
    "至於 k1 是否導致了輸出，這張圖看不出來。",
    "要證明因果，得做介入實驗，光看權重是不夠的。",
])
def test_an_embedded_question_asserts_no_overclaim(sentence, checklist):
    assert "overclaim" not in _limits_and_flags(sentence, checklist)[1]


def test_cannot_deny_is_not_an_embedded_question(checklist):
    assert "overclaim" in _limits_and_flags("不能否认热力图证明了因果关系。", checklist)[1]


@pytest.mark.parametrize("sentence", [
    "The heatmap is silent on causality.",
    "权重高低和因果是两码事。",
    "Causal effect is a separate question that requires ablation.",
])
def test_more_ways_of_saying_the_figure_cannot_show_it_are_caveats(sentence, checklist):
    limits, flags = _limits_and_flags(sentence, checklist)
    assert limits > 0 and "overclaim" not in flags


@pytest.mark.parametrize("sentence", [
    "漂亮的热力图不能取代 parity 测试。",
    "熱力圖好看不代表實作是正確的。",
])
def test_qudai_and_taiwan_shizuo_name_what_the_figure_cannot_replace(sentence, checklist):
    assert _limits_and_flags(sentence, checklist)[0] > 0


# ---------------------------------------------------------------------------------- row sums
@pytest.mark.parametrize("sentence", ["每一行的权重加总为 1。", "每一行的權重加總為 1。"])
def test_jiazong_is_a_word_for_sum_in_both_scripts(sentence, checklist):
    assert items(grade_audit(sentence, None, {}, checklist))["figure_reading"]["points"] > 0
