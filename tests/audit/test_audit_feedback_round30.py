"""Round 30: each concept's reason says what was seen of THAT concept, never a cause checked for another one.

A text about another figure told every missed concept "your text describes another figure", the -inf check it never
mentioned too (round 25 pinned it: tests/audit/test_audit_feedback_round25.py). Now a concept the text states where it
would earn is told the figure is another one; one stated in a sentence that reads a cell the figure does not show is
told so; one stated only where it earns nothing anyway (negated, copied) keeps that reason; one never mentioned is not
found. A cause of the whole text is said once, as a flag. Same class: a colour reason that describes "your heatmap"
when no figure was uploaded, or when its colours could not be read. Half-copied sentences keep their own half."""

from __future__ import annotations

from rubric.audit import grade_audit
from tests.audit.helpers import AUDITS, EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

GAMING = AUDITS.parents[1] / "audit" / "gaming"
FIGURE = make_heatmap()
OTHER_EN, OTHER_ZH = "describes another figure", "描述的不是你提交的"
MISREAD_EN, MISREAD_ZH = "reads a cell your figure does not show", "读出的格子与你的图不符"


def grade(text: str, checklist, figure: bytes | None = FIGURE, weights=EXAMPLE_WEIGHTS) -> dict:
    return grade_audit(text, figure, MEASURED_OK, checklist, weights=weights)


def reason_of(feedback: str, label: str) -> str:
    """The reason the (en) feedback lists for one concept: what follows its label, and the labels sharing its reason,
    in the "Not credited" / "Partly credited" part (the item's advice before it names the concepts too)."""
    listed = feedback.split("credited: ", 1)[1]
    return listed.split(label, 1)[1].split(": ", 1)[1]


def test_a_text_about_another_figure_tells_only_the_concepts_it_states(checklist):
    r = grade((GAMING / "values_without_cells_zh.md").read_text(encoding="utf-8"), checklist)
    its = items(r)
    # it states the causal caveat and the one-example caveat, nothing of the figure's layout, parity or experiments
    for item in ("figure_reading", "parity", "experiments"):
        fb = its[item]["feedback"]
        assert OTHER_EN not in fb["en"] and OTHER_ZH not in fb["zh"], (item, fb)
    limits = its["limits"]["feedback"]
    assert limits["en"].count(OTHER_EN) == 1 and limits["zh"].count(OTHER_ZH) == 1, limits
    assert reason_of(limits["en"], "not the true mechanism").startswith("not found"), limits["en"]
    assert "不是真实机制 / 不能替代 parity 等基础证据：未找到" in limits["zh"], limits["zh"]
    assert [f["kind"] for f in r["flags"]].count("figure") == 1


TEXT = ("My heatmap: q0 reads mostly from k0 (0.71).\n"
        "q1 reads mostly from k0 (0.80), which does not mean that k0 causes the output of q1.\n"
        "The rows are not the queries of my heatmap.\n"
        "One example with one seed does not generalise to other inputs.\n")


def test_each_concept_of_a_text_about_another_figure_gets_what_was_seen_of_it(checklist):
    its = items(grade(TEXT, checklist))
    limits, reading = its["limits"]["feedback"], its["figure_reading"]["feedback"]
    # stated in a sentence the figure contradicts
    assert reason_of(limits["en"], "not a causal effect").startswith("stated in a sentence that " + MISREAD_EN)
    assert "不是因果效应：所在的句子" + MISREAD_ZH in limits["zh"], limits["zh"]
    # stated where it would earn: the text is about another figure
    assert OTHER_EN in reason_of(limits["en"], "one small example does not generalise")
    assert "一个小例子不能推广：你的文字" + OTHER_ZH in limits["zh"], limits["zh"]
    # stated, but negated: that is why, whatever figure the text describes
    assert reason_of(reading["en"], "columns are keys").startswith("stated in the negative"), reading["en"]
    assert "列是 key：是否定的说法" in reading["zh"], reading["zh"]
    # never mentioned
    assert reason_of(reading["en"], "masked / padding keys get weight 0").startswith("not found"), reading["en"]
    assert OTHER_EN not in its["parity"]["feedback"]["en"] and OTHER_ZH not in its["parity"]["feedback"]["zh"]


def test_a_cause_of_the_whole_text_is_said_once_as_a_flag(checklist):
    r = grade((GAMING / "same_sentence_synonyms_en.md").read_text(encoding="utf-8"), checklist)
    said = [f for f in r["flags"] if f["kind"] == "figure" and "names no cell of your figure" in f["message"]["en"]]
    assert len(said) == 1 and "没有提到你的图中的任何格子" in said[0]["message"]["zh"], r["flags"]
    assert said[0]["message"]["en"].startswith("Your text") and not said[0]["message"]["zh"].startswith("{")
    # the figure item's concepts are never mentioned: nothing of them is blamed on the text's anchoring
    fb = items(r)["figure_reading"]["feedback"]
    assert "names no cell" not in fb["en"] and "没有提到你的图中的任何格子" not in fb["zh"], fb


COLOUR = "In my heatmap q1 puts most of its weight on k2 (0.67). The masked keys are white in the heatmap.\n"


def test_a_colour_reason_describes_no_heatmap_when_none_was_uploaded(checklist):
    fb = items(grade(COLOUR, checklist, figure=None, weights=None))["figure_reading"]["feedback"]
    assert "drawn darker" not in fb["en"] and "颜色越深" not in fb["zh"], fb
    assert "no figure was submitted" in fb["en"] and "你没有提交图" in fb["zh"], fb


def test_a_colour_reason_describes_no_scale_that_was_not_read(checklist):
    # a figure, but no weights to match its cells against: its low end is not known
    fb = items(grade(COLOUR, checklist, weights=None))["figure_reading"]["feedback"]
    assert "drawn darker" not in fb["en"] and "颜色越深" not in fb["zh"], fb
    assert "could not be matched to the weights" in fb["en"] and "无法与权重对应" in fb["zh"], fb


READING = "我的热力图里 q1 最亮的格子是 k2（0.67），q0 最亮的是 k1（0.58）。\n"
# a clause of the course page (attention_qkv_course_page.txt), then the student's own
HALF = "在实证 Agent 里，注意力本身不是因果证据，它只是表示层的可微检索，但我的图只有一个例子和一个随机种子，不能推广到其他输入。\n"


def test_the_own_half_of_a_half_copied_sentence_counts(checklist):
    r = grade(READING + HALF, checklist)
    limits = items(r)["limits"]
    assert "一个小例子不能推广" not in limits["feedback"]["zh"], limits["feedback"]
    assert "one small example does not generalise" not in limits["feedback"]["en"].split("credited: ", 1)[1]
    # the copied half earns nothing and is flagged, alone
    assert reason_of(limits["feedback"]["en"], "not a causal effect").startswith("copied from the handout")
    copied = [f["message"]["zh"] for f in r["flags"] if f["kind"] == "copied"]
    assert len(copied) == 1 and "可微检索" in copied[0] and "推广" not in copied[0], copied


def test_the_own_half_earns_none_of_the_copied_lines_ideas(checklist):
    # "图用于审计路由" reworded as "这张图是拿来审计路由的" beside a copied clause of the same handout line
    # (round 36: its true "行是 q0、q1" now reads rows = queries, figure 2 + reading 3 = 5 with the copied limits at 0: the
    # file moved from the gaming corpus to the validation set, hand 5)
    text = (GAMING.parent / "validation" / "zh_handout_synonyms_reading.md").read_text(encoding="utf-8")
    r = grade(text, checklist)
    assert r["score"] <= 5 and items(r)["limits"]["points"] == 0
    # (round 35: the file's own true reading, "q0 主要读取 k1（0.58），q1 主要读取 k2（0.67）", now earns the reading budget
    # as its en twin's "q0 reads mostly from k1 (0.58)" did; without it, the reworded line is what is left to earn it)
    own = "q0 主要读取 k1（0.58），q1 主要读取 k2（0.67），"
    assert own in text
    r = grade(text.replace(own, ""), checklist)
    fb = items(r)["figure_reading"]["feedback"]
    assert reason_of(fb["en"], "a row is how one query spends its reading budget").startswith("copied"), fb["en"]


def test_a_copy_cut_by_commas_is_still_a_copy(checklist):
    copy = "权重首先，是模型内部，的读取系数，但这不自动，等于因果解释，feature importance，或真实，机制发现。\n"
    r = grade(READING + copy, checklist)
    assert items(r)["limits"]["points"] == 0, items(r)["limits"]
    assert any(f["kind"] == "copied" and "读取系数" in f["message"]["zh"] for f in r["flags"]), r["flags"]


def test_half_copied_sentences_do_not_each_read_the_whole_handout(checklist, monkeypatch):
    """The handout line a copied half comes from is looked up in an index built once: compared with every line, a
    hostile audit of 2,000 half-copied sentences (60,000 characters) cost 1.9 s of CPU instead of 0.4."""
    from rubric.audit import overlap

    calls = []
    real = overlap._shingles
    monkeypatch.setattr(overlap, "_shingles", lambda toks, n: calls.append(1) or real(toks, n))
    n = 200
    text = READING + "".join(HALF.replace("一个例子", f"一个例子（第 {i} 次）") for i in range(n))
    r = grade(text, checklist)
    assert items(r)["limits"]["points"] > 0
    assert len(calls) < n * 20 + len(checklist.handout.lines), len(calls)


def test_the_own_half_of_a_half_translated_sentence_counts(checklist):
    # the course page's "注意力本身不是因果证据；它只是表示层的可微检索" translated (no 4-gram survives), then the student's own
    text = ("My heatmap: q1 is brightest at k2 (0.67) and q0 at k1 (0.58).\n"
            "Attention itself is not causal evidence; it is only a differentiable retrieval of the representation "
            "layer, and my figure comes from one toy example with one seed, so it does not generalise to other inputs.\n")
    r = grade(text, checklist)
    limits = items(r)["limits"]["feedback"]["en"]
    assert "one small example does not generalise" not in limits.split("credited: ", 1)[1], limits
    assert reason_of(limits, "not a causal effect").startswith("copied from the handout"), limits
    copied = [f["message"]["en"] for f in r["flags"] if f["kind"] == "copied"]
    assert len(copied) == 1 and "causal evidence" in copied[0] and "generalise" not in copied[0], copied


def test_the_own_half_is_no_overclaim_where_it_continues_the_copied_negation(checklist):
    copy = "Attention 的输出依赖其他位置，但这不自动等于因果解释、feature importance 或真实机制发现，"
    for own in ("或者说明 k2 导致了 q1 的输出。\n", "更不等于 k2 导致了 q1 的输出，或者 k2 是最重要的特征。\n"):
        r = grade(READING + copy + own, checklist)
        assert "overclaim" not in [f["kind"] for f in r["flags"]], r["flags"]
