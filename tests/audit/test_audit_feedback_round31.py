"""Round 31: an item that earned points repeated, for each concept it lost to a cause of the whole text (the text names
no cell of the figure, never says what it sees, opens every sentence with the same words, says the heatmap shows what
no heatmap can), the whole paragraph the figure flag already says once: "statements about attention in general earn
nothing" beside the points the item earned. Now such a concept points to the flag; an item with no points keeps the
reason in full (it is why it earned nothing)."""

from __future__ import annotations

import re

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

FIGURE = make_heatmap()
UNANCHORED = ("Attention is a weighted average of values.\n"
              "The max_abs_error check passed against the PyTorch reference.\n"
              "Attention weights cannot prove that a key causes the output, and a high weight is not feature importance.\n"
              "Setting a key's score to -inf gives it weight 0 for every query.\n")
UNREAD = "My heatmap is attached above.\n" + UNANCHORED.split("\n", 1)[1]
UNANCHORED_ZH = ("注意力是对 value 的加权平均。\n"
                 "与 PyTorch 参考实现对比，max_abs_error 通过了检查。\n"
                 "注意力权重不能证明某个 key 导致了输出，高权重也不是特征重要性。\n"
                 "把某个 key 的分数设为 -inf 后，每个 query 给它的权重都是 0。\n")
WHOLE = {"en": ("names no cell of your figure", "never says what you see in it"),
         "zh": ("没有提到你的图中的任何格子", "却没有说出你在图中看到了什么")}


@pytest.mark.parametrize("text", [UNANCHORED, UNREAD, UNANCHORED_ZH], ids=["unanchored", "unread", "unanchored zh"])
def test_an_item_that_earned_points_points_to_the_whole_text_flag_instead_of_repeating_it(text, checklist):
    r = grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    said = [f for f in r["flags"] if f["kind"] == "figure"]
    assert len(said) == 1, r["flags"]
    its = items(r)
    parity = its["parity"]
    assert 0 < parity["points"] < parity["max_points"], parity
    for lang in ("en", "zh"):
        assert not any(w in parity["feedback"][lang] for w in WHOLE[lang]), parity["feedback"][lang]
    assert 'the "figure" flag gives about your whole text' in parity["feedback"]["en"], parity["feedback"]["en"]
    assert "原因见标为「图」的提示" in parity["feedback"]["zh"], parity["feedback"]["zh"]
    # an item with no points keeps the reason it earned nothing
    limits = its["limits"]
    assert limits["points"] == 0 and any(w in limits["feedback"]["en"] for w in WHOLE["en"]), limits["feedback"]["en"]
    assert any(w in limits["feedback"]["zh"] for w in WHOLE["zh"]), limits["feedback"]["zh"]


def test_the_pointer_is_worded_in_both_languages(checklist):
    zh = checklist.reasons["whole_text"]["zh"].replace("{concept}", "")
    # (no English word: tests.grading.helpers.english_in_zh imports the grading engine, seconds for one string)
    assert not re.search(r"[A-Za-z]", zh) and "：" in zh and zh.endswith("。")
    assert "{concept}" in checklist.reasons["whole_text"]["en"]
