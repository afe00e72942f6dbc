"""Round 25, read on the result page: a reason shared by several concepts of an audit item is said once.

Five bare caveat bullets (tests/audit/gaming/bare_caveat_bullets_*.md) gave the limits item a feedback that
repeated the whole 'bare' explanation (two sentences and an example) four times, once per caveat: about 900
characters of the same words in one table cell on a 360 px phone. Now the reason is written once and names
every caveat it is given for, in en and zh alike."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import AUDITS, EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

GAMING = AUDITS.parents[1] / "audit" / "gaming"
FIGURE = make_heatmap()


def limits_of(text: str, checklist) -> dict:
    return items(grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS))["limits"]


@pytest.mark.parametrize("name", ["bare_caveat_bullets_en.md", "bare_caveat_bullets_zh.md"])
def test_a_reason_shared_by_several_caveats_is_written_once_naming_each(name, checklist):
    it = limits_of((GAMING / name).read_text(encoding="utf-8"), checklist)
    en, zh = it["feedback"]["en"], it["feedback"]["zh"]
    assert en.count("only a keyword with its negation") == 1, en
    assert zh.count("只有一个关键词加否定") == 1, zh
    for caveat_en, caveat_zh in (("not a causal effect", "不是因果效应"), ("not feature importance", "不是 feature importance"),
                                 ("not the true mechanism", "不是真实机制"), ("does not generalise", "不能推广")):
        # round 26: a bare caveat that earned half its credit is listed as partly credited, one past the cap as not
        assert caveat_en in en.split("Partly credited:")[1] and caveat_zh in zh.split("部分得分：")[1]


def test_caveats_with_different_reasons_keep_a_reason_each(checklist):
    text = "## Limits\n- not causal\n\nThe weights are not feature importance: a high weight on k2 does not " \
           "make k2 important to the prediction.\n"
    en = limits_of(text, checklist)["feedback"]["en"].split("Partly credited:")[1]     # round 26: then "Not credited:"
    assert en.count("only a keyword with its negation") == 1 and en.count("not found") == 1
    assert en.index("not a causal effect") < en.index("only a keyword") < en.index("not the true mechanism")


# round 30: a text about another figure gives 'other_figure' only to the concepts it states (not to every concept of
# every item, as values_without_cells_zh.md alone did): these two lines state experiments B and C
B_AND_C = ("\n实验 B 中 padding key 的权重是 0.0000，有效 key 的行和仍为 1.0000。\n"
           "实验 C 固定 context，用 1、4、16 个 query，输出形状分别是 (1, 8)、(4, 8)、(16, 8)。\n")


def test_labels_that_hold_commas_themselves_stay_apart(checklist):
    """values_without_cells_zh.md and experiments B and C: both concepts share 'other_figure'; the experiments'
    labels hold commas and 、 ("B: padding keys get weight 0, rows still sum to 1", 实验 B：padding key 权重为 0、行和仍为 1)."""
    r = grade_audit((GAMING / "values_without_cells_zh.md").read_text(encoding="utf-8") + B_AND_C, FIGURE, MEASURED_OK,
                    checklist, weights=EXAMPLE_WEIGHTS)
    fb = items(r)["experiments"]["feedback"]
    assert "rows still sum to 1; C:" in fb["en"], fb["en"]
    assert "行和仍为 1；实验 C" in fb["zh"], fb["zh"]
